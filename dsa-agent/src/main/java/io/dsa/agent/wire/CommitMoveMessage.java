package io.dsa.agent.wire;

/** Host to child: the new agent at {@code address} is node {@code movingNode} now; its held connection replaces the old one. */
public record CommitMoveMessage(long requestId, int movingNode, String address) implements AgentControlMessage {}
