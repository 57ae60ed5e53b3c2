package io.dsa.agent.internal;

import io.dsa.agent.transport.Connection;
import io.dsa.agent.transport.InboundHandler;
import io.dsa.agent.transport.PartitionBuffers;
import io.dsa.agent.wire.JoinMessage;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a node does when a connection comes, carries a message, or goes: which connections it
 * attaches (the higher node id dials the lower; a moving node's new agent is held aside), which
 * messages it drops (those on a retired connection), and what a lost connection means (a failed
 * job, a clone gone, nothing after a move or the job's end), and where a partition arriving on a
 * connection is decoded (its slot's own array, see {@link ArrayDirectory#receiveBuffer}). Called on
 * the transport's I/O thread.
 */
final class ConnectionEvents implements InboundHandler {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionEvents.class);

    private final int nodeId;
    private final int nodes;
    private final PeerNetwork network;
    private final MessageRouter router;
    private final JobLifecycle job;
    private final MoveSwitch moves;
    private final Cloning cloning;
    private final MonitorRole monitor;
    private final BooleanSupplier closed;
    private final PartitionBuffers buffers;
    private final java.util.function.IntFunction<String> address;
    private final java.util.function.IntFunction<String> homed;

    /**
     * @param monitor node 0's role (joins and lost nodes go there), or null
     * @param closed whether the node was closed (its connections' closes are then expected)
     * @param buffers where arriving partitions are decoded
     * @param address a node's address in the view ({@code host:port}), or null before the view
     * @param homed what a lost node homed, as a failure names it ({@code " (it homed ...)"}), or empty
     */
    ConnectionEvents(int nodeId, int nodes, PeerNetwork network, MessageRouter router, JobLifecycle job, MoveSwitch moves,
            Cloning cloning, MonitorRole monitor, BooleanSupplier closed, PartitionBuffers buffers,
            java.util.function.IntFunction<String> address, java.util.function.IntFunction<String> homed) {
        this.nodeId = nodeId;
        this.nodes = nodes;
        this.network = network;
        this.router = router;
        this.job = job;
        this.moves = moves;
        this.cloning = cloning;
        this.monitor = monitor;
        this.closed = closed;
        this.buffers = buffers;
        this.address = address;
        this.homed = homed;
    }

    private String at(int node) {
        String a = address.apply(node);
        return a == null ? "" : " at " + a;
    }

    @Override
    public byte[] bufferFor(int arrayId, int partition, int bytes) {
        return buffers.bufferFor(arrayId, partition, bytes);
    }

    @Override
    public void onConnected(Connection c) {
        if (moves.offer(c)) {
            return; // the moved node's new agent: attached when the move commits
        }
        // nodes dial the monitor and lower nodes; node 0's connections are attached at join
        if (c.peerNodeId() <= nodeId && nodeId != 0) {
            return; // a connection we dialled: attached by the dialler's code
        }
        if (!network.attach(c.peerNodeId(), c)) {
            LOG.warn("node {} refused a second connection from node {} ({})", nodeId, c.peerNodeId(), c.remoteAddress());
            c.close();
        }
    }

    @Override
    public void onMessage(Connection c, Object m) {
        // a moved node's old connection, replaced at the commit: what its old agent still sends (e.g. that it
        // lost a peer which had already switched to the new agent) is not the node's any more
        if (moves.isRetired(c)) return;
        // a moving node's new agent before the commit: see MoveSwitch.isHeld
        if (moves.isHeld(c)) {
            moves.droppedWhileHeld.increment();
            LOG.debug("node {} dropped {} from node {}'s new agent: its move has not committed", nodeId, m, c.peerNodeId());
            return;
        }
        int from = c.peerNodeId();
        try {
            if (monitor != null && m instanceof JoinMessage join) {
                String error = monitor.onJoin(from, join);
                if (error != null) {
                    LOG.warn("monitor refused join from {}: {}", c.remoteAddress(), error);
                    c.close();
                }
                return;
            }
            router.route(from, m);
        } catch (RuntimeException e) {
            LOG.warn("node {} failed handling {} from node {}", nodeId, m, from, e);
            job.reportFailure("node " + nodeId + " failed handling " + m.getClass().getSimpleName() + " from node " + from
                    + ": " + e);
        }
    }

    @Override
    public void onDisconnected(Connection c, Throwable cause) {
        if (closed.getAsBoolean()) return;
        int peer = c.peerNodeId();
        if (cloning.isClone()) {   // a clone: it lives as long as its VM's monitor
            if (peer == 0) cloning.lostMonitor(cause);
            return;
        }
        if (peer >= nodes) {   // a clone is no member of the job
            if (network.holds(peer, c)) cloning.forget(peer, cause);
            return;
        }
        if (job.movedAway() || job.finished() || moves.closedRetired(c)) return;
        // a stray connection (an abandoned move's) while the peer's current one is up
        if (network.connected(peer) && !network.holds(peer, c)) return;
        String why = cause == null ? "connection closed" : cause instanceof io.dsa.DsaException ? cause.getMessage() : cause.toString();
        if (monitor != null) {
            monitor.onNodeLost(peer, why);
        } else if (peer == 0) {
            job.endWithoutMonitor("lost the monitor (node 0" + at(0) + "): " + why);
        } else {
            job.reportFailure("node " + nodeId + " lost node " + peer + at(peer) + homed.apply(peer) + ": " + why);
        }
    }
}
