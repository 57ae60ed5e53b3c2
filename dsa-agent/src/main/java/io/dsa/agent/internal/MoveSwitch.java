package io.dsa.agent.internal;

import io.dsa.DsaException;
import io.dsa.agent.HostPort;
import io.dsa.agent.transport.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Switching connections when a node moves to a new agent (live migration). Every other node holds
 * the new agent's connection aside ({@link #expect}) until the move commits, then puts it in place
 * of the old one, which is retired: whatever still arrives on it, and its close, are not the
 * node's any more. The restored agent dials every node ({@link #connectToPeers}). Thread-safe: the
 * thread running the move expects, commits and abandons; the I/O thread offers connections and
 * asks about retired ones.
 */
final class MoveSwitch {
    private final int nodeId;
    private final int nodes;
    private final PeerNetwork network;
    private final Membership membership;
    private final MonitorRole monitor;
    private final Set<Connection> retired = ConcurrentHashMap.newKeySet();
    private final Map<Integer, CompletableFuture<Connection>> incoming = new ConcurrentHashMap<>();

    /** @param monitor node 0's role, which keeps the address registry (null on other nodes) */
    MoveSwitch(int nodeId, int nodes, PeerNetwork network, Membership membership, MonitorRole monitor) {
        this.nodeId = nodeId;
        this.nodes = nodes;
        this.network = network;
        this.membership = membership;
        this.monitor = monitor;
    }

    /** Another node is moving: its new agent's connection is held until {@link #commit}. */
    CompletableFuture<Connection> expect(int node) {
        return incoming.computeIfAbsent(node, k -> new CompletableFuture<>());
    }

    /** @return whether {@code c} is the expected connection of a moving node's new agent (it is then held) */
    boolean offer(Connection c) {
        CompletableFuture<Connection> move = incoming.get(c.peerNodeId());
        return move != null && move.complete(c);
    }

    /** The move of {@code node} failed: drops the held connection; the old agent stays. */
    void abandon(int node) {
        CompletableFuture<Connection> f = incoming.remove(node);
        if (f != null && !f.complete(null)) {
            Connection c = f.getNow(null);
            if (c != null) {
                retired.add(c);
                c.close();
            }
        }
    }

    /**
     * Commits the move of {@code node} to {@code address}: the held connection replaces the old one.
     *
     * @throws DsaException if no connection from the new agent is held
     */
    void commit(int node, String address) {
        CompletableFuture<Connection> f = incoming.remove(node);
        Connection c = f == null ? null : f.getNow(null);
        if (c == null) throw new DsaException("node " + nodeId + " has no connection from the new agent of node " + node);
        Connection old = network.replace(node, c);
        if (old != null) {
            retired.add(old);
            old.close();
        }
        membership.moved(node, address);
        if (monitor != null) monitor.onMoved(node, address);
    }

    /** Messages that came on a held connection before its move committed, and were dropped (tests and diagnostics). */
    final java.util.concurrent.atomic.LongAdder droppedWhileHeld = new java.util.concurrent.atomic.LongAdder();

    /**
     * @return whether {@code c} is a moving node's new connection still held aside: what it carries
     *         is dropped. The new agent sends nothing before the commit (its workers resume after
     *         the release); what it does send is its word on the move's own steps, e.g. that a
     *         node which abandoned the move, closing its held connection, is lost. Taken as the
     *         node's, that would fail the job the old agent still runs.
     */
    boolean isHeld(Connection c) {
        if (incoming.isEmpty()) return false;
        CompletableFuture<Connection> f = incoming.get(c.peerNodeId());
        return f != null && f.getNow(null) == c;
    }

    /** @return whether {@code c} was replaced by a move (what it carries is dropped) */
    boolean isRetired(Connection c) {
        return !retired.isEmpty() && retired.contains(c);
    }

    /** {@code c} closed: @return whether it was retired (its close is no lost node) */
    boolean closedRetired(Connection c) {
        return retired.remove(c);
    }

    /**
     * The restored agent dials every other node of its view.
     *
     * @return completes when every connection is authenticated and attached here
     */
    CompletableFuture<Void> connectToPeers(NodeTransport dialer) {
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (int j = 0; j < nodes; j++) {
            if (j == nodeId) continue;
            int peer = j;
            HostPort hp = HostPort.parse(membership.address(j));
            all.add(dialer.connect(hp.host(), hp.port()).thenAccept(c -> {
                // onConnected attached it already when the peer's id is higher (it takes it for an inbound one)
                if (c.peerNodeId() != peer || !network.attach(peer, c) && !network.holds(peer, c)) {
                    c.close();
                    throw new DsaException("node " + nodeId + " reached node " + c.peerNodeId() + " at " + hp + ", expected node " + peer);
                }
            }));
        }
        return CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0]));
    }
}
