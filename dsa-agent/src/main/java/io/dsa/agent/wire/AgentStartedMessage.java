package io.dsa.agent.wire;

/**
 * Child to host: the answer to an {@link AgentLaunchMessage} or {@link AgentRestoreMessage}.
 *
 * @param requestId the request's id
 * @param address the agent's {@code host:port}; null when no agent runs yet (a target waiting for its state)
 * @param resumable whether the program may be re-entered after a move ({@code DsaProgram.resumable()})
 */
public record AgentStartedMessage(long requestId, String address, boolean resumable) implements WireMessage {}
