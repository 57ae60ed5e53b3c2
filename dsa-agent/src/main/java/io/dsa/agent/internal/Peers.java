package io.dsa.agent.internal;

import io.dsa.DsaException;
import io.dsa.agent.transport.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * One connection per peer node. Messages to a node not yet connected are queued and flushed,
 * in order, when its connection arrives. Messages to this node itself are dispatched at once
 * on the calling thread. The higher node id dials the lower, so a pair never has two
 * connections. Tasks for the I/O thread go to the node's {@link IoThread}, which exists before
 * any connection. A message that cannot be sent (its frame exceeds the limit, it does not encode)
 * goes to the failure handler instead of being dropped: the runtime fails the job with the reason.
 */
final class Peers implements PeerNetwork {
    private final int self;
    private Connection[] connections;
    private final List<List<Object>> queued;
    private final BiConsumer<Integer, Object> localDispatch;
    private final IoThread io;
    private final SendFailure sendFailure;
    /** Barrier lanes, once the runtime made them: global barrier messages to a node with a lane go there. */
    private volatile Lanes lanes;
    private boolean closed;

    /** Told about a message that could not be sent; called on the sending thread, under the peers' lock. */
    interface SendFailure {
        void onSendFailed(int node, Object message, DsaException cause);
    }

    Peers(int self, int nodes, BiConsumer<Integer, Object> localDispatch, IoThread io, SendFailure sendFailure) {
        this.self = self;
        this.io = io;
        this.connections = new Connection[nodes];
        this.queued = new ArrayList<>(nodes);
        for (int i = 0; i < nodes; i++) queued.add(new ArrayList<>());
        this.localDispatch = localDispatch;
        this.sendFailure = sendFailure;
    }

    @Override
    public void send(int node, Object message) {
        if (node == self) {
            localDispatch.accept(self, message);
            return;
        }
        Lanes l = lanes;
        if (l != null && l.trySend(node, message)) return;
        Connection c;
        synchronized (this) {
            if (closed) return;
            c = connections[node];
            if (c == null) {
                queued.get(node).add(owned(message));
                return;
            }
            // sent under the lock so that a message never overtakes one queued before it
            send(c, node, message);
        }
    }

    private void send(Connection c, int node, Object message) {
        try {
            c.send(message);
        } catch (DsaException e) {
            sendFailure.onSendFailed(node, message, e);
        }
    }

    // A coherence message's data may be a slot's own array, lent only until the send returns: a queued one keeps a copy.
    private static Object owned(Object message) {
        if (message instanceof io.dsa.coherence.CoherenceMessage m && m.data() != null) {
            return new io.dsa.coherence.CoherenceMessage(m.op(), m.arrayId(), m.partition(), m.source(), m.destination(),
                    m.requester(), m.data().clone());
        }
        return message;
    }

    /**
     * Sends to every node, this one last: delivering to itself wakes local threads, which on a
     * busy machine would otherwise take the CPU before the other nodes' releases are written.
     */
    @Override
    public void sendToAll(Object message) {
        int count;
        synchronized (this) { count = connections.length; }
        for (int n = 0; n < count; n++) if (n != self) send(n, message);
        send(self, message);
    }

    /**
     * Runs {@code task} on the node's I/O thread, which writes the task's sends directly instead
     * of being handed them one by one. Dropped once the node closed.
     */
    @Override
    public void executeOnIoThread(Runnable task) {
        synchronized (this) {
            if (closed) return;
        }
        try {
            io.execute(task);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // the I/O thread stopped: the node is closing
        }
    }

    /** @return false if {@code node} already had a connection (the new one is refused) */
    @Override
    public synchronized boolean attach(int node, Connection connection) {
        if (closed || node < 0 || node >= connections.length || node == self || connections[node] != null) {
            return false;
        }
        for (Object m : queued.get(node)) send(connection, node, m);
        queued.get(node).clear();
        connections[node] = connection;
        return true;
    }

    /** Accepts node ids below {@code count} (clones join with ids above the VM's nodes). */
    @Override
    public synchronized void grow(int count) {
        if (count <= connections.length) return;
        connections = java.util.Arrays.copyOf(connections, count);
        while (queued.size() < count) queued.add(new ArrayList<>());
    }

    /** Replaces {@code node}'s connection (the node moved); @return the old one, or null */
    @Override
    public synchronized Connection replace(int node, Connection connection) {
        Connection old = connections[node];
        for (Object m : queued.get(node)) send(connection, node, m);
        queued.get(node).clear();
        connections[node] = connection;
        return old;
    }

    /** From now on, global barrier messages to a node with a barrier lane travel over it ({@link Lanes#trySend}). */
    void useLanes(Lanes lanes) { this.lanes = lanes; }

    /** @return {@code node}'s current connection, or null */
    synchronized Connection connection(int node) {
        return node >= 0 && node < connections.length ? connections[node] : null;
    }

    /** @return whether {@code connection} is {@code node}'s current connection */
    @Override
    public synchronized boolean holds(int node, Connection connection) {
        return node < connections.length && connections[node] == connection;
    }

    synchronized int nodeOf(Connection connection) {
        for (int n = 0; n < connections.length; n++) if (connections[n] == connection) return n;
        return -1;
    }

    @Override
    public synchronized boolean connected(int node) { return node < connections.length && connections[node] != null; }

    @Override
    public void close() {
        Connection[] all;
        synchronized (this) {
            closed = true;
            all = connections.clone();
        }
        for (Connection c : all) if (c != null) c.close();
    }
}
