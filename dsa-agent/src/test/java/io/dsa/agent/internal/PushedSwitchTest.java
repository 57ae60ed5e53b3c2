package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.ArrayUse;
import io.dsa.DsaProgram;
import io.dsa.DsaScope;
import io.dsa.DsaWorker;
import io.dsa.SharedDoubleArray;
import io.dsa.agent.RunReport;
import io.dsa.agent.wire.BarrierReleaseMessage;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Scope switches from a release scope to a read cache of the same array that push the diffs in
 * their round (docs/consistency.md, "Diffs pushed in the switch"), with whole nodes on an
 * {@link InMemoryNetwork} whose {@link FaultPlan} delays releases, arrivals and coherence messages
 * by seeded amounts (so homes write the diffs before and after the readers' requests reach them).
 * Every worker of three nodes writes its share of every partition in each round, some elements are
 * left unwritten (the diffs are partial), and before the first round node 1 owns a partition homed
 * at node 0, node 2 holds copies of others, and one partition was never touched. Checked: every
 * worker reads every element's latest value in each read cache and, plainly, after the last; the
 * switches pushed; after the first round no partition's bytes cross the network again (the copies
 * stay valid instead of being invalidated and fetched); and the seeded bug
 * {@link PushedDiffs.Fault#COPIES_NOT_WRITTEN} is found. Each run prints its plan's seed;
 * {@code -Ddsa.test.seed=S} replays the faults.
 */
@Timeout(60)
class PushedSwitchTest {
    static final int NODES = 3;
    static final int THREADS = 2;
    static final int LENGTH = 120;
    static final int PARTITION = 20;
    static final int ROUNDS = 6;
    private InMemoryVm vm;

    @AfterEach
    void closeTheVm() {
        if (vm != null) vm.close();
    }

    private FaultPlan start() {
        FaultPlan plan = new FaultPlan(FaultPlan.seed());
        // node 2 homes partitions 4 and 5, which nodes 0 and 1 fetch in the first read cache: its releases of the
        // switches wait longest, so their requests mostly reach it before it has written the diffs (the patch's case)
        plan.on("BARRIER_RELEASE").to(2).where(m -> ((BarrierReleaseMessage) m).payload().length > 0).delay(1000, 40);
        plan.on("BARRIER_RELEASE").probability(0.5).delay(4, 3);
        plan.on("BARRIER_ARRIVE").probability(0.3).delay(4, 3);
        plan.on("COHERENCE").probability(0.2).delay(4, 2);
        vm = InMemoryVm.tree(plan, NODES, THREADS);
        return plan;
    }

    /** The value element {@code i} has after round {@code r} (0: before the first). */
    static double expected(int i, int r) {
        for (int k = r; k >= 1; k--) if (written(i, k)) return k * 1000 + i;
        return i == 0 ? -1 : 0;   // element 0 is node 1's plain write before the rounds; the rest start at zero
    }

    /** Whether round {@code r} writes element {@code i}: every fifth element, shifting by round, is left out. */
    static boolean written(int i, int r) { return (i + r) % 5 != 0; }

    /** The rounds, checked by every worker; node 0's thread 0 reports the bytes its array received by round. */
    static final class Rounds implements DsaProgram {
        @Override
        public void work(DsaWorker w) {
            SharedDoubleArray v = w.node().createSharedDoubleArray("v", LENGTH, PARTITION);
            int workers = w.node().network().getGlobalThreadCount();
            if (w.nodeId() == 1 && w.localThreadId() == 0) v.write(0, -1);            // node 1 owns partition 0, homed at node 0
            if (w.nodeId() == 2 && w.localThreadId() == 0) for (int i = 0; i < 80; i++) v.read(i);   // copies of partitions 0-3
            w.barrier();                                                               // partition 5 is never touched before
            DsaScope s = w.scope(ArrayUse.release(v));
            for (int r = 1; r <= ROUNDS; r++) {
                for (int i = w.threadId(); i < LENGTH; i += workers) if (written(i, r)) v.write(i, r * 1000 + i);
                s = s.next(ArrayUse.readCache(v));
                for (int i = 0; i < LENGTH; i++) check(v.read(i), i, r, w, "in round " + r + "'s read cache");
                s = r < ROUNDS ? s.next(ArrayUse.release(v)) : s;
            }
            s.close();
            for (int i = 0; i < LENGTH; i++) check(v.read(i), i, ROUNDS, w, "plainly after the scopes");
            w.barrier();
        }

        private static void check(double got, int i, int r, DsaWorker w, String where) {
            if (got != expected(i, r)) {
                throw new AssertionError("worker " + w.threadId() + " read " + got + " at element " + i + " " + where + ", expected "
                        + expected(i, r));
            }
        }
    }

    /** Runs {@link Rounds} on every node; @return each node's run */
    private List<CompletableFuture<RunReport>> run() {
        return Workers.start(0, NODES, k -> JobRunner.run(vm.node(k), new Rounds(), List.of()));
    }

    @Test
    void everyReaderSeesTheLatestValuesAndTheCopiesStayValid() {
        FaultPlan plan = start();
        List<CompletableFuture<RunReport>> runs = run();
        for (CompletableFuture<RunReport> r : runs) Workers.result(r, 40);
        for (int k = 0; k < NODES; k++) {
            NodeRuntime n = vm.node(k);
            assertEquals(ROUNDS, n.scopes.pushes.sum(), plan.describe() + "\nnode " + k + ": every switch to the read cache pushed");
        }
        System.out.println("PushedSwitchTest: " + ROUNDS + " pushed switches checked on " + NODES + " nodes, seed " + plan.seed);
    }

    @Test
    void onlyTheFirstReadCacheFetchesCopies() {
        FaultPlan plan = start();
        // a probe: every node's bytes received for "v" when each of its read caches opens, read by its workers' checks
        List<CompletableFuture<RunReport>> runs = Workers.start(0, NODES, k -> JobRunner.run(vm.node(k), new DsaProgram() {
            @Override
            public void work(DsaWorker w) {
                SharedDoubleArray v = w.node().createSharedDoubleArray("v", LENGTH, PARTITION);
                int workers = w.node().network().getGlobalThreadCount();
                ArrayCounters counters = vm.node(w.nodeId()).arrays.named("v").counters;
                long afterFirst = -1;
                DsaScope s = w.scope(ArrayUse.release(v));
                for (int r = 1; r <= ROUNDS; r++) {
                    for (int i = w.threadId(); i < LENGTH; i += workers) v.write(i, r * 1000 + i);
                    s = s.next(ArrayUse.readCache(v));
                    long in = counters.io(ArrayCounters.BYTES_IN);
                    if (r == 1) afterFirst = in;
                    else if (in != afterFirst) {
                        throw new AssertionError("node " + w.nodeId() + " received " + (in - afterFirst) + " more partition bytes by round "
                                + r + "'s read cache: its copies were lost and fetched again");
                    }
                    s = r < ROUNDS ? s.next(ArrayUse.release(v)) : s;
                }
                s.close();
            }
        }, List.of()));
        for (CompletableFuture<RunReport> r : runs) Workers.result(r, 40);
        long fetched = vm.node(1).arrays.named("v").counters.io(ArrayCounters.BYTES_IN);
        assertTrue(fetched > 0, plan.describe() + "\nthe first read cache fetched node 1's copies");
    }

    /**
     * Node 2, home of partitions 4 and 5, gets the first switch's release only after node 1, which
     * holds no copy of them, has fetched both from it: node 2 served them before it wrote the diffs.
     * @return node 1's run
     */
    private CompletableFuture<RunReport> runWithTheHomeBehind() {
        vm.network.holdFrom(0, 2, m -> m instanceof BarrierReleaseMessage r && r.payload().length > 0);
        List<CompletableFuture<RunReport>> runs = run();
        ArrayState[] v = new ArrayState[1];
        io.dsa.agent.Await.until("node 1's copies of partitions 4 and 5, served by node 2 before its release", 20_000, () -> {
            if (v[0] == null) v[0] = vm.node(1).arrays.named("v");
            return v[0] != null && v[0].slots[4].cacheState() == io.dsa.CacheState.SHARED
                    && v[0].slots[5].cacheState() == io.dsa.CacheState.SHARED;
        });
        // the release may still be in the fault plan's delay when the copies are there: it is held once sent
        io.dsa.agent.Await.until("node 2's release, held on its way", 20_000, () -> vm.network.held() > 0);
        vm.network.releaseHeld();
        return runs.get(1);
    }

    @Test
    void aCopyServedByAHomeBeforeItWroteTheDiffsIsPatched() {
        FaultPlan plan = start();
        Workers.result(runWithTheHomeBehind(), 40);
        System.out.println("PushedSwitchTest: node 1's copies served before node 2 wrote the diffs were patched, seed " + plan.seed);
    }

    @Test
    void theSeededBugOfAnUnpatchedInstallIsFound() {
        FaultPlan plan = start();
        for (NodeRuntime n : vm.nodes) n.scopes.pushFault = PushedDiffs.Fault.UNPATCHED_INSTALL;
        Throwable t = Workers.failure(runWithTheHomeBehind());
        assertTrue(String.valueOf(t.getMessage()).contains("in round 1's read cache, expected 1"), plan.describe() + "\n" + t);
    }

    @Test
    void theSeededBugOfCopiesLeftUnwrittenIsFound() {
        FaultPlan plan = start();
        for (NodeRuntime n : vm.nodes) n.scopes.pushFault = PushedDiffs.Fault.COPIES_NOT_WRITTEN;
        List<CompletableFuture<RunReport>> runs = run();
        Throwable t = Workers.failure(runs.get(0));
        assertTrue(String.valueOf(t.getMessage()).contains("expected"), plan.describe() + "\n" + t);
    }
}
