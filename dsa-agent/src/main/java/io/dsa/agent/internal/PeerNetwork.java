package io.dsa.agent.internal;

import io.dsa.agent.transport.Connection;

/**
 * The node's connections to its peers, as the runtime's pieces send through them: one connection
 * per peer node, messages to this node itself delivered at once on the calling thread. {@link Peers}
 * is the real one; tests give the pieces a recording one. Thread-safe.
 */
interface PeerNetwork {
    /**
     * Sends {@code message} to {@code node}, in order after this node's earlier sends to it; queued
     * until the node's connection is attached. A coherence message's data may be lent: it is
     * encoded or copied before this returns.
     */
    void send(int node, Object message);

    /** Sends {@code message} to every node, this one last. */
    void sendToAll(Object message);

    /** Runs {@code task} on the node's I/O thread, after the tasks posted before it; it must not block. */
    void executeOnIoThread(Runnable task);

    /** @return false if {@code node} already had a connection (the new one is refused), or is this node */
    boolean attach(int node, Connection connection);

    /** Replaces {@code node}'s connection (the node moved); @return the old one, or null */
    Connection replace(int node, Connection connection);

    /** @return whether {@code connection} is {@code node}'s current connection */
    boolean holds(int node, Connection connection);

    /** @return whether {@code node} has a connection */
    boolean connected(int node);

    /** Accepts node ids below {@code count} (clones join with ids above the VM's nodes). */
    void grow(int count);

    /** Closes every connection; later sends are dropped. */
    void close();
}
