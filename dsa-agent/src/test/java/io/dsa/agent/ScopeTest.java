package io.dsa.agent;

import static io.dsa.agent.LocalRuns.check;
import static io.dsa.agent.LocalRuns.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.ArrayUse;
import io.dsa.CacheState;
import io.dsa.DsaException;
import io.dsa.DsaScope;
import io.dsa.ReduceOp;
import io.dsa.SharedDoubleArray;
import io.dsa.SharedIntArray;
import io.dsa.SharedLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Scopes (issue 13): owner computes and read cache over real agents in this JVM, and the errors they give. */
@Timeout(120)
class ScopeTest {


    /**
     * 64 doubles in partitions of 8 over 2 nodes x 2 threads. Before the scope every element is
     * written through the array and node 1 caches node 0's partitions; inside it, each worker
     * updates its own partitions in the plain arrays; after it, every node reads the new values.
     */
    @Test
    void ownerComputesHandsOutTheHomePartitionsAndWritesThemBack() {
        run(2, 2, w -> {
            SharedDoubleArray a = w.node().createSharedDoubleArray("a", 64, 8);
            int[] mine = a.layout().partitionsOfThread(w.threadId());
            for (int p : mine) for (int k = 0; k < 8; k++) a.write(p * 8 + k, p * 8 + k);
            w.barrier();
            if (w.nodeId() == 1) for (int i = 0; i < 32; i++) check(a.read(i) == i, "cached copy of " + i);
            for (int round = 1; round <= 3; round++) {
                try (DsaScope scope = w.scope(ArrayUse.ownerComputes(a))) {
                    for (int p : mine) {
                        double[] local = scope.local(a, p);
                        assertEquals(8, local.length);
                        for (int k = 0; k < 8; k++) {
                            double before = round == 1 ? p * 8 + k : 0; // checked below for round 1 only
                            if (round == 1) check(local[k] == before, "partition " + p + " element " + k + " = " + local[k]);
                            local[k] = local[k] * 2 + 1;
                        }
                    }
                }
                for (int i = 0; i < 64; i++) {
                    double expect = i;
                    for (int r = 0; r < round; r++) expect = expect * 2 + 1;
                    check(a.read(i) == expect, "node " + w.nodeId() + " round " + round + " reads " + a.read(i) + " at " + i
                            + ", expected " + expect);
                }
                w.barrier(); // the reads above are done before the next scope takes the partitions back
            }
        });
    }

    /** Entering a read cache brings every partition to every node before any read: they are all valid at once. */
    @Test
    void readCacheBringsEveryPartitionToEveryNodeAtEntry() {
        run(3, 1, w -> {
            SharedLongArray b = w.node().createSharedLongArray("b", 90, 10);
            for (int p : b.layout().partitionsOfThread(w.threadId())) for (int k = 0; k < 10; k++) b.write(p * 10 + k, 7L * (p * 10 + k));
            w.barrier();
            try (DsaScope scope = w.scope(ArrayUse.readCache(b))) {
                for (int p = 0; p < 9; p++) {
                    CacheState s = b.cacheState(p);
                    check(s != CacheState.INVALID, "node " + w.nodeId() + " has no copy of partition " + p + " inside the read cache");
                }
                long sum = 0;
                for (int i = 0; i < 90; i++) sum += b.read(i);
                check(sum == 7L * 89 * 90 / 2, "sum " + sum);
                IllegalStateException write = assertThrows(IllegalStateException.class, () -> b.write(3, 1L));
                check(write.getMessage().contains("'b' is read-cache in the open scope"), write.getMessage());
                assertThrows(IllegalStateException.class, () -> b.accumulate(3, 1L, ReduceOp.SUM));
                assertThrows(IllegalStateException.class, () -> b.acquirePartition(0));
            }
            // outside the scope it is an ordinary coherent array again
            if (w.nodeId() == 2) b.write(0, -1L);
            w.barrier();
            check(b.read(0) == -1L, "node " + w.nodeId() + " reads " + b.read(0));
        });
    }

    @Test
    void accessesAScopeForbidsFailWithWhatToDoInstead() {
        run(2, 1, w -> {
            SharedIntArray q = w.node().createSharedIntArray("q", 32, 8); // partitions 0-1 at node 0, 2-3 at node 1
            SharedIntArray r = w.node().createSharedIntArray("r", 32, 8);
            try (DsaScope scope = w.scope(ArrayUse.ownerComputes(q), ArrayUse.readCache(r))) {
                IllegalStateException read = assertThrows(IllegalStateException.class, () -> q.read(w.nodeId() * 16));
                check(read.getMessage().contains("'q' is owner-computes in the open scope: use scope.local"), read.getMessage());
                assertThrows(IllegalStateException.class, () -> q.write(0, 1));
                assertThrows(IllegalStateException.class, () -> q.readPartition(1, new int[8]));
                assertThrows(IllegalStateException.class, () -> q.requestPartitionCopy(3));
                int other = w.nodeId() == 0 ? 2 : 0;
                IllegalArgumentException elsewhere = assertThrows(IllegalArgumentException.class, () -> scope.local(q, other));
                check(elsewhere.getMessage().contains("is homed at node " + (1 - w.nodeId()) + "; node " + w.nodeId()
                        + " computes on its partitions [" + (w.nodeId() * 2) + ", " + (w.nodeId() * 2 + 1) + "]"), elsewhere.getMessage());
                IllegalArgumentException notOwner = assertThrows(IllegalArgumentException.class, () -> scope.local(r, other));
                check(notOwner.getMessage().contains("'r' is not owner-computes"), notOwner.getMessage());
                IllegalArgumentException nested = assertThrows(IllegalArgumentException.class, () -> w.scope(ArrayUse.readCache(q)));
                check(nested.getMessage().contains("'q' is ownerComputes('q') in an enclosing scope; a nested scope cannot make it "
                        + "readCache('q')"), nested.getMessage());
                assertSame(scope.local(q, w.nodeId() * 2), scope.local(q, w.nodeId() * 2), "one plain array per partition");
            }
            IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
                    () -> w.scope(ArrayUse.readCache(q), ArrayUse.ownerComputes(q)));
            check(twice.getMessage().contains("'q' appears twice in one scope: readCache('q') and ownerComputes('q')"), twice.getMessage());
            // nested scopes over different arrays, closed inner first; closing the outer first is refused
            DsaScope outer = w.scope(ArrayUse.readCache(q));
            DsaScope inner = w.scope(ArrayUse.readCache(r));
            IllegalStateException order = assertThrows(IllegalStateException.class, outer::close);
            check(order.getMessage().contains("close the inner one first"), order.getMessage());
            inner.close();
            outer.close();
            outer.close(); // idempotent
        });
    }

    @Test
    void workersThatOpenDifferentScopesFailTheJobNamingBoth() {
        DsaException e = assertThrows(DsaException.class, () -> run(2, 1, w -> {
            SharedDoubleArray a = w.node().createSharedDoubleArray("a", 16, 8);
            try (DsaScope scope = w.scope(w.nodeId() == 0 ? ArrayUse.readCache(a) : ArrayUse.ownerComputes(a))) {
                check(scope != null, "opened");
            }
        }));
        assertTrue(e.getMessage().contains("workers opened different scopes"), e.getMessage());
    }
}
