package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Reciprocal} divides exactly: every dividend for small divisors, and for divisors across
 * the whole range the dividends where a rounding error would show first (multiples of the divisor
 * and their neighbours, the top of the range) and random ones. The seed is printed.
 */
@Timeout(60)
class ReciprocalTest {

    @Test
    void smallDivisorsDivideEveryDividendUpTo2To16Exactly() {
        for (int d = 1; d <= 1024; d++) {
            long m = Reciprocal.multiplier(d);
            int s = Reciprocal.shift(d);
            for (int n = 0; n < 1 << 16; n++) {
                if (Reciprocal.divide(n, m, s) != n / d) throw new AssertionError(n + " / " + d + " gave " + Reciprocal.divide(n, m, s));
            }
        }
    }

    @Test
    void divisorsAcrossTheRangeDivideTheirEdgesAndRandomDividendsExactly() {
        long seed = Long.getLong("dsa.test.seed", System.nanoTime());
        System.out.println("ReciprocalTest seed " + seed + " (rerun with -Ddsa.test.seed=" + seed + ")");
        SplittableRandom random = new SplittableRandom(seed);
        int[] edges = {1, 2, 3, 5, 7, 700, 1023, 1024, 1025, 65535, 65536, 65537, (1 << 30) - 1, 1 << 30, (1 << 30) + 1,
                Integer.MAX_VALUE - 1, Integer.MAX_VALUE};
        for (int k = 0; k < 20_000; k++) {
            int d = k < edges.length ? edges[k] : 1 + random.nextInt(k % 2 == 0 ? 1 << 16 : Integer.MAX_VALUE);
            long m = Reciprocal.multiplier(d);
            int s = Reciprocal.shift(d);
            check(Integer.MAX_VALUE, d, m, s);
            check(Integer.MAX_VALUE - 1, d, m, s);
            long q = Integer.MAX_VALUE / d;
            for (long j : new long[] {1, 2, q / 2, q - 1, q}) {
                if (j < 1 || j > q) continue;
                long n = j * d;
                check((int) n, d, m, s);
                check((int) n - 1, d, m, s);
                if (n < Integer.MAX_VALUE) check((int) n + 1, d, m, s);
            }
            for (int r = 0; r < 50; r++) check(random.nextInt(Integer.MAX_VALUE), d, m, s);
        }
    }

    private static void check(int n, int d, long m, int s) {
        assertEquals(n / d, Reciprocal.divide(n, m, s), () -> n + " / " + d);
    }

    @Test
    void aDivisorBelowOneIsRefusedNamingIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Reciprocal.shift(0));
        assertEquals("divisor 0 out of range [1, 2147483647]", e.getMessage());
    }
}
