package io.dsa.agent.transport;

/**
 * Receives decoded messages and connection events. Called on transport threads: must not block.
 */
public interface InboundHandler {
    /** A connection (accepted or dialled) completed its handshake. */
    default void onConnected(Connection connection) {}

    /** A message arrived: a {@link io.dsa.agent.wire.WireMessage} or {@link io.dsa.coherence.CoherenceMessage}. */
    void onMessage(Connection connection, Object message);

    /** An authenticated connection closed; {@code cause} is null for an orderly close. */
    default void onDisconnected(Connection connection, Throwable cause) {}
}
