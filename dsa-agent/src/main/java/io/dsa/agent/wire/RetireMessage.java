package io.dsa.agent.wire;

/**
 * Host to child, after a move committed: the node runs elsewhere now. The old agent retires (its
 * run reports nothing) and closes; answered once it is closed.
 */
public record RetireMessage(long requestId) implements AgentControlMessage {}
