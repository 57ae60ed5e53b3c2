package io.dsa.agent.internal;

import io.dsa.agent.transport.Connection;
import io.dsa.agent.transport.WireRoundTrip;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A recording fake of the node's network: every message sent is passed through the real codec and
 * kept, in order, as {@code "to N: "} + {@link WireText} (a send to all is one send per node, this
 * one last, as {@link Peers} does it). Nothing is delivered, not even to this node: the test
 * delivers what it wants. Tasks for the I/O thread run at once. Thread-safe.
 */
final class RecordingNetwork implements PeerNetwork {
    private final int self;
    private Connection[] connections;
    private final List<String> sent = new ArrayList<>();

    RecordingNetwork(int self, int nodes) {
        this.self = self;
        this.connections = new Connection[nodes];
    }

    @Override
    public synchronized void send(int node, Object message) {
        sent.add("to " + node + ": " + WireText.of(WireRoundTrip.copy(message)));
        notifyAll();
    }

    @Override
    public void sendToAll(Object message) {
        int count;
        synchronized (this) { count = connections.length; }
        for (int n = 0; n < count; n++) if (n != self) send(n, message);
        send(self, message);
    }

    @Override
    public void executeOnIoThread(Runnable task) {
        task.run();
    }

    @Override
    public synchronized boolean attach(int node, Connection connection) {
        if (node < 0 || node >= connections.length || node == self || connections[node] != null) return false;
        connections[node] = connection;
        return true;
    }

    @Override
    public synchronized Connection replace(int node, Connection connection) {
        Connection old = connections[node];
        connections[node] = connection;
        return old;
    }

    @Override
    public synchronized boolean holds(int node, Connection connection) {
        return node < connections.length && connections[node] == connection;
    }

    @Override
    public synchronized boolean connected(int node) { return node < connections.length && connections[node] != null; }

    @Override
    public synchronized void grow(int count) {
        if (count > connections.length) connections = Arrays.copyOf(connections, count);
    }

    @Override
    public void close() {}

    /** @return what was sent since the last take, in order, and forgets it */
    synchronized List<String> take() {
        List<String> all = List.copyOf(sent);
        sent.clear();
        return all;
    }

    /** Waits (5 s at most) until {@code text} ({@code "to N: ..."}) was sent; it stays for {@link #take}. */
    synchronized void awaitSent(String text) {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!sent.contains(text)) {
            long leftMs = (deadline - System.nanoTime()) / 1_000_000;
            if (leftMs <= 0) throw new AssertionError("not sent within 5 s: " + text + "; sent: " + sent);
            try {
                wait(leftMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted");
            }
        }
    }

    /** @return node {@code node}'s connection, or null */
    synchronized Connection connection(int node) { return connections[node]; }
}
