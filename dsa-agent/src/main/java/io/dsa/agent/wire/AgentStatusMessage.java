package io.dsa.agent.wire;

/**
 * Child to host: the answer to an {@link AgentStatusQueryMessage}.
 *
 * @param homed partitions (of all arrays) homed at the node
 * @param cached partitions homed elsewhere of which it holds a valid copy
 */
public record AgentStatusMessage(long requestId, int homed, int cached) implements WireMessage {}
