package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.ArrayUse;
import io.dsa.CacheState;
import io.dsa.DsaProgram;
import io.dsa.DsaScope;
import io.dsa.ReduceOp;
import io.dsa.SharedDoubleArray;
import io.dsa.SharedFloatArray;
import io.dsa.SharedIntArray;
import io.dsa.SharedLongArray;
import io.dsa.agent.DsaCluster;
import io.dsa.agent.DsaConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Release scopes (issue 13) over real agents in this JVM: several nodes and threads writing
 * interleaved elements of shared partitions, write-only data never demanded in, reads of a node's
 * own buffered writes, and the accesses the scope refuses with their messages.
 */
@Timeout(120)
class ReleaseScopeTest {

    static void run(int nodes, int threads, DsaProgram program) {
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(nodes).threadsPerNode(threads).build())) {
            cluster.run(program);
        }
    }

    static void check(boolean ok, String what) {
        if (!ok) throw new AssertionError(what);
    }

    /**
     * 96 doubles in partitions of 16 on 3 nodes x 2 threads: worker t writes every element i with
     * i % 6 == t, so every partition is written by all six workers of the three nodes at once.
     * Before each round node 1 caches every partition and owns one element of partition 0 (homed
     * at node 0), so the homes must invalidate and recall before they write the diffs. After the
     * scope every worker reads every value, three rounds running.
     */
    @Test
    void severalNodesAndThreadsWriteInterleavedElementsOfSharedPartitions() {
        run(3, 2, w -> {
            SharedDoubleArray a = w.node().createSharedDoubleArray("a", 96, 16);
            int workers = w.node().network().getGlobalThreadCount();
            for (int round = 1; round <= 3; round++) {
                if (w.nodeId() == 1) {
                    for (int i = 0; i < 96; i++) a.read(i);     // read copies of every partition
                    if (w.localThreadId() == 0) a.write(15, a.read(15)); // and ownership of partition 0
                }
                w.barrier();
                try (DsaScope scope = w.scope(ArrayUse.release(a))) {
                    for (int i = w.threadId(); i < 96; i += workers) a.write(i, round * 1000 + i);
                    for (int i = w.threadId(); i < 96; i += workers) {
                        check(a.read(i) == round * 1000 + i, "worker " + w.threadId() + " reads " + a.read(i) + " at " + i + " inside");
                    }
                }
                for (int i = 0; i < 96; i++) {
                    check(a.read(i) == round * 1000 + i, "node " + w.nodeId() + " round " + round + " reads " + a.read(i) + " at " + i);
                }
                w.barrier(); // the reads above are done before the next round writes
            }
        });
    }

    /**
     * Every element type and every write form: element writes of a 2-D int array, region writes of
     * a float array and partition writes of a long array, each by workers of both nodes into
     * partitions homed at both; then read everywhere.
     */
    @Test
    void regionAndPartitionWritesOfEveryTypeAreBufferedAndApplied() {
        run(2, 2, w -> {
            SharedIntArray m = w.node().createSharedIntArray("m", 8, 8, 4); // 4 partitions of 4x4
            SharedFloatArray f = w.node().createSharedFloatArray("f", 64, 16);
            SharedLongArray g = w.node().createSharedLongArray("g", 64, 16);
            int t = w.threadId();
            try (DsaScope scope = w.scope(ArrayUse.release(m), ArrayUse.release(f), ArrayUse.release(g))) {
                for (int r = 0; r < 8; r++) for (int c = t; c < 8; c += 4) m.write(r, c, r * 8 + c + 1);
                // rows of 4 floats across partition edges: worker t writes elements [16 k + 4 t, 16 k + 4 t + 4) and [14, 18) once
                for (int k = 0; k < 4; k++) {
                    float[] src = {k * 16 + 4 * t, k * 16 + 4 * t + 1, k * 16 + 4 * t + 2, k * 16 + 4 * t + 3};
                    if (t == 3 && k == 0) continue;
                    f.write(0, k * 16 + 4 * t, 1, 4, src);
                }
                if (t == 3) f.write(0, 12, 1, 4, new float[] {12, 13, 14, 15});
                long[] part = new long[16];
                for (int i = 0; i < 16; i++) part[i] = -(t * 16L + i);
                g.writePartition(t, part);
                long[] back = new long[16];
                g.readPartition(t, back);
                for (int i = 0; i < 16; i++) check(back[i] == part[i], "readPartition inside reads " + back[i] + " at " + i);
            }
            for (int r = 0; r < 8; r++) for (int c = 0; c < 8; c++) check(m.read(r, c) == r * 8 + c + 1, "m[" + r + "][" + c + "] = " + m.read(r, c));
            float[] all = new float[64];
            f.read(0, 0, 1, 64, all);
            for (int i = 0; i < 64; i++) check(all[i] == i, "f[" + i + "] = " + all[i]);
            for (int i = 0; i < 64; i++) check(g.read(i) == -i, "g[" + i + "] = " + g.read(i));
        });
    }

    /**
     * Node 1 writes only partitions homed at node 0: nothing comes in, no copy is made at node 1
     * (its counters show no partition bytes received), and node 0 reads the writes afterwards.
     */
    @Test
    void writeOnlyDataIsNeverDemandedIn() {
        run(2, 2, w -> {
            SharedLongArray a = w.node().createSharedLongArray("a", 64, 8); // partitions 0-3 at node 0, 4-7 at node 1
            ArrayState state = ((AbstractSharedArray) a).state;
            try (DsaScope scope = w.scope(ArrayUse.release(a))) {
                if (w.nodeId() == 1) {
                    for (int i = w.localThreadId(); i < 32; i += 2) a.write(i, 100 + i);
                    for (int p = 0; p < 4; p++) check(a.cacheState(p) == CacheState.INVALID, "node 1 holds partition " + p + " inside");
                }
            }
            if (w.nodeId() == 1) {
                for (int p = 0; p < 4; p++) check(a.cacheState(p) == CacheState.INVALID, "node 1 holds partition " + p + " after");
                long in = state.counters.io(ArrayCounters.BYTES_IN);
                check(in == 0, "node 1 received " + in + " bytes of partitions of 'a'");
            }
            if (w.nodeId() == 0) for (int i = 0; i < 32; i++) check(a.read(i) == 100 + i, "node 0 reads " + a.read(i) + " at " + i);
        });
    }

    /**
     * Inside the scope a node reads its own buffered writes (also another local worker's, after a
     * local barrier) and the values from before the scope elsewhere, in element, region and
     * partition reads; never by taking ownership.
     */
    @Test
    void readsInsideSeeTheNodesOwnWritesAndOtherwiseTheValuesBefore() {
        run(2, 2, w -> {
            SharedIntArray a = w.node().createSharedIntArray("a", 32, 8);
            for (int i = w.threadId(); i < 32; i += 4) a.write(i, i);
            w.barrier();
            for (int i = 0; i < 32; i++) a.read(i); // every node a read copy: nobody owns a partition homed elsewhere
            w.barrier();
            int n = w.nodeId();
            try (DsaScope scope = w.scope(ArrayUse.release(a))) {
                // node n writes the elements i with i % 4 == n (one per local thread, alternating), nobody writes i % 4 >= 2
                for (int i = n + 4 * w.localThreadId(); i < 32; i += 8) a.write(i, -i);
                w.node().localBarrier().await();
                for (int i = 0; i < 32; i++) {
                    if (i % 4 == 1 - n) continue; // the other node's writes: a race inside the scope
                    int expected = i % 4 == n ? -i : i;
                    check(a.read(i) == expected, "node " + n + " reads " + a.read(i) + " at " + i + ", expected " + expected);
                }
                int[] region = new int[12];
                a.read(0, 6, 1, 12, region);
                for (int k = 0; k < 12; k++) {
                    int i = 6 + k;
                    if (i % 4 != 1 - n) check(region[k] == (i % 4 == n ? -i : i), "region read " + region[k] + " at " + i);
                }
                int[] part = new int[8];
                a.readPartition(3, part);
                for (int k = 0; k < 8; k++) {
                    int i = 24 + k;
                    if (i % 4 != 1 - n) check(part[k] == (i % 4 == n ? -i : i), "partition read " + part[k] + " at " + i);
                }
                for (int p = 0; p < 4; p++) check(a.cacheState(p) != CacheState.EXCLUSIVE || a.homeOf(p) == n, "node " + n + " owns " + p);
            }
            for (int i = 0; i < 32; i++) check(a.read(i) == (i % 4 < 2 ? -i : i), "after: " + a.read(i) + " at " + i);
        });
    }

    @Test
    void accessesTheScopeRefusesSayWhy() {
        run(2, 1, w -> {
            SharedDoubleArray a = w.node().createSharedDoubleArray("a", 32, 8);
            SharedDoubleArray b = w.node().createSharedDoubleArray("b", 32, 8);
            try (DsaScope scope = w.scope(ArrayUse.release(a))) {
                IllegalStateException own = assertThrows(IllegalStateException.class, () -> a.acquirePartition(0));
                check(own.getMessage().contains("array 'a' is release in the open scope: its writes are buffered at this node "
                        + "until the scope closes, so it cannot be owned (acquirePartition) nor accumulated into"), own.getMessage());
                IllegalStateException acc = assertThrows(IllegalStateException.class, () -> a.accumulate(3, 1.0, ReduceOp.SUM));
                check(acc.getMessage().contains("an accumulate would reach the home before the buffered writes"), acc.getMessage());
                assertThrows(IllegalStateException.class, () -> a.accumulate(0, 0, 1, 2, new double[2], ReduceOp.MAX));
                IllegalArgumentException nested = assertThrows(IllegalArgumentException.class, () -> w.scope(ArrayUse.readCache(a)));
                check(nested.getMessage().contains("'a' is release('a') in an enclosing scope; a nested scope cannot make it "
                        + "readCache('a')"), nested.getMessage());
                IllegalArgumentException local = assertThrows(IllegalArgumentException.class, () -> scope.local(a, 0));
                check(local.getMessage().contains("'a' is not owner-computes"), local.getMessage());
                // a read copy may be asked for: it is an ordinary shared copy
                int other = w.nodeId() == 0 ? 3 : 0;
                a.requestPartitionCopy(other).join();
                check(a.cacheState(other) == CacheState.SHARED, "copy of " + other + ": " + a.cacheState(other));
                // a nested scope over another array is fine, and b stays coherent meanwhile
                try (DsaScope inner = w.scope(ArrayUse.release(b))) {
                    b.write(w.nodeId(), 7.0);
                }
                check(b.read(1 - w.nodeId()) == 7.0, "b after the inner scope");
            }
            IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
                    () -> w.scope(ArrayUse.release(a), ArrayUse.ownerComputes(a)));
            check(twice.getMessage().contains("'a' appears twice in one scope: release('a') and ownerComputes('a')"), twice.getMessage());
            assertEquals("release('a')", ArrayUse.release(a).toString());
            assertTrue(a.acquirePartition(0).isDone() || a.acquirePartition(0).join() == null, "outside, ownership works again");
        });
    }
}
