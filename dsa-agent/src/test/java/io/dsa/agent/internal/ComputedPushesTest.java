package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.ArrayUse;
import io.dsa.DsaProgram;
import io.dsa.DsaScope;
import io.dsa.DsaWorker;
import io.dsa.SharedDoubleArray;
import io.dsa.agent.RunReport;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Owner computes in update mode ({@link ComputedPushes}, docs/consistency.md "Owner computes pushed
 * to its sharers"), with whole nodes on an {@link InMemoryNetwork} whose {@link FaultPlan} delays
 * releases, arrivals and coherence messages by seeded amounts. Three nodes of two threads; before
 * the rounds node 1 owns a partition homed at node 0 (node 0's opening recalls it), nodes 0 and 2
 * hold copies of other homes' partitions, and node 1 has a copy request on its way when the first
 * scope opens (a prefetch sent before it). Each round every node rewrites most elements of its home
 * partitions in an owner-computes scope (every fifth element, shifting by round, is left as it
 * was), and closes it plainly (odd rounds) or switches to a read cache (even rounds); every worker
 * then reads every element. Checked: every read sees the latest value; every node pushed; after
 * the first round no partition's bytes cross the network again (the copies are written, not
 * invalidated and fetched); and the seeded bugs {@link ComputedPushes.Fault#NOT_APPLIED} and
 * {@link ComputedPushes.Fault#NOT_PUSHED} are found. Each run prints its plan's seed;
 * {@code -Ddsa.test.seed=S} replays the faults.
 */
@Timeout(60)
class ComputedPushesTest {
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
        plan.on("BARRIER_RELEASE").probability(0.5).delay(4, 3);
        plan.on("BARRIER_ARRIVE").probability(0.3).delay(4, 3);
        plan.on("COHERENCE").probability(0.3).delay(6, 4);
        vm = InMemoryVm.tree(plan, NODES, THREADS);
        return plan;
    }

    /**
     * The rounds, checked by every worker against {@link PushedSwitchTest#expected} (the same
     * elements left out per round); {@code fetchedAfterFirst} fails a read of partition bytes after round 1.
     */
    static final class Rounds implements DsaProgram {
        final InMemoryVm vm;
        final boolean fetchedAfterFirst;

        Rounds(InMemoryVm vm, boolean fetchedAfterFirst) {
            this.vm = vm;
            this.fetchedAfterFirst = fetchedAfterFirst;
        }

        @Override
        public void work(DsaWorker w) {
            SharedDoubleArray v = w.node().createSharedDoubleArray("v", LENGTH, PARTITION);
            if (w.nodeId() == 1 && w.localThreadId() == 0) v.write(0, -1);                // node 1 owns partition 0, homed at node 0
            if (w.nodeId() == 2 && w.localThreadId() == 0) for (int i = 0; i < 80; i++) v.read(i);   // copies of partitions 0-3
            if (w.nodeId() == 0 && w.localThreadId() == 0) for (int i = 40; i < LENGTH; i++) v.read(i);   // and of 2-5
            w.barrier();
            if (w.nodeId() == 1 && w.localThreadId() == 1) v.requestPartitionCopy(5);     // on its way as the first scope opens
            ArrayCounters counters = vm.node(w.nodeId()).arrays.named("v").counters;
            long afterFirst = -1;
            for (int r = 1; r <= ROUNDS; r++) {
                DsaScope s = w.scope(ArrayUse.ownerComputes(v));
                int[] mine = v.layout().partitionsOfThread(w.threadId());
                for (int p : mine) {
                    double[] local = s.local(v, p);
                    int first = p * PARTITION;
                    for (int k = 0; k < local.length; k++) if (PushedSwitchTest.written(first + k, r)) local[k] = r * 1000 + first + k;
                }
                String where;
                if (r % 2 == 1) {
                    s.close();
                    where = "plainly after round " + r;
                } else {
                    s = s.next(ArrayUse.readCache(v));
                    where = "in round " + r + "'s read cache";
                }
                for (int i = 0; i < LENGTH; i++) check(v.read(i), i, r, w, where);
                if (r % 2 == 0) s.close();
                long in = counters.io(ArrayCounters.BYTES_IN);
                if (r == 1) afterFirst = in;
                else if (fetchedAfterFirst && in != afterFirst) {
                    throw new AssertionError("node " + w.nodeId() + " received " + (in - afterFirst) + " more partition bytes by round "
                            + r + ": its copies were lost and fetched again");
                }
                w.barrier();   // every worker's reads of this round counted before the next opens
            }
        }

        private static void check(double got, int i, int r, DsaWorker w, String where) {
            if (got != PushedSwitchTest.expected(i, r)) {
                throw new AssertionError("worker " + w.threadId() + " read " + got + " at element " + i + " " + where + ", expected "
                        + PushedSwitchTest.expected(i, r));
            }
        }
    }

    private List<CompletableFuture<RunReport>> run(boolean fetchedAfterFirst) {
        return Workers.start(0, NODES, k -> JobRunner.run(vm.node(k), new Rounds(vm, fetchedAfterFirst), List.of()));
    }

    @Test
    void everyReaderSeesTheLatestValuesAndTheCopiesStayValid() {
        FaultPlan plan = start();
        for (CompletableFuture<RunReport> r : run(true)) Workers.result(r, 40);
        for (int k = 0; k < NODES; k++) {
            NodeRuntime n = vm.node(k);
            assertTrue(n.scopes.computed.pushed.sum() >= ROUNDS - 1, plan.describe() + "\nnode " + k + " pushed its results: "
                    + n.scopes.computed.pushed.sum() + " partitions");
            assertTrue(n.scopes.computed.applied.sum() > 0, plan.describe() + "\nnode " + k + " wrote pushed results into its copies");
        }
        long fetched = vm.node(1).arrays.named("v").counters.io(ArrayCounters.BYTES_IN);
        assertTrue(fetched > 0, plan.describe() + "\nnode 1 fetched the copies it lacked in round 1");
        System.out.println("ComputedPushesTest: " + ROUNDS + " owner-computes rounds pushed to the sharers of " + NODES
                + " nodes, seed " + plan.seed);
    }

    @Test
    void theSeededBugOfPushesNotAppliedIsFound() {
        FaultPlan plan = start();
        for (NodeRuntime n : vm.nodes) n.scopes.computed.fault = ComputedPushes.Fault.NOT_APPLIED;
        Throwable t = Workers.failure(run(false).get(0));
        assertTrue(String.valueOf(t.getMessage()).contains("expected"), plan.describe() + "\n" + t);
    }

    @Test
    void theSeededBugOfResultsNotPushedIsFound() {
        FaultPlan plan = start();
        for (NodeRuntime n : vm.nodes) n.scopes.computed.fault = ComputedPushes.Fault.NOT_PUSHED;
        Throwable t = Workers.failure(run(false).get(0));
        assertTrue(String.valueOf(t.getMessage()).contains("expected"), plan.describe() + "\n" + t);
        assertEquals(0, vm.node(0).scopes.computed.pushed.sum(), plan.describe());
    }
}
