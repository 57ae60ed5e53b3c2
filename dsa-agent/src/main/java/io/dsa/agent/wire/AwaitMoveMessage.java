package io.dsa.agent.wire;

/** Host to child: answer once node {@code movingNode}'s new agent has connected (after an {@link ExpectMoveMessage}). */
public record AwaitMoveMessage(long requestId, int movingNode) implements AgentControlMessage {}
