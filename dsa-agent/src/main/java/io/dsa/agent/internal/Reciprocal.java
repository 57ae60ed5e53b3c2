package io.dsa.agent.internal;

/**
 * Division of a non-negative {@code int} by a fixed divisor as a multiplication and a shift, for
 * the element hit path of partitions whose sides are not powers of two (an integer division costs
 * tens of cycles; this costs a few).
 *
 * <p>For a divisor {@code d >= 1}, let {@code l = ceil(log2 d)}, {@code s = 31 + l} and
 * {@code m = ceil(2^s / d)}. Then {@code n / d == (n * m) >>> s} for every {@code 0 <= n < 2^31}
 * (Granlund and Montgomery, "Division by invariant integers using multiplication", 1994, Theorem
 * 4.2 with N = 31: it needs {@code 2^s <= m d <= 2^s + 2^l}, and {@code m d - 2^s < d <= 2^l}).
 * Since {@code 2^(l-1) < d}, {@code m <= 2^32} and {@code n m < 2^63}: the product fits a
 * {@code long}. {@code ReciprocalTest} checks it exhaustively for small divisors and on the
 * edges and random values of the whole range.
 */
final class Reciprocal {
    private Reciprocal() {}

    /** @return the shift {@code s} for divisor {@code d} */
    static int shift(int d) {
        if (d < 1) throw new IllegalArgumentException("divisor " + d + " out of range [1, " + Integer.MAX_VALUE + "]");
        return 31 + (32 - Integer.numberOfLeadingZeros(d - 1));
    }

    /** @return the multiplier {@code m} for divisor {@code d} */
    static long multiplier(int d) {
        int s = shift(d);
        return ((1L << s) + d - 1) / d;
    }

    /** @return {@code n / d}, given {@code m = multiplier(d)} and {@code s = shift(d)}; {@code n} must be in [0, 2^31) */
    static int divide(int n, long m, int s) {
        return (int) ((n * m) >>> s);
    }
}
