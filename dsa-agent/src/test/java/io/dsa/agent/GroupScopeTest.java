package io.dsa.agent;

import static io.dsa.agent.LocalRuns.check;
import static io.dsa.agent.LocalRuns.run;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.dsa.ArrayUse;
import io.dsa.CacheState;
import io.dsa.DsaScope;
import io.dsa.ReduceOp;
import io.dsa.SharedDoubleArray;
import io.dsa.SharedLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Group scopes ({@link io.dsa.DsaWorker#groupScope}): scopes whose opening and closing synchronise
 * only the workers of some nodes, over real agents in this JVM.
 */
@Timeout(120)
class GroupScopeTest {

    /**
     * 3 nodes x 2 threads; nodes 1 and 2 run three rounds of a release scope switched to a read
     * cache ({@code next}) over {@code a}, every partition written by both nodes (including the
     * one homed at node 0); node 0 never opens a group scope and waits meanwhile in a group
     * barrier of its own workers only, so any global round in the group's scopes would hang
     * (the test's timeout). After a global barrier every node reads the group's last writes.
     */
    @Test
    void aGroupScopeSynchronisesOnlyItsNodesWorkers() {
        run(3, 2, w -> {
            SharedDoubleArray a = w.node().createSharedDoubleArray("a", 48, 8); // partitions 0 and 1 homed at node 0
            int[] group = {1, 2};
            if (w.nodeId() > 0) {
                int member = w.threadId() - 2; // 0..3 over the group's four workers
                DsaScope scope = w.groupScope(group, ArrayUse.release(a));
                for (int round = 1; round <= 3; round++) {
                    for (int i = member; i < 48; i += 4) a.write(i, round * 100 + i);
                    scope = scope.next(ArrayUse.readCache(a));
                    for (int p = 0; p < 6; p++) check(a.cacheState(p) != CacheState.INVALID, "node " + w.nodeId() + " partition " + p);
                    for (int i = 0; i < 48; i++) check(a.read(i) == round * 100 + i, "node " + w.nodeId() + " round " + round + " reads " + a.read(i));
                    scope = scope.next(ArrayUse.release(a));
                }
                scope.close();
            } else {
                w.node().createBarrier("node 0 alone", 2).await();
            }
            w.barrier();
            for (int i = 0; i < 48; i++) check(a.read(i) == 300 + i, "node " + w.nodeId() + " reads " + a.read(i) + " at " + i + " after");
        });
    }

    /** Owner computes in a group of one node, while the other node works on another array. */
    @Test
    void ownerComputesInAGroupOfOneNode() {
        run(2, 1, w -> {
            SharedLongArray b = w.node().createSharedLongArray("b", 32, 8);
            SharedLongArray c = w.node().createSharedLongArray("c", 32, 8);
            if (w.nodeId() == 1) {
                try (DsaScope scope = w.groupScope(new int[] {1}, ArrayUse.ownerComputes(b))) {
                    for (int p : new int[] {2, 3}) { // node 1's home partitions
                        long[] local = scope.local(b, p);
                        for (int k = 0; k < 8; k++) local[k] = p * 8 + k;
                    }
                }
            } else {
                for (int i = 0; i < 32; i++) c.write(i, -i);
            }
            w.barrier();
            for (int p : new int[] {2, 3}) for (int k = 0; k < 8; k++) check(b.read(p * 8 + k) == p * 8 + k, "b[" + (p * 8 + k) + "]");
            check(c.read(31) == -31, "c");
        });
    }

    @Test
    void whatAGroupScopeRefuses() {
        run(2, 1, w -> {
            SharedDoubleArray a = w.node().createSharedDoubleArray("a", 16, 8);
            IllegalArgumentException notMine = assertThrows(IllegalArgumentException.class,
                    () -> w.groupScope(new int[] {1 - w.nodeId()}, ArrayUse.release(a)));
            check(notMine.getMessage().contains("do not include this worker's node " + w.nodeId()), notMine.getMessage());
            IllegalArgumentException order = assertThrows(IllegalArgumentException.class, () -> w.groupScope(new int[] {1, 0}, ArrayUse.release(a)));
            check(order.getMessage().contains("ascending, distinct and in [0, 2)"), order.getMessage());
            assertThrows(IllegalArgumentException.class, () -> w.groupScope(new int[] {0, 2}, ArrayUse.release(a)));
            DsaScope scope = w.groupScope(new int[] {w.nodeId()}, ArrayUse.release(a));
            IllegalStateException barrier = assertThrows(IllegalStateException.class, w::barrier);
            check(barrier.getMessage().contains("a global barrier inside a group scope"), barrier.getMessage());
            assertThrows(IllegalStateException.class, () -> w.allReduce(1.0, ReduceOp.SUM));
            assertThrows(IllegalStateException.class, () -> w.scope(ArrayUse.readCache(w.node().createSharedDoubleArray("b", 16, 8))));
            IllegalArgumentException reduce = assertThrows(IllegalArgumentException.class,
                    () -> scope.next(new double[] {1}, ReduceOp.SUM, ArrayUse.readCache(a)));
            check(reduce.getMessage().contains("cannot carry a reduction"), reduce.getMessage());
            scope.close();
            w.barrier(); // global rounds again once the group scope is closed
        });
    }
}
