package io.dsa.agent.transport;

/**
 * Receives decoded messages and connection events, and names where partition bytes are decoded
 * ({@link PartitionBuffers}: by default, new arrays). Called on transport threads: must not block.
 */
public interface InboundHandler extends PartitionBuffers {
    /** A connection (accepted or dialled) completed its handshake. */
    default void onConnected(Connection connection) {}

    /** A message arrived: a {@link io.dsa.agent.wire.WireMessage} or {@link io.dsa.coherence.CoherenceMessage}. */
    void onMessage(Connection connection, Object message);

    /** An authenticated connection closed; {@code cause} is null for an orderly close. */
    default void onDisconnected(Connection connection, Throwable cause) {}

    /** By default a coherence message's partition bytes arrive in a new array. */
    @Override
    default byte[] bufferFor(int arrayId, int partition, int bytes) { return null; }
}
