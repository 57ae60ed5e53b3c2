package io.dsa.agent.internal;

import static io.dsa.agent.internal.ReleaseScopeTest.check;
import static io.dsa.agent.internal.ReleaseScopeTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.dsa.ArrayUse;
import io.dsa.CacheState;
import io.dsa.DsaScope;
import io.dsa.ElementType;
import io.dsa.ReduceOp;
import io.dsa.SharedDoubleArray;
import io.dsa.SharedFloatArray;
import io.dsa.SharedIntArray;
import io.dsa.SharedLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Accumulate scopes (issue 13) over real agents in this JVM: every worker of several nodes
 * combining into the same elements, across partitions homed everywhere and cached elsewhere, in
 * element and region form, for every element type and op; the combined result equals the one-by-one
 * result; the accesses the scope refuses say why; and the op identities that make an untouched
 * element come back unchanged.
 */
@Timeout(120)
class AccumulateScopeTest {

    /**
     * 60 ints in partitions of 8 on 3 nodes x 2 threads, three rounds: every worker adds
     * {@code threadId + 1} to every element (elements of one partition from six workers of three
     * nodes at once), and before each round node 2 holds a read copy of every partition and owns
     * one homed at node 0, so the homes invalidate and recall before they add. After the scope
     * every worker reads {@code 1000 * i + round * 21} (1 + 2 + ... + 6 = 21 per round).
     */
    @Test
    void everyWorkerOfEveryNodeAddsIntoTheSameElements() {
        run(3, 2, w -> {
            SharedIntArray a = w.node().createSharedIntArray("a", 60, 8);
            for (int i = w.threadId(); i < 60; i += 6) a.write(i, 1000 * i);
            w.barrier();
            for (int round = 1; round <= 3; round++) {
                if (w.nodeId() == 2) {
                    for (int i = 0; i < 60; i++) a.read(i);
                    if (w.localThreadId() == 0) a.write(3, a.read(3)); // owns partition 0, homed at node 0
                }
                w.barrier();
                try (DsaScope scope = w.scope(ArrayUse.accumulate(a, ReduceOp.SUM))) {
                    for (int i = 0; i < 60; i++) a.accumulate(i, w.threadId() + 1, ReduceOp.SUM);
                }
                for (int i = 0; i < 60; i++) {
                    int expected = 1000 * i + round * 21;
                    check(a.read(i) == expected, "node " + w.nodeId() + " round " + round + " reads " + a.read(i) + " at " + i
                            + ", expected " + expected);
                }
                w.barrier(); // the reads are done before the next round adds
            }
        });
    }

    /**
     * Region accumulates of every type and op, across partition edges, by workers of both nodes:
     * the result is what the same accumulates made one by one outside a scope give (integer
     * values, so the floating-point sums are exact too), into a twin array.
     */
    @Test
    void regionAccumulatesOfEveryTypeAndOpEqualTheOneByOneResult() {
        run(2, 2, w -> {
            SharedLongArray min = w.node().createSharedLongArray("min", 8, 8, 4);
            SharedLongArray minTwin = w.node().createSharedLongArray("minTwin", 8, 8, 4);
            SharedDoubleArray sum = w.node().createSharedDoubleArray("sum", 64, 16);
            SharedDoubleArray sumTwin = w.node().createSharedDoubleArray("sumTwin", 64, 16);
            SharedFloatArray max = w.node().createSharedFloatArray("max", 64, 16);
            SharedFloatArray maxTwin = w.node().createSharedFloatArray("maxTwin", 64, 16);
            SharedIntArray xor = w.node().createSharedIntArray("xor", 64, 16);
            SharedIntArray xorTwin = w.node().createSharedIntArray("xorTwin", 64, 16);
            int t = w.threadId();
            long[] l = new long[36];
            double[] d = new double[20];
            float[] f = new float[20];
            int[] x = new int[20];
            for (int k = 0; k < 36; k++) l[k] = (k * 7L + t * 13) % 29 - 14;
            for (int k = 0; k < 20; k++) {
                d[k] = k + t;
                f[k] = (k * 5 + t * 3) % 17 - 8;
                x[k] = (k + 1) << t;
            }
            try (DsaScope scope = w.scope(ArrayUse.accumulate(min, ReduceOp.MIN), ArrayUse.accumulate(sum, ReduceOp.SUM),
                    ArrayUse.accumulate(max, ReduceOp.MAX), ArrayUse.accumulate(xor, ReduceOp.XOR))) {
                min.accumulate(1 + t % 2, 1, 6, 6, l, ReduceOp.MIN);       // 6x6 from (1|2, 1): four partitions
                sum.accumulate(0, 6 + 10 * t, 1, 20, d, ReduceOp.SUM);      // 20 elements across a partition edge
                max.accumulate(0, 8 * t, 1, 20, f, ReduceOp.MAX);
                xor.accumulate(0, 4 * t, 1, 20, x, ReduceOp.XOR);
            }
            minTwin.accumulate(1 + t % 2, 1, 6, 6, l, ReduceOp.MIN);
            sumTwin.accumulate(0, 6 + 10 * t, 1, 20, d, ReduceOp.SUM);
            maxTwin.accumulate(0, 8 * t, 1, 20, f, ReduceOp.MAX);
            xorTwin.accumulate(0, 4 * t, 1, 20, x, ReduceOp.XOR);
            w.barrier();
            for (int i = 0; i < 64; i++) {
                check(min.read(i) == minTwin.read(i), "min[" + i + "] = " + min.read(i) + ", one by one " + minTwin.read(i));
                check(sum.read(i) == sumTwin.read(i), "sum[" + i + "] = " + sum.read(i) + ", one by one " + sumTwin.read(i));
                check(max.read(i) == maxTwin.read(i), "max[" + i + "] = " + max.read(i) + ", one by one " + maxTwin.read(i));
                check(xor.read(i) == xorTwin.read(i), "xor[" + i + "] = " + xor.read(i) + ", one by one " + xorTwin.read(i));
            }
            check(min.read(0) == 0 && min.read(1, 1) < 0, "min: untouched 0 stays, touched ones take the minimum");
        });
    }

    /**
     * Node 1 accumulates only into partitions homed at node 0: nothing comes in (no copy, no
     * partition bytes received), and node 0 reads the sums afterwards.
     */
    @Test
    void accumulatedDataIsNeverDemandedIn() {
        run(2, 2, w -> {
            SharedLongArray a = w.node().createSharedLongArray("a", 64, 8); // partitions 0-3 at node 0, 4-7 at node 1
            try (DsaScope scope = w.scope(ArrayUse.accumulate(a, ReduceOp.SUM))) {
                if (w.nodeId() == 1) for (int i = 0; i < 32; i++) a.accumulate(i, i, ReduceOp.SUM);
            }
            if (w.nodeId() == 1) {
                for (int p = 0; p < 4; p++) check(a.cacheState(p) == CacheState.INVALID, "node 1 holds partition " + p);
                long in = ((AbstractSharedArray) a).state.counters.io(ArrayCounters.BYTES_IN);
                check(in == 0, "node 1 received " + in + " bytes of partitions of 'a'");
            }
            if (w.nodeId() == 0) for (int i = 0; i < 32; i++) check(a.read(i) == 2L * i, "node 0 reads " + a.read(i) + " at " + i);
        });
    }

    @Test
    void accessesTheScopeRefusesSayWhy() {
        run(2, 1, w -> {
            SharedDoubleArray a = w.node().createSharedDoubleArray("a", 32, 8);
            try (DsaScope scope = w.scope(ArrayUse.accumulate(a, ReduceOp.MAX))) {
                IllegalStateException read = assertThrows(IllegalStateException.class, () -> a.read(3));
                check(read.getMessage().contains("array 'a' is accumulate(MAX) in the open scope: only accumulate with MAX is allowed"),
                        read.getMessage());
                assertThrows(IllegalStateException.class, () -> a.write(3, 1.0));
                assertThrows(IllegalStateException.class, () -> a.read(0, 0, 1, 4, new double[4]));
                assertThrows(IllegalStateException.class, () -> a.acquirePartition(0));
                assertThrows(IllegalStateException.class, () -> a.requestPartitionCopy(w.nodeId() == 0 ? 3 : 0));
                IllegalStateException other = assertThrows(IllegalStateException.class, () -> a.accumulate(3, 1.0, ReduceOp.SUM));
                check(other.getMessage().contains("array 'a' is accumulate(MAX) in the open scope: an accumulate with SUM cannot "
                        + "combine with its updates"), other.getMessage());
                assertThrows(IllegalStateException.class, () -> a.accumulate(0, 0, 1, 2, new double[2], ReduceOp.MIN));
                assertThrows(IndexOutOfBoundsException.class, () -> a.accumulate(32, 1.0, ReduceOp.MAX));
                a.accumulate(w.nodeId(), 5.0, ReduceOp.MAX);
            }
            check(a.read(0) == 5.0 && a.read(1) == 5.0 && a.read(2) == 0.0, "after: " + a.read(0) + ", " + a.read(1) + ", " + a.read(2));
            IllegalArgumentException bitwise = assertThrows(IllegalArgumentException.class, () -> ArrayUse.accumulate(a, ReduceOp.XOR));
            check(bitwise.getMessage().contains("reduce op XOR does not apply to the DOUBLE elements of array 'a'"), bitwise.getMessage());
            assertEquals("accumulate('a', SUM)", ArrayUse.accumulate(a, ReduceOp.SUM).toString());
            // another op in the next scope over the same array: a new buffer with that op's identity
            try (DsaScope scope = w.scope(ArrayUse.accumulate(a, ReduceOp.PROD))) {
                a.accumulate(0, 3.0, ReduceOp.PROD);
            }
            check(a.read(0) == 45.0 && a.read(1) == 5.0 && a.read(4) == 0.0, "after PROD: " + a.read(0) + ", " + a.read(1));
        });
    }

    /** Each op's identity leaves every value unchanged, bit for bit (SUM's -0.0 keeps a -0.0), so untouched elements of a buffer are no-ops. */
    @Test
    void theIdentityOfEveryOpLeavesEveryValueUnchanged() {
        double[] doubles = {-0.0, 0.0, 1.5, -7.25, Double.MAX_VALUE, Double.MIN_VALUE, Double.NEGATIVE_INFINITY, Double.NaN};
        long[] longs = {0, 1, -1, Long.MAX_VALUE, Long.MIN_VALUE, 123456789012L};
        for (ReduceOp op : ReduceOp.values()) {
            if (op.appliesTo(ElementType.DOUBLE)) {
                double e = Double.longBitsToDouble(ReleaseBuffer.identityBits(ElementType.DOUBLE, op));
                float ef = Float.intBitsToFloat((int) ReleaseBuffer.identityBits(ElementType.FLOAT, op));
                for (double v : doubles) {
                    assertEquals(Double.doubleToRawLongBits(v), Double.doubleToRawLongBits(op.apply(e, v)), op + " on " + v);
                    float fv = (float) v;
                    assertEquals(Float.floatToRawIntBits(fv), Float.floatToRawIntBits((float) op.apply((double) ef, (double) fv)),
                            op + " on float " + fv);
                }
            }
            long e = ReleaseBuffer.identityBits(ElementType.LONG, op);
            int ei = (int) ReleaseBuffer.identityBits(ElementType.INT, op);
            for (long v : longs) {
                assertEquals(v, op.apply(e, v), op + " on " + v);
                assertEquals((int) v, (int) op.apply((long) ei, (long) (int) v), op + " on int " + (int) v);
            }
        }
    }
}
