package io.dsa.agent.wire;

/** Host to child: every node committed the move; the restored agent's workers resume the program. */
public record AgentResumeMessage(long requestId) implements AgentControlMessage {}
