package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ReduceOp;
import io.dsa.SharedDoubleArray;
import io.dsa.agent.Await;
import io.dsa.agent.BarrierKind;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.ProxyMode;
import io.dsa.agent.RunReport;
import io.dsa.agent.wire.BarrierArriveMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Whole nodes on an {@link InMemoryNetwork} with a {@link FaultPlan}: a node cut off from the others
 * without a reset, in the middle of a global barrier or of a collective, is found by the failure
 * detector's rules (heartbeats, the read deadline) and fails the job on every node, naming it;
 * nothing hangs. Each test prints its plan's seed; {@code -Ddsa.test.seed=S} replays it.
 */
@Timeout(60)
class NetworkFaultTest {
    static final int NODES = 4;
    static final long FAILURE_TIMEOUT_MS = 400;
    private InMemoryVm vm;
    private List<NodeRuntime> nodes;
    private InMemoryNetwork network;

    @AfterEach
    void close() {
        if (vm != null) vm.close();
    }

    /** Node 0, then the others joining it, on a network that applies {@code plan}, with the failure timeout {@link #FAILURE_TIMEOUT_MS}. */
    void start(FaultPlan plan, int threads) { start(plan, threads, FAILURE_TIMEOUT_MS); }

    void start(FaultPlan plan, int threads, long failureTimeoutMs) {
        vm = new InMemoryVm(new InMemoryNetwork(plan), DsaConfig.builder().nodes(NODES).threadsPerNode(threads)
                .barrier(BarrierKind.TREE).barrierFanout(2).proxy(ProxyMode.FLOAT).randomSecret().startupTimeoutMs(20_000)
                .failureTimeoutMs(failureTimeoutMs).build());
        nodes = vm.nodes;
        network = vm.network;
    }

    /**
     * Rounds of: write this thread's element, a global barrier, read the neighbour's element, and a
     * sum over every thread (a collective), checked; thread 0 reports the rounds done.
     */
    static final class Rounds implements DsaProgram {
        final int rounds;

        /** @param rounds how many; the cut tests take far more than they let it run */
        Rounds(int rounds) { this.rounds = rounds; }

        @Override
        public void work(DsaWorker w) {
            int threads = w.node().network().getGlobalThreadCount();
            SharedDoubleArray a = w.node().createSharedDoubleArray("rounds", threads, 1);
            int me = w.threadId();
            for (int t = 0; t < rounds; t++) {
                a.write(me, t);
                w.barrier();
                double sum = w.allReduce(a.read((me + 1) % threads), ReduceOp.SUM);
                if (sum != (double) t * threads) throw new IllegalStateException("round " + t + ": sum " + sum);
            }
            if (me == 0) w.node().report("rounds " + rounds);
        }
    }

    /** A barrier arrival carrying no values: a plain global barrier's. */
    static boolean plainArrival(Object m) { return m instanceof BarrierArriveMessage b && b.values().length == 0; }

    /** A barrier arrival carrying values: a collective's. */
    static boolean collectiveArrival(Object m) { return m instanceof BarrierArriveMessage b && b.values().length > 0; }

    @ParameterizedTest(name = "node {0}")
    @ValueSource(ints = {0, 2})
    void aNodeCutOffDuringAGlobalBarrierFailsTheJobOnEveryNodeNamingIt(int cutNode) {
        cutOffAndExpectTheJobToFail(cutNode, "a global barrier", NetworkFaultTest::plainArrival);
    }

    @ParameterizedTest(name = "node {0}")
    @ValueSource(ints = {0, 3})
    void aNodeCutOffDuringACollectiveFailsTheJobOnEveryNodeNamingIt(int cutNode) {
        cutOffAndExpectTheJobToFail(cutNode, "a collective", NetworkFaultTest::collectiveArrival);
    }

    /**
     * Isolates {@code cutNode} when it sends (node 0: receives) its arrival at a seeded round's
     * barrier of the kind {@code where} accepts; then every node's run must fail within a few
     * failure timeouts, the others' naming the cut node and the silence, the cut node's naming
     * whom it lost.
     */
    private void cutOffAndExpectTheJobToFail(int cutNode, String during, Predicate<Object> where) {
        FaultPlan plan = new FaultPlan(FaultPlan.seed());
        int round = 3 + (int) Math.floorMod(plan.seed, 20L);
        // node 0 is every global barrier's root: it is cut when an arrival reaches it
        FaultPlan.Rule cut = (cutNode == 0 ? plan.on("BARRIER_ARRIVE").to(0) : plan.on("BARRIER_ARRIVE").from(cutNode))
                .where(where).skip(round).times(1).thenIsolate(cutNode);
        start(plan, 2);
        List<CompletableFuture<RunReport>> runs = Workers.start(0, NODES, i -> JobRunner.run(nodes.get(i), new Rounds(1_000_000), List.of()));
        List<AtomicLong> endedNs = new ArrayList<>();
        for (CompletableFuture<RunReport> r : runs) {
            AtomicLong at = new AtomicLong();
            endedNs.add(at);
            r.whenComplete((x, e) -> at.set(System.nanoTime()));
        }
        List<String> failures = new ArrayList<>();
        for (int k = 0; k < NODES; k++) {
            Throwable t = Workers.failure(runs.get(k));
            assertTrue(t instanceof DsaException, plan.describe() + "\nnode " + k + ": " + t);
            failures.add(t.getMessage());
        }
        long cutNs = cut.firstFiredNs();
        assertTrue(cutNs > 0, plan.describe() + "\nthe job failed before the cut: " + failures);
        String lost = cutNode == 0 ? "lost the monitor (node 0 at " : "lost node " + cutNode + " at ";
        String silence = "nothing heard from node " + cutNode + " at ";
        for (int k = 0; k < NODES; k++) {
            String f = failures.get(k);
            if (k == cutNode) {
                assertTrue(f.contains("lost ") && f.contains("nothing heard from node "), plan.describe() + "\nnode " + k + ": " + f);
            } else {
                assertTrue(f.contains(lost) && f.contains(silence), plan.describe() + "\nnode " + k + ": " + f);
            }
            long afterMs = TimeUnit.NANOSECONDS.toMillis(endedNs.get(k).get() - cutNs);
            // the bound's order, not a timing: a few timeouts from the cut to every node's end
            assertTrue(afterMs < 5 * FAILURE_TIMEOUT_MS, plan.describe() + "\nnode " + k + " ended " + afterMs + " ms after the cut");
        }
        int observer = cutNode == 0 ? 1 : 0;
        System.out.println("NetworkFaultTest: node " + cutNode + " cut off during " + during + " (round " + round + "), node "
                + observer + " failed after " + TimeUnit.NANOSECONDS.toMillis(endedNs.get(observer).get() - cutNs) + " ms (failure timeout "
                + FAILURE_TIMEOUT_MS + " ms): " + failures.get(observer));
    }

    /**
     * Every frame from node 1 to node 0 lost, heartbeats included, while node 1 still hears node 0
     * (a one-way loss): node 0's detector finds node 1 silent and the job fails on every node, node
     * 0 naming node 1 and the silence.
     */
    @Test
    void aOneWayLossIsFoundByTheNodeThatHearsNothing() {
        FaultPlan plan = new FaultPlan(FaultPlan.seed());
        FaultPlan.Rule loss = plan.on().from(1).to(0).skip(50 + (int) Math.floorMod(plan.seed, 100L)).drop();
        start(plan, 2);
        List<CompletableFuture<RunReport>> runs = Workers.start(0, NODES, i -> JobRunner.run(nodes.get(i), new Rounds(1_000_000), List.of()));
        for (int k = 0; k < NODES; k++) {
            Throwable t = Workers.failure(runs.get(k));
            assertTrue(t instanceof DsaException, plan.describe() + "\nnode " + k + ": " + t);
            if (k == 0) {
                assertTrue(t.getMessage().contains("lost node 1 at ") && t.getMessage().contains("nothing heard from node 1 at "),
                        plan.describe() + "\nnode 0: " + t.getMessage());
            }
        }
        assertTrue(loss.fired() > 0, plan.describe());
    }

    /**
     * A cut healed before the failure timeout loses nothing, as TCP across a short outage: node 2 is
     * isolated at a barrier arrival, its frames wait (at least one does) and arrive at the heal,
     * and the job ends with every round's collective checked.
     */
    @Test
    void aCutHealedWithinTheFailureTimeoutLosesNothing() {
        FaultPlan plan = new FaultPlan(FaultPlan.seed());
        FaultPlan.Rule cut = plan.on("BARRIER_ARRIVE").from(2).skip(3 + (int) Math.floorMod(plan.seed, 20L)).times(1).thenIsolate(2);
        start(plan, 2, 10_000);   // a heal long before the detector would speak
        List<CompletableFuture<RunReport>> runs = Workers.start(0, NODES, i -> JobRunner.run(nodes.get(i), new Rounds(60), List.of()));
        Await.until("the cut, and a frame waiting for its heal", 20_000, () -> cut.fired() == 1 && network.waitingForHeal() > 0);
        plan.rejoin(2);
        assertEquals(List.of("node 0: rounds 60"), Workers.result(runs.get(0), 30).lines(), plan.describe());
        for (CompletableFuture<RunReport> r : runs) Workers.result(r, 30);
    }

    /**
     * Idle connections stay up: while the workers wait in a barrier for thread 0, which waits until
     * every connection end sent heartbeats for more than a failure timeout, nothing is taken for lost.
     */
    @Test
    void anIdleJobIsNotTakenForLost() {
        FaultPlan plan = new FaultPlan(FaultPlan.seed());
        start(plan, 1);
        int ends = NODES * (NODES - 1);
        // an end sends one per interval (a third of the timeout) when idle: 4 each is more than a timeout of silence
        long heartbeats = network.heartbeats() + 4L * ends;
        List<CompletableFuture<RunReport>> runs = Workers.start(0, NODES, i -> JobRunner.run(nodes.get(i), new DsaProgram() {
            @Override
            public void work(DsaWorker w) {
                w.barrier();
                if (w.threadId() == 0) Await.until("heartbeats on every connection", 20_000, () -> network.heartbeats() >= heartbeats);
                w.barrier();
                if (w.threadId() == 0) w.node().report("done");
            }
        }, List.of()));
        assertEquals(List.of("node 0: done"), Workers.result(runs.get(0), 30).lines(), plan.describe());
        for (CompletableFuture<RunReport> r : runs) Workers.result(r, 30);
    }
}
