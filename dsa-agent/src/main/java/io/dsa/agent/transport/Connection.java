package io.dsa.agent.transport;

/**
 * An authenticated connection to one peer. Thread-safe: any thread may send.
 */
public interface Connection {
    /** @return the peer's node id from its handshake */
    int peerNodeId();

    /**
     * Queues {@code message} (a {@link io.dsa.agent.wire.WireMessage} or a
     * {@link io.dsa.coherence.CoherenceMessage}) for sending. Messages sent on one connection
     * arrive in order. Never blocks on the network. A coherence message's partition bytes are
     * encoded into the frame before this returns, so the caller may lend its own array (the
     * runtime sends a slot's data without copying it first). A frame whose write fails later
     * closes the connection with that reason ({@code onDisconnected}).
     *
     * @throws IllegalArgumentException for a message type the wire does not know
     * @throws io.dsa.DsaException when the message cannot be encoded, e.g. its frame exceeds the
     *         limit; nothing was sent (the message says which type, to whom and why)
     */
    void send(Object message);

    /**
     * Runs {@code task} on this connection's I/O thread, after the sends queued before it. Sends
     * made by the task to connections on the same I/O thread are written at once, without another
     * thread hand-off; the task must not block. A connection without an I/O thread of its own (a
     * test double) runs the task on the calling thread, which is what this default does.
     */
    default void executeOnIoThread(Runnable task) { task.run(); }

    /** @return whether the connection is still open */
    boolean isOpen();

    /** Closes the connection; the handler's {@code onDisconnected} follows. */
    void close();

    /** @return the peer's address, for messages */
    String remoteAddress();
}
