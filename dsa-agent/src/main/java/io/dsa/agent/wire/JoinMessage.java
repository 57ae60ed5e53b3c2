package io.dsa.agent.wire;

/**
 * Node to monitor, first message after the handshake: "I am {@code nodeId}, peers reach me at
 * {@code host:port}".
 */
public record JoinMessage(int nodeId, String host, int port) implements WireMessage {}
