package io.dsa.agent;

import static io.dsa.agent.LocalRuns.check;
import static io.dsa.agent.LocalRuns.run;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.ArrayUse;
import io.dsa.CacheState;
import io.dsa.DsaException;
import io.dsa.DsaScope;
import io.dsa.ReduceOp;
import io.dsa.SharedDoubleArray;
import io.dsa.SharedLongArray;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Scope transitions ({@link DsaScope#next}: one scope closed and the next opened in one global
 * round, optionally carrying an all-reduce) and read caches of a region
 * ({@link ArrayUse#readCache(io.dsa.SharedArray, int, int, int, int)}), over real agents in this JVM.
 */
@Timeout(120)
class ScopeTransitionTest {

    /**
     * The largest array whose diffs a switch pushes (256 KiB: 32768 doubles in partitions of 1024)
     * over 2 nodes x 2 threads, every element written in each of two rounds: the release carries
     * more than a barrier lane's 64 KiB frame, so the round goes over the connections instead, and
     * every worker still reads every value in the read cache and plainly afterwards; and one array
     * of twice that size switched the same way, whose diffs go to the homes instead (not pushed).
     */
    @Test
    void aPushedSwitchLargerThanALaneFrameAndAnArrayTooLargeToPushBothSeeEveryWrite() {
        run(2, 2, w -> {
            for (int length : new int[] {32768, 65536}) {
                SharedDoubleArray a = w.node().createSharedDoubleArray("big" + length, length, 1024);
                DsaScope scope = w.scope(ArrayUse.release(a));
                for (int round = 1; round <= 2; round++) {
                    for (int i = w.threadId(); i < length; i += 4) a.write(i, round * 100_000 + i);
                    scope = scope.next(ArrayUse.readCache(a));
                    for (int i = 0; i < length; i += 7) {
                        check(a.read(i) == round * 100_000 + i, "length " + length + " round " + round + ": " + a.read(i) + " at " + i);
                    }
                    if (round < 2) scope = scope.next(ArrayUse.release(a));
                }
                scope.close();
                for (int i = 0; i < length; i += 5) check(a.read(i) == 200_000 + i, "length " + length + " after: " + a.read(i) + " at " + i);
                w.barrier();
            }
        });
    }

    /**
     * 64 doubles in partitions of 8 over 2 nodes x 2 threads, three rounds of: a release scope in
     * which thread {@code i % 4} writes element {@code i} (every partition written by every
     * node), then {@code next} to a read cache carrying a sum; the read cache sees every write,
     * every partition is valid at entry, the sum is reduced, and the transition is one round.
     */
    @Test
    void nextFromReleaseToReadCacheAppliesTheDiffsInOneRoundWithTheReduction() {
        run(2, 2, w -> {
            SharedDoubleArray p = w.node().createSharedDoubleArray("p", 64, 8);
            DsaScope scope = w.scope(ArrayUse.release(p));
            for (int round = 1; round <= 3; round++) {
                for (int i = w.threadId(); i < 64; i += 4) p.write(i, round * 1000 + i);
                double[] sum = {w.threadId() + 1, round};
                long before = w.epoch();
                scope = scope.next(sum, ReduceOp.SUM, ArrayUse.readCache(p));
                check(w.epoch() == before + 1, "a transition took " + (w.epoch() - before) + " rounds, expected 1");
                check(sum[0] == 10 && sum[1] == 4 * round, "reduced " + Arrays.toString(sum));
                for (int part = 0; part < 8; part++) {
                    check(p.cacheState(part) != CacheState.INVALID, "node " + w.nodeId() + " has no copy of " + part + " in the read cache");
                }
                for (int i = 0; i < 64; i++) {
                    check(p.read(i) == round * 1000 + i, "node " + w.nodeId() + " round " + round + " reads " + p.read(i) + " at " + i);
                }
                IllegalStateException write = assertThrows(IllegalStateException.class, () -> p.write(0, 1.0));
                check(write.getMessage().contains("read-cache"), write.getMessage());
                before = w.epoch();
                scope = scope.next(ArrayUse.release(p));
                check(w.epoch() == before + 1, "a transition took " + (w.epoch() - before) + " rounds, expected 1");
            }
            scope.close();
            // outside every scope: coherent as usual
            if (w.threadId() == 3) p.write(5, -1.0);
            w.barrier();
            check(p.read(5) == -1.0 && p.read(6) == 3006, "node " + w.nodeId() + " reads " + p.read(5) + ", " + p.read(6));
        });
    }

    /**
     * Owner computes, then {@code next} to a read cache of the same array: the plain arrays are
     * written back before any node's read cache is filled (every node reads the kernel's values).
     */
    @Test
    void nextFromOwnerComputesToReadCacheWritesThePlainArraysBackFirst() {
        run(3, 1, w -> {
            SharedLongArray a = w.node().createSharedLongArray("a", 90, 10);
            DsaScope scope = w.scope(ArrayUse.ownerComputes(a));
            for (int round = 1; round <= 3; round++) {
                for (int part : a.layout().partitionsOfThread(w.threadId())) {
                    long[] local = scope.local(a, part);
                    for (int k = 0; k < local.length; k++) local[k] = round * 100L + part * 10 + k;
                }
                scope = scope.next(ArrayUse.readCache(a));
                for (int i = 0; i < 90; i++) check(a.read(i) == round * 100L + i, "round " + round + " reads " + a.read(i) + " at " + i);
                scope = scope.next(ArrayUse.ownerComputes(a));
            }
            scope.close();
        });
    }

    /** What {@code next} refuses: as opening and closing do, leaving the scope open and usable. */
    @Test
    void nextRefusesWhatOpeningAndClosingRefuse() {
        run(2, 1, w -> {
            SharedDoubleArray a = w.node().createSharedDoubleArray("a", 16, 8);
            SharedDoubleArray b = w.node().createSharedDoubleArray("b", 16, 8);
            DsaScope outer = w.scope(ArrayUse.readCache(a));
            DsaScope inner = w.scope(ArrayUse.readCache(b));
            IllegalStateException notInnermost = assertThrows(IllegalStateException.class, () -> outer.next(ArrayUse.release(a)));
            check(notInnermost.getMessage().contains("close the inner one first"), notInnermost.getMessage());
            IllegalArgumentException enclosing = assertThrows(IllegalArgumentException.class, () -> inner.next(ArrayUse.release(a)));
            check(enclosing.getMessage().contains("'a' is readCache('a') in an enclosing scope"), enclosing.getMessage());
            DsaException bitwise = assertThrows(DsaException.class, () -> inner.next(new double[] {1}, ReduceOp.XOR, ArrayUse.release(b)));
            check(bitwise.getMessage().contains("XOR"), bitwise.getMessage());
            // the refused calls left the inner scope open: it still reads, and moves on as usual
            check(b.read(3) == 0.0, "inner scope still open");
            DsaScope next = inner.next(ArrayUse.release(b));
            IllegalStateException closed = assertThrows(IllegalStateException.class, () -> inner.next(ArrayUse.readCache(b)));
            check(closed.getMessage().contains("is closed"), closed.getMessage());
            next.close();
            outer.close();
        });
    }

    /**
     * 80 longs in partitions of 10 over 2 nodes x 2 threads (even partitions homed at node 0);
     * each worker names a region inside one partition homed at the other node. At entry a node has a copy of exactly the partitions
     * of its two workers' regions besides its homes; a read outside them is a plain coherent read
     * (fetches that partition); a write anywhere is refused.
     */
    @Test
    void readCacheOfARegionBringsInTheRegionsOfTheNodesWorkersOnly() {
        run(2, 2, w -> {
            SharedLongArray b = w.node().createSharedLongArray("b", 80, 10);
            for (int part : b.layout().partitionsOfThread(w.threadId())) for (int k = 0; k < 10; k++) b.write(part * 10 + k, part * 10L + k);
            w.barrier();
            int[] regionIn = {1, 5, 2, 6}; // partitions homed at the other node
            int mine = regionIn[w.threadId()];
            int sibling = regionIn[w.threadId() ^ 1];
            try (DsaScope scope = w.scope(ArrayUse.readCache(b, 0, mine * 10 + 2, 1, 5))) {
                for (int part = 0; part < 8; part++) {
                    if (b.layout().homeOf(part) == w.nodeId()) continue;
                    boolean fetched = part == mine || part == sibling;
                    check((b.cacheState(part) != CacheState.INVALID) == fetched, "node " + w.nodeId() + " partition " + part
                            + " is " + b.cacheState(part) + " at entry; regions of its workers are in " + mine + " and " + sibling);
                }
                w.node().localBarrier().await(); // both workers have looked before either reads outside the regions
                for (int i = 0; i < 80; i++) check(b.read(i) == i, "node " + w.nodeId() + " reads " + b.read(i) + " at " + i);
                for (int part = 0; part < 8; part++) check(b.cacheState(part) != CacheState.INVALID, "read " + part + " but no copy");
                IllegalStateException write = assertThrows(IllegalStateException.class, () -> b.write(mine * 10 + 9, 1L));
                check(write.getMessage().contains("'b' is read-cache in the open scope"), write.getMessage());
            }
        });
    }

    @Test
    void aRegionOutsideTheArrayIsRefusedNamingTheShape() {
        run(1, 1, w -> {
            SharedDoubleArray g = w.node().createSharedDoubleArray("g", 6, 5, 10);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ArrayUse.readCache(g, 4, 0, 3, 5));
            check(e.getMessage().contains("region of 3x5 elements at (4, 0) is not a non-empty region inside array 'g' of 6x5"),
                    e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> ArrayUse.readCache(g, 0, 0, 0, 5));
            check(ArrayUse.readCache(g, 4, 1, 2, 3).toString().equals("readCache('g', 4, 1, 2, 3)"), "toString");
        });
    }

    @Test
    void workersThatNameDifferentNextScopesFailTheJob() {
        DsaException e = assertThrows(DsaException.class, () -> run(2, 1, w -> {
            SharedDoubleArray a = w.node().createSharedDoubleArray("a", 16, 8);
            DsaScope s = w.scope(ArrayUse.release(a));
            s = s.next(w.nodeId() == 0 ? ArrayUse.readCache(a) : ArrayUse.ownerComputes(a));
            s.close();
        }));
        assertTrue(e.getMessage().contains("workers opened different scopes"), e.getMessage());
    }
}
