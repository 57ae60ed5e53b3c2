package io.dsa.agent.wire;

/** Host to child: the move of node {@code movingNode} failed; drop the new agent's connection and keep the old one. */
public record AbandonMoveMessage(long requestId, int movingNode) implements AgentControlMessage {}
