package io.dsa.agent;

import static io.dsa.agent.LocalRuns.check;
import static io.dsa.agent.LocalRuns.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.CacheState;
import io.dsa.DsaException;
import io.dsa.ReduceOp;
import io.dsa.SharedDoubleArray;
import io.dsa.SharedFloatArray;
import io.dsa.SharedIntArray;
import io.dsa.SharedLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Accumulate into shared arrays (issue 13): updates shipped to the partitions' homes, over real
 * agents in this JVM. Every worker of every node adds into the same elements at once; none of the
 * updates may be lost, cached copies must see the result, and bad calls fail with the reason.
 */
@Timeout(120)
class ArrayAccumulateTest {


    /** A 30x30 array of 8x8 partitions: a region from (3, 5) of 20x22 covers 16 partitions of all four nodes, ragged ones too. */
    @Test
    void concurrentRegionSumsFromEveryWorkerAreAllApplied() {
        int rounds = 20;
        run(4, 2, w -> {
            SharedDoubleArray a = w.node().createSharedDoubleArray("a", 30, 30, 8);
            double[] ones = new double[20 * 22];
            for (int i = 0; i < ones.length; i++) ones[i] = i % 7 + 1;
            w.barrier();
            for (int r = 0; r < rounds; r++) a.accumulate(3, 5, 20, 22, ones, ReduceOp.SUM);
            w.barrier();
            int workers = 4 * 2;
            for (int row = 0; row < 30; row++) {
                for (int col = 0; col < 30; col++) {
                    boolean inside = row >= 3 && row < 23 && col >= 5 && col < 27;
                    double expect = inside ? (double) workers * rounds * (((row - 3) * 22 + (col - 5)) % 7 + 1) : 0.0;
                    check(a.read(row, col) == expect, "(" + row + ", " + col + ") = " + a.read(row, col) + ", expected " + expect);
                }
            }
        });
    }

    @Test
    void elementAccumulatesOfEveryTypeAndOpCombineAtTheHome() {
        run(2, 2, w -> {
            int me = w.threadId(); // 0 .. 3, node-major
            SharedLongArray l = w.node().createSharedLongArray("l", 64, 16);
            SharedIntArray i = w.node().createSharedIntArray("i", 64, 16);
            SharedFloatArray f = w.node().createSharedFloatArray("f", 64, 16);
            SharedDoubleArray d = w.node().createSharedDoubleArray("d", 64, 16);
            if (w.nodeId() == 0 && w.threadId() == 0) {
                // element k of op o starts at the op's identity
                for (ReduceOp op : ReduceOp.values()) {
                    int k = op.ordinal() * 9; // partitions of 16: the ops' elements lie in several partitions
                    long start = op == ReduceOp.PROD ? 1 : op == ReduceOp.AND ? -1 : op == ReduceOp.MIN ? 1000 : 0;
                    l.write(k, start);
                    i.write(k, (int) start);
                    f.write(k, start);
                    d.write(k, start);
                }
            }
            w.barrier();
            for (ReduceOp op : ReduceOp.values()) {
                int k = op.ordinal() * 9;
                long v = op == ReduceOp.PROD ? 3 : op.ordinal() <= ReduceOp.PROD.ordinal() ? me + 2 : ~(1L << me);
                l.accumulate(k, v, op);
                i.accumulate(0, k, (int) v, op);
                if (op.appliesTo(io.dsa.ElementType.DOUBLE)) {
                    f.accumulate(k, (float) v, op);
                    d.accumulate(0, k, (double) v, op);
                }
            }
            w.barrier();
            for (ReduceOp op : ReduceOp.values()) {
                int k = op.ordinal() * 9;
                long expect = op == ReduceOp.PROD ? 1 : op == ReduceOp.AND ? -1 : op == ReduceOp.MIN ? 1000 : 0;
                for (int t = 0; t < 4; t++) {
                    expect = op.apply(expect, op == ReduceOp.PROD ? 3 : op.ordinal() <= ReduceOp.PROD.ordinal() ? t + 2 : ~(1L << t));
                }
                check(l.read(k) == expect, "long " + op + ": " + l.read(k) + " != " + expect);
                check(i.read(k) == (int) expect, "int " + op + ": " + i.read(k) + " != " + (int) expect);
                if (op.appliesTo(io.dsa.ElementType.DOUBLE)) {
                    check(f.read(k) == (float) expect, "float " + op + ": " + f.read(k) + " != " + expect);
                    check(d.read(k) == (double) expect, "double " + op + ": " + d.read(k) + " != " + expect);
                }
            }
        });
    }

    /** A node holding a read copy, or ownership, of a partition sees the accumulated value: the home invalidated or recalled it. */
    @Test
    void copiesCachedOrOwnedElsewhereSeeTheAccumulatedValue() {
        run(3, 1, w -> {
            SharedDoubleArray a = w.node().createSharedDoubleArray("a", 48, 16); // partition p homed at node p
            if (w.nodeId() == 1) a.write(40, 1.0);            // node 1 owns partition 2 (homed at node 2)
            if (w.nodeId() == 2) check(a.read(5) == 0.0, ""); // node 2 holds a read copy of partition 0
            w.barrier();
            if (w.nodeId() == 1) check(a.cacheState(2) == CacheState.EXCLUSIVE, "node 1 owns partition 2: " + a.cacheState(2));
            if (w.nodeId() == 2) check(a.cacheState(0) == CacheState.SHARED, "node 2 caches partition 0: " + a.cacheState(0));
            w.barrier();
            if (w.nodeId() == 0) {
                a.accumulate(40, 2.5, ReduceOp.SUM);
                a.accumulate(5, 4.0, ReduceOp.MAX);
            }
            w.barrier();
            check(a.read(40) == 3.5, "node " + w.nodeId() + " reads " + a.read(40) + " at 40, expected 3.5");
            check(a.read(5) == 4.0, "node " + w.nodeId() + " reads " + a.read(5) + " at 5, expected 4.0");
        });
    }

    /** An accumulate is visible to the thread that made it as soon as it returns, without a barrier. */
    @Test
    void theAccumulatingThreadReadsItsOwnUpdateAtOnce() {
        run(2, 1, w -> {
            SharedLongArray a = w.node().createSharedLongArray("a", 32, 16);
            int remote = w.nodeId() == 0 ? 20 : 3; // homed at the other node
            check(a.read(remote) == 0, "starts at zero");
            for (int k = 1; k <= 50; k++) {
                a.accumulate(remote, 1, ReduceOp.SUM);
                check(a.read(remote) == k, "after " + k + " accumulates node " + w.nodeId() + " reads " + a.read(remote));
            }
        });
    }

    /**
     * Before: the home's slot of a partition never written there had no bytes after a remote read
     * took a copy of its zeros, so a grant of ownership back to the home left its workers without
     * access, and a future waiting for it (an accumulate, {@code acquirePartition}) never completed.
     */
    @Test
    void acquirePartitionAtTheHomeAfterARemoteReadOfAnUntouchedPartitionCompletes() {
        run(2, 1, w -> {
            SharedDoubleArray a = w.node().createSharedDoubleArray("a", 32, 16);
            if (w.nodeId() == 0) check(a.read(20) == 0.0, "zeros"); // partition 1, homed at node 1, never written
            w.barrier();
            if (w.nodeId() == 1) {
                a.acquirePartition(1).join();
                check(a.cacheState(1) == CacheState.EXCLUSIVE, "node 1 holds its partition again: " + a.cacheState(1));
            }
            w.barrier();
        });
    }

    @Test
    void badCallsFailWithTheReasonAndTheValidRange() {
        run(2, 1, w -> {
            SharedDoubleArray d = w.node().createSharedDoubleArray("d", 16, 16, 8);
            SharedIntArray i = w.node().createSharedIntArray("i", 40, 8);
            IllegalArgumentException op = assertThrows(IllegalArgumentException.class, () -> d.accumulate(0, 0, 1.0, ReduceOp.XOR));
            assertTrue(op.getMessage().contains("XOR") && op.getMessage().contains("'d'"), op.getMessage());
            IndexOutOfBoundsException range = assertThrows(IndexOutOfBoundsException.class,
                    () -> d.accumulate(10, 10, 8, 2, new double[16], ReduceOp.SUM));
            assertTrue(range.getMessage().contains("17"), range.getMessage());
            IllegalArgumentException buffer = assertThrows(IllegalArgumentException.class,
                    () -> d.accumulate(0, 0, 4, 4, new double[15], ReduceOp.SUM));
            assertTrue(buffer.getMessage().contains("15") && buffer.getMessage().contains("16"), buffer.getMessage());
            assertThrows(IndexOutOfBoundsException.class, () -> i.accumulate(40, 1, ReduceOp.SUM));
            assertThrows(NullPointerException.class, () -> i.accumulate(3, 1, null));
            i.accumulate(0, 0, 0, 0, new int[0], ReduceOp.SUM); // an empty region does nothing
            w.barrier();
            assertEquals(0, i.read(3));
        });
    }

    /** Accumulates fail, rather than hang, once the job has failed. */
    @Test
    void anAccumulateInAFailedJobThrows() {
        DsaException failed = assertThrows(DsaException.class, () -> run(2, 1, w -> {
            SharedDoubleArray a = w.node().createSharedDoubleArray("a", 32, 16);
            w.barrier();
            if (w.nodeId() == 1) throw new IllegalStateException("worker of node 1 gives up");
            for (int k = 0; k < 1_000_000; k++) a.accumulate(20, 1.0, ReduceOp.SUM); // homed at node 1
        }));
        assertTrue(failed.getMessage().contains("gives up"), failed.getMessage());
    }
}
