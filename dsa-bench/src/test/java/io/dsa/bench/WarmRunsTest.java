package io.dsa.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The warm runs of several VMs are interleaved, a round running each case once before the next
 * round runs any, and each case's figure is the median of the later half of its own runs.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class WarmRunsTest {
    @Test
    void aRoundRunsEveryCaseOnceBeforeTheNextRoundRunsAny() throws Exception {
        List<Integer> order = new ArrayList<>();
        double[][] t = BenchCommand.WarmRuns.interleaved(3, 4, c -> {
            order.add(c);
            return 10 * c + order.size();   // distinct per run: case c's run r is at position 3r + c + 1
        });
        assertEquals(List.of(0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2), order);
        assertArrayEquals(new double[] {1, 4, 7, 10}, t[0]);
        assertArrayEquals(new double[] {12, 15, 18, 21}, t[1]);
        assertArrayEquals(new double[] {23, 26, 29, 32}, t[2]);
    }

    @Test
    void eachCasesFigureIsTheMedianOfTheLaterHalfOfItsRuns() {
        // a cold first half, much slower, leaves no trace
        assertEquals(2.0, BenchCommand.WarmRuns.laterHalfMedian(new double[] {90, 80, 70, 3, 1, 2}), 0);
        assertEquals(5.0, BenchCommand.WarmRuns.laterHalfMedian(new double[] {9, 5}), 0);
        assertEquals(7.0, BenchCommand.WarmRuns.laterHalfMedian(new double[] {7}), 0);
    }
}
