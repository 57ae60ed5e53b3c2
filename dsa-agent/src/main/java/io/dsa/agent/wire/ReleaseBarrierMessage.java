package io.dsa.agent.wire;

/** Host to child (node 0): release the barrier held by a {@link HoldBarrierMessage}. */
public record ReleaseBarrierMessage(long requestId) implements AgentControlMessage {}
