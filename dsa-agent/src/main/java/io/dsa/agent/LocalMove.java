package io.dsa.agent;

import io.dsa.DsaException;
import io.dsa.DsaProgram;
import io.dsa.agent.mobility.Fanout;
import io.dsa.agent.mobility.Choreography;
import io.dsa.agent.mobility.MoveChoreography;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The steps of a move between agents of one {@link DsaCluster} (docs/runtime.md, "What moves, in
 * order"), driven by {@link MoveChoreography}. One instance per move; the choreography's thread
 * calls it.
 */
final class LocalMove implements MoveChoreography.Port {
    private final DsaCluster cluster;
    private final int node;
    private final String bindHost;
    private final long atEpoch;
    /** The gate armed before the run (a planned move, its safe point already reached), or null. */
    private final CompletableFuture<Long> armed;
    /** With {@code >= 0}, the barrier is released with the gate re-armed for this epoch ({@link #nextGate()}). */
    private final long rearmEpoch;

    private DsaProgram program;
    private List<String> args;
    private DsaAgent monitor;
    private DsaAgent source;
    private DsaAgent target;
    private final List<CompletableFuture<?>> expected = new ArrayList<>();
    private AgentState state;
    private byte[] bytes;
    private boolean committed;
    private CompletableFuture<RunReport> successor;
    private CompletableFuture<Long> next;
    private long pauseStartNs;
    private long pauseNs;

    LocalMove(DsaCluster cluster, int node, String bindHost, long atEpoch, CompletableFuture<Long> armed, long rearmEpoch) {
        this.cluster = cluster;
        this.node = node;
        this.bindHost = bindHost;
        this.atEpoch = atEpoch;
        this.armed = armed;
        this.rearmEpoch = rearmEpoch;
    }

    /** @return the choreography over this port; its failures say where the node stays */
    Choreography<MoveChoreography.State> choreography() { return choreography(this); }

    /** @return the choreography over {@code port} (this move's steps, or a port wrapping them) */
    Choreography<MoveChoreography.State> choreography(MoveChoreography.Port port) {
        return MoveChoreography.create("move of node " + node + " to " + bindHost, port, this::failure);
    }

    private RuntimeException failure(MoveChoreography.State in, Throwable cause) {
        if (source == null || in == MoveChoreography.State.HOLDING && cause instanceof DsaException) {
            return cause instanceof RuntimeException r ? r : new DsaException(cause.toString(), cause);   // refused: the checks' words
        }
        if (in.compareTo(MoveChoreography.State.COMMITTING) >= 0) {
            return new DsaException("migration of node " + node + " to " + bindHost + " committed, then failed in " + in
                    + " (node " + node + " counts as lost): " + cause.getMessage(), cause);
        }
        return new DsaException("migration of node " + node + " to " + bindHost + " failed, node " + node + " stays at "
                + source.address() + ": " + cause.getMessage(), cause);
    }

    @Override
    public void prepare() {
        DsaCluster.Job job = cluster.movableJob(node);
        program = job.program();
        args = job.args();
        if (!program.resumable()) {
            throw new DsaException("program " + program.getClass().getName() + " is not resumable(): its workers cannot"
                    + " re-enter work() at an epoch > 0, so node " + node + " can be moved only between runs");
        }
        monitor = cluster.agent(0);
        source = cluster.agent(node);
    }

    @Override
    public void hold() {
        cluster.awaitSafePoint(armed != null ? armed : monitor.holdAtGlobalBarrier(atEpoch), node);
        pauseStartNs = System.nanoTime();
    }

    @Override
    public void expect() {
        for (int j : others()) expected.add(cluster.agent(j).expectMovedNode(node));
    }

    @Override
    public void transfer() {
        state = source.snapshotForMigration();
        bytes = state.encode();
        DsaConfig targetConfig = cluster.config().toBuilder().nodeId(node).bindHost(bindHost).port(0)
                .monitorAddress(monitor.address()).build();
        target = DsaAgent.restore(targetConfig, AgentState.decode(bytes));
    }

    @Override
    public void connect() throws Exception {
        target.connectToPeers().get(cluster.config().startupTimeoutMs(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void await() throws Exception {
        CompletableFuture.allOf(expected.toArray(new CompletableFuture<?>[0]))
                .get(cluster.config().startupTimeoutMs(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void commit() throws Exception {
        committed = true;
        String address = target.address();
        Fanout.nodeZeroFirst(others(), j -> cluster.agent(j).commitMovedNode(node, address));
        CompletableFuture<RunReport> old = cluster.replace(node, target, successor = new CompletableFuture<>());
        source.retireAfterMigration();
        try {
            old.get(cluster.config().startupTimeoutMs(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // the old agent's outcome no longer matters: it is replaced
        }
        source.close();
    }

    @Override
    public void release() {
        if (committed && rearmEpoch >= 0) next = monitor.releaseHeldBarrierAndHoldAt(rearmEpoch);
        else monitor.releaseHeldBarrier();
    }

    @Override
    public void resume() {
        DsaAgent resumed = target;
        DsaProgram instance = DsaCluster.instanceLike(program);
        CompletableFuture<RunReport> f = successor;
        Thread t = new Thread(() -> DsaCluster.complete(f, () -> resumed.resume(instance, args)), "dsa-cluster-node-" + node);
        t.setDaemon(true);
        t.start();
        pauseNs = System.nanoTime() - pauseStartNs;
    }

    @Override
    public void abandon() {
        if (source == null) return;   // refused before anything was taken
        try {
            Fanout.all(others(), j -> cluster.agent(j).abandonMovedNode(node));
        } catch (Exception e) {
            throw e instanceof RuntimeException r ? r : new DsaException(e.toString(), e);
        } finally {
            if (target != null) target.close();
        }
    }

    /** @return the gate re-armed for the next planned move, once released */
    CompletableFuture<Long> nextGate() { return next; }

    /** @return what the move did, once resumed */
    MigrationReport report() {
        return new MigrationReport(node, source.address(), target.address(), state.epoch(), pauseNs, bytes.length, state.dataBytes());
    }

    private List<Integer> others() {
        List<Integer> others = new ArrayList<>();
        for (int j = 0; j < cluster.config().nodes(); j++) if (j != node) others.add(j);
        return others;
    }
}
