package io.dsa.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ReduceOp;
import java.util.Arrays;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code allReduce(double[])} and {@code allReduce(long[])} under every {@link BarrierKind} x
 * {@link ProxyMode}: element-wise results bit-identical to a sequential fold in thread-id order,
 * one barrier round each, mixed with scalar collectives and plain barriers; a length mismatch
 * fails the job naming both lengths.
 */
@Timeout(60)
class VectorAllReduceTest {
    private static final int[] LENGTHS = {1, 2, 7, 1000};
    /**
     * Rounds over {@link #LENGTHS}, each with fresh values: one already runs every length through
     * the double and long collectives back to back (each length reused by the next operation).
     */
    private static final int ROUNDS = 1;
    private static final ReduceOp[] DOUBLE_OPS = {ReduceOp.SUM, ReduceOp.MIN, ReduceOp.MAX, ReduceOp.PROD};

    private static void run(BarrierKind kind, ProxyMode proxy, int nodes, int threads, int fanout, DsaProgram program) {
        BarrierKindTest.run(kind, proxy, nodes, threads, fanout, program);
    }

    /** Thread {@code t}'s element {@code j} in round {@code r}: values whose sums and products round differently by order. */
    private static double dv(int t, int j, int r) {
        double x = (1.0 + r) / (t + 3 + j % 11) * ((t + j) % 3 == 0 ? -1 : 1);
        return j % 5 == 4 ? x * 1e-3 : x;
    }

    private static long lv(int t, int j, int r) {
        return (0x9E3779B97F4A7C15L * (t + 1) + 31L * j + r) ^ (1L << ((t + j) % 64));
    }

    private static void expectBits(String what, double expected, double got) {
        if (Double.doubleToRawLongBits(expected) != Double.doubleToRawLongBits(got)) {
            throw new AssertionError(what + ": " + got + " != " + expected + " (sequential fold in thread-id order)");
        }
    }

    @ParameterizedTest(name = "{0} {1} {2}x{3}")
    @MethodSource("io.dsa.agent.BarrierKindTest#configs")
    void elementWiseResultsEqualTheSequentialFoldBitForBit(BarrierKind kind, ProxyMode proxy, int nodes, int threads,
            int fanout) {
        int total = nodes * threads;
        run(kind, proxy, nodes, threads, fanout, w -> {
            int me = w.threadId();
            long epoch = w.epoch();
            for (int r = 0; r < ROUNDS; r++) {
                for (int length : LENGTHS) {
                    double[] mine = new double[length];
                    for (int j = 0; j < length; j++) mine[j] = dv(me, j, r);
                    double[] before = mine.clone();
                    for (ReduceOp op : DOUBLE_OPS) {
                        double[] got = w.allReduce(mine, op);
                        epoch++;
                        assertEquals(length, got.length);
                        for (int j = 0; j < length; j++) {
                            double acc = dv(0, j, r);
                            for (int t = 1; t < total; t++) acc = op.apply(acc, dv(t, j, r));
                            expectBits(op + " length " + length + " [" + j + "] at thread " + me, acc, got[j]);
                        }
                    }
                    if (!Arrays.equals(before, mine)) throw new AssertionError("allReduce changed the caller's array");
                    long[] lmine = new long[length];
                    for (int j = 0; j < length; j++) lmine[j] = lv(me, j, r);
                    for (ReduceOp op : ReduceOp.values()) {
                        long[] got = w.allReduce(lmine, op);
                        epoch++;
                        for (int j = 0; j < length; j++) {
                            long acc = lv(0, j, r);
                            for (int t = 1; t < total; t++) acc = op.apply(acc, lv(t, j, r));
                            if (acc != got[j]) throw new AssertionError(op + " long length " + length + " [" + j + "]");
                        }
                    }
                    // scalar collectives and plain barriers in between share the same barrier rounds
                    double s = w.allReduce(dv(me, 0, r), ReduceOp.SUM);
                    double expect = dv(0, 0, r);
                    for (int t = 1; t < total; t++) expect += dv(t, 0, r);
                    expectBits("scalar SUM", expect, s);
                    w.barrier();
                    if (w.broadcast((long) me * 7 + length, total - 1) != (long) (total - 1) * 7 + length) {
                        throw new AssertionError("broadcast after a vector collective");
                    }
                    epoch += 3;
                }
            }
            if (w.allReduce(new double[0], ReduceOp.SUM).length != 0) throw new AssertionError("empty allReduce");
            epoch++;
            assertEquals(epoch, w.epoch(), "every collective is one barrier round");
        });
    }

    @ParameterizedTest
    @EnumSource(BarrierKind.class)
    void lengthsDifferingWithinANodeFailNamingBoth(BarrierKind kind) {
        DsaException e = assertThrows(DsaException.class, () -> run(kind, ProxyMode.FLOAT, 2, 2, 2,
                w -> w.allReduce(new double[w.threadId() == 1 ? 3 : 2], ReduceOp.SUM)));
        assertTrue(e.getMessage().contains("passed 3 values") && e.getMessage().contains("passed 2 values"), e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(BarrierKind.class)
    void lengthsDifferingBetweenNodesFailNamingBoth(BarrierKind kind) {
        DsaException e = assertThrows(DsaException.class, () -> run(kind, ProxyMode.FIXED, 3, 2, 2,
                w -> w.allReduce(new long[w.nodeId() == 2 ? 7 : 5], ReduceOp.XOR)));
        assertTrue(e.getMessage().contains("passed 7 values") && e.getMessage().contains("passed 5 values"), e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(BarrierKind.class)
    void aPlainBarrierAgainstACollectiveFailsNamingBoth(BarrierKind kind) {
        DsaException e = assertThrows(DsaException.class, () -> run(kind, ProxyMode.FLOAT, 2, 2, 2, (DsaWorker w) -> {
            if (w.threadId() == 3) {
                w.barrier();
            } else {
                w.allReduce(new double[] {1, 2}, ReduceOp.MAX);
            }
        }));
        assertTrue(e.getMessage().contains("plain barrier") && e.getMessage().contains("passed 2 values"), e.getMessage());
    }
}
