package io.dsa.agent.wire;

/** Host to child: how many partitions the agent homes and caches; answered by an {@link AgentStatusMessage}. */
public record AgentStatusQueryMessage(long requestId) implements AgentControlMessage {}
