package io.dsa.agent;

import io.dsa.DsaException;
import io.dsa.agent.mobility.Choreography;
import io.dsa.agent.mobility.CloneChoreography;
import io.dsa.agent.mobility.Fanout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The steps of cloning a node of one {@link DsaCluster} (docs/runtime.md, "Cloning"), driven by
 * {@link CloneChoreography}. One instance per clone.
 */
final class LocalClone implements CloneChoreography.Port {
    private final DsaCluster cluster;
    private final int node;
    private final String bindHost;

    private int cloneId = -1;
    private boolean gated;
    private DsaAgent monitor;
    private AgentState state;
    private byte[] bytes;
    private DsaAgent clone;
    private long pauseStartNs;
    private long pauseNs;

    LocalClone(DsaCluster cluster, int node, String bindHost) {
        this.cluster = cluster;
        this.node = node;
        this.bindHost = bindHost;
    }

    /** @return the choreography over this port */
    Choreography<CloneChoreography.State> choreography() { return choreography(this); }

    /** @return the choreography over {@code port} (this clone's steps, or a port wrapping them) */
    Choreography<CloneChoreography.State> choreography(CloneChoreography.Port port) {
        return CloneChoreography.create("clone of node " + node + " to " + bindHost, port, (in, cause) -> {
            if (cloneId < 0 || in == CloneChoreography.State.HOLDING && cause instanceof DsaException) {
                return cause instanceof RuntimeException r ? r : new DsaException(cause.toString(), cause);
            }
            return new DsaException("cloning node " + node + " to " + bindHost + " failed: " + cause.getMessage(), cause);
        });
    }

    @Override
    public void prepare() {
        cloneId = cluster.nextCloneId(node);
        monitor = cluster.agent(0);
        gated = cluster.running();
    }

    @Override
    public void hold() {
        if (gated) cluster.awaitSafePoint(monitor.holdAtNextGlobalBarrier(), node);
        pauseStartNs = System.nanoTime();
    }

    @Override
    public void transfer() {
        state = cluster.agent(node).snapshotForClone(cloneId);
        bytes = state.encode();
        DsaConfig cloneConfig = cluster.config().toBuilder().nodeId(node).bindHost(bindHost).port(0)
                .monitorAddress(monitor.address()).build();
        clone = DsaAgent.restoreClone(cloneConfig, AgentState.decode(bytes));
    }

    @Override
    public void admit() throws Exception { Fanout.all(nodes(), j -> cluster.agent(j).admitClone(cloneId)); }

    @Override
    public void connect() throws Exception {
        clone.connectToPeers().get(cluster.config().startupTimeoutMs(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void register() throws Exception { Fanout.all(nodes(), j -> cluster.agent(j).registerCloneSharers(state)); }

    @Override
    public void commit() {
        cluster.addClone(clone);
        pauseNs = System.nanoTime() - pauseStartNs;
    }

    @Override
    public void release() {
        if (gated) monitor.releaseHeldBarrier();
    }

    @Override
    public void abandon() {
        if (clone != null) clone.close();   // the homes that registered it forget it when its connections close
    }

    /** @return what the clone did, once cloned */
    CloneReport report() {
        return new CloneReport(node, cloneId, clone.address(), state.epoch(), pauseNs, bytes.length, state.dataBytes());
    }

    private List<Integer> nodes() {
        List<Integer> all = new ArrayList<>();
        for (int j = 0; j < cluster.config().nodes(); j++) all.add(j);
        return all;
    }
}
