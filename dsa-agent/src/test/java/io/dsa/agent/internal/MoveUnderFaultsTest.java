package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.CacheState;
import io.dsa.DsaException;
import io.dsa.SharedArray;
import io.dsa.agent.AgentState;
import io.dsa.agent.BarrierKind;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.ProxyMode;
import io.dsa.agent.RunReport;
import io.dsa.agent.mobility.Choreography;
import io.dsa.agent.mobility.MoveChoreography;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A real move of node 2 (the choreography of {@code io.dsa.agent.mobility}, over a port whose steps
 * are the runtime's, as {@code LocalMove}'s are) on the in-memory network while its {@link FaultPlan}
 * drops or delays what the move sends: the new agent's handshakes, and the first barrier release it
 * gets. What docs/runtime.md ("Failure semantics") promises: a failure before the commit leaves the
 * source serving and the job ends with the result of a run without the move; one after the commit
 * is the loss of node 2, reported naming it; a partition is never exclusive at two nodes. The
 * faults are chosen, not drawn: each plan prints its seed, which draws nothing here.
 */
@Timeout(60)
class MoveUnderFaultsTest {
    static final int NODES = 3;
    /** The moved node. */
    static final int MOVED = 2;
    /** The move happens at the barrier whose release brings the workers to this epoch (of {@link InMemoryClusterTest.Relax}'s 21). */
    static final long EPOCH = 8;

    final List<NodeRuntime> nodes = new ArrayList<>();
    InMemoryNetwork network;

    @AfterEach
    void close() {
        for (NodeRuntime n : nodes) n.close();
        if (network != null) network.close();
    }

    static DsaConfig config() {
        return DsaConfig.builder().nodes(NODES).threadsPerNode(2).barrier(BarrierKind.TREE).proxy(ProxyMode.FLOAT).randomSecret()
                .startupTimeoutMs(5_000).failureTimeoutMs(400).build();
    }

    /** Starts the VM on a network that applies {@code plan} (node 0 first, as {@code DsaCluster.local}). */
    void start(DsaConfig base, FaultPlan plan) {
        network = new InMemoryNetwork(plan);
        NodeRuntime monitor = NodeRuntime.start(base, network);
        nodes.add(monitor);
        for (int k = 1; k < NODES; k++) nodes.add(NodeRuntime.start(base.toBuilder().nodeId(k).monitorAddress(monitor.address()).build(), network));
    }

    List<CompletableFuture<RunReport>> run() {
        return Workers.start(0, NODES, i -> JobRunner.run(nodes.get(i), new InMemoryClusterTest.Relax(), List.of()));
    }

    /** The result of a run without a move or a fault (its own VM, closed after). */
    List<String> baseline() {
        DsaConfig base = config();
        start(base, new FaultPlan(1));
        List<CompletableFuture<RunReport>> runs = run();
        List<String> lines = Workers.result(runs.get(0), 30).lines();
        for (CompletableFuture<RunReport> r : runs) Workers.result(r, 30);
        close();
        nodes.clear();
        return lines;
    }

    /** Node 2's move as {@code LocalMove} makes it, over the runtimes of this VM. */
    final class MemoryMove implements MoveChoreography.Port {
        final DsaConfig base;
        final CompletableFuture<Long> safePoint;
        final List<CompletableFuture<RunReport>> runs;
        final List<CompletableFuture<?>> expected = new ArrayList<>();
        /** Run right before the new agent dials, and right after the commit (a test arms its fault there). */
        Runnable beforeConnect = () -> {};
        Runnable afterCommit = () -> {};
        NodeRuntime source;
        NodeRuntime target;
        AgentState state;
        CompletableFuture<RunReport> resumed;

        MemoryMove(DsaConfig base, CompletableFuture<Long> safePoint, List<CompletableFuture<RunReport>> runs) {
            this.base = base;
            this.safePoint = safePoint;
            this.runs = runs;
        }

        @Override public void prepare() { source = nodes.get(MOVED); }

        @Override public void hold() throws Exception { safePoint.get(30, TimeUnit.SECONDS); }

        @Override
        public void expect() {
            for (int j = 0; j < NODES; j++) if (j != MOVED) expected.add(nodes.get(j).expectMove(MOVED));
        }

        @Override
        public void transfer() {
            state = AgentState.decode(source.snapshot().encode());   // the real format, as between hosts
            target = NodeRuntime.restore(base.toBuilder().nodeId(MOVED).monitorAddress(nodes.get(0).address()).build(), state, network);
        }

        @Override
        public void connect() throws Exception {
            beforeConnect.run();
            target.connectMoved().get(5, TimeUnit.SECONDS);
        }

        @Override
        public void await() throws Exception {
            CompletableFuture.allOf(expected.toArray(new CompletableFuture<?>[0])).get(5, TimeUnit.SECONDS);
        }

        @Override
        public void commit() throws Exception {
            for (int j = 0; j < NODES; j++) if (j != MOVED) nodes.get(j).commitMove(MOVED, target.address());
            source.retireAfterMove();
            runs.get(MOVED).handle((r, e) -> null).get(10, TimeUnit.SECONDS);   // the old agent's outcome no longer matters
            source.close();
            nodes.set(MOVED, target);
            afterCommit.run();
        }

        @Override public void release() { nodes.get(0).releaseHeldGlobal(); }

        @Override
        public void resume() {
            resumed = Workers.start(MOVED, MOVED + 1, i -> JobRunner.run(target, new InMemoryClusterTest.Relax(), List.of(), state.epoch()))
                    .get(0);
        }

        @Override
        public void abandon() {
            for (int j = 0; j < NODES; j++) if (j != MOVED) nodes.get(j).abandonMove(MOVED);
            if (target != null) target.close();
        }

        Choreography<MoveChoreography.State> choreography() {
            return MoveChoreography.create("move of node 2 on the in-memory network", this, (in, cause) -> new DsaException(
                    (in.compareTo(MoveChoreography.State.COMMITTING) >= 0 ? "committed, then failed in " : "failed in ") + in + ", node 2 "
                            + (in.compareTo(MoveChoreography.State.COMMITTING) >= 0 ? "counts as lost" : "stays at " + source.address())
                            + ": " + cause.getMessage(), cause));
        }
    }

    /** Starts the VM under {@code plan}, the job with the safe point armed at {@link #EPOCH}; @return the move, not run yet */
    MemoryMove startWithAMove(FaultPlan plan) {
        DsaConfig base = config();
        start(base, plan);
        CompletableFuture<Long> safePoint = nodes.get(0).holdGlobalRelease(EPOCH);
        return new MemoryMove(base, safePoint, run());
    }

    /** No partition of the relaxation's arrays is EXCLUSIVE at two of the VM's current agents. */
    void assertSingleOwners(FaultPlan plan) {
        for (String name : List.of("a", "b")) {
            SharedArray any = nodes.get(0).localArray(name);
            for (int p = 0; p < any.layout().partitionCount(); p++) {
                List<Integer> owners = new ArrayList<>();
                for (int j = 0; j < NODES; j++) if (nodes.get(j).localArray(name).cacheState(p) == CacheState.EXCLUSIVE) owners.add(j);
                assertTrue(owners.size() <= 1, "array '" + name + "' partition " + p + " exclusive at nodes " + owners + "\n" + plan.describe());
            }
        }
    }

    @Test
    void aNewAgentsHandshakeLostBeforeTheCommitLeavesTheSourceServingAndTheResultUnchanged() throws Exception {
        List<String> expected = baseline();
        FaultPlan plan = new FaultPlan(FaultPlan.seed());
        MemoryMove move = startWithAMove(plan);
        String source = nodes.get(MOVED).address();
        // armed when the new agent dials (the VM's own connections may be dialled lazily, during the job)
        java.util.concurrent.atomic.AtomicReference<FaultPlan.Rule> lost = new java.util.concurrent.atomic.AtomicReference<>();
        move.beforeConnect = () -> lost.set(plan.on(FaultPlan.HANDSHAKE).from(MOVED).to(1).times(1).drop());
        Choreography<MoveChoreography.State> c = move.choreography();
        DsaException e = assertThrows(DsaException.class, c::run);
        assertTrue(lost.get().firstFiredNs() != 0, "the handshake was dropped\n" + plan.describe());
        assertEquals(MoveChoreography.State.FAILED, c.state(), c.trace() + "\n" + plan.describe());
        assertTrue(e.getMessage().contains("failed in CONNECTING, node 2 stays at " + source) && e.getMessage().contains("handshake was lost"),
                e.getMessage());
        for (int j = 0; j < NODES; j++) assertEquals(source, nodes.get(j).view().get(MOVED), "node " + j + "'s view\n" + plan.describe());
        assertEquals(expected, Workers.result(move.runs.get(0), 30).lines(), plan.describe());
        for (int j = 1; j < NODES; j++) Workers.result(move.runs.get(j), 30);
        assertSingleOwners(plan);
    }

    @Test
    void aNewAgentsHandshakesDelayedOnlyDelayTheMoveAndTheResultIsUnchanged() throws Exception {
        List<String> expected = baseline();
        FaultPlan plan = new FaultPlan(FaultPlan.seed());
        MemoryMove move = startWithAMove(plan);
        java.util.concurrent.atomic.AtomicReference<FaultPlan.Rule> delayed = new java.util.concurrent.atomic.AtomicReference<>();
        move.beforeConnect = () -> delayed.set(plan.on(FaultPlan.HANDSHAKE).from(MOVED).delay(1, 200));
        Choreography<MoveChoreography.State> c = move.choreography();
        c.run();
        assertTrue(delayed.get().firstFiredNs() != 0, "the handshakes were delayed\n" + plan.describe());
        assertEquals(MoveChoreography.State.RESUMED, c.state(), c.trace() + "\n" + plan.describe());
        for (int j = 0; j < NODES; j++) {
            assertEquals(move.target.address(), nodes.get(j).view().get(MOVED), "node " + j + "'s view\n" + plan.describe());
        }
        assertEquals(expected, Workers.result(move.runs.get(0), 30).lines(), plan.describe());
        Workers.result(move.runs.get(1), 30);
        Workers.result(move.resumed, 30);
        assertSingleOwners(plan);
    }

    @Test
    void theNewAgentCutOffAfterTheCommitIsReportedLostByName() throws Exception {
        FaultPlan plan = new FaultPlan(FaultPlan.seed());
        MemoryMove move = startWithAMove(plan);
        // the first barrier release the new agent is sent takes it off the network, with the release
        move.afterCommit = () -> plan.on("BARRIER_RELEASE").to(MOVED).times(1).thenIsolate(MOVED);
        Choreography<MoveChoreography.State> c = move.choreography();
        c.run();   // the loss comes after the move ended: the new agent's workers never get the release
        assertEquals(MoveChoreography.State.RESUMED, c.state(), c.trace() + "\n" + plan.describe());
        String target = move.target.address();
        String failure = failureOf(move.runs.get(0), plan);
        assertTrue(failure.contains("lost node 2 at " + target), failure + "\n" + plan.describe());
        failureOf(move.runs.get(1), plan);
        String cut = failureOf(move.resumed, plan);
        assertTrue(cut.contains("lost the monitor") || cut.contains("lost node"), cut + "\n" + plan.describe());
    }

    private static String failureOf(CompletableFuture<RunReport> run, FaultPlan plan) throws InterruptedException {
        try {
            RunReport r = run.get(30, TimeUnit.SECONDS);
            throw new AssertionError("the run ended without the loss: " + (r == null ? null : r.lines()) + "\n" + plan.describe());
        } catch (ExecutionException e) {
            return String.valueOf(e.getCause().getMessage());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the run did not end within 30 s\n" + plan.describe(), e);
        }
    }
}
