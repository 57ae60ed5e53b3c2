package io.dsa.agent.wire;

/** Host to child: accept messages and a connection from clone node {@code cloneId}. */
public record AdmitCloneMessage(long requestId, int cloneId) implements AgentControlMessage {}
