package io.dsa.agent.wire;

/**
 * Host to child (a {@link AgentLaunchMessage#MOVE_TARGET} or {@link AgentLaunchMessage#CLONE_TARGET}):
 * start the agent from a state taken at the safe point, in the versioned {@code AgentState}
 * format. It binds its port and dials nobody yet ({@link ConnectPeersMessage}). Answered by an
 * {@link AgentStartedMessage}.
 *
 * @param cloneId -1 for a moved node; else the clone's node id
 * @param state the encoded {@code AgentState}
 */
public record AgentRestoreMessage(long requestId, int cloneId, byte[] state) implements AgentControlMessage {}
