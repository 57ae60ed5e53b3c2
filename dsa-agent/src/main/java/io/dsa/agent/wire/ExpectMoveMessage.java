package io.dsa.agent.wire;

/** Host to child: node {@code movingNode}'s new agent is about to dial; hold its connection aside until the commit. */
public record ExpectMoveMessage(long requestId, int movingNode) implements AgentControlMessage {}
