package io.dsa.agent.wire;

/**
 * Host to child, at the safe point: the agent's state, encoded ({@code AgentState}), in the
 * payload of a {@link HostReplyMessage}.
 *
 * @param cloneId -1 for a move (the node's whole state); else a clone's state with that node id
 */
public record SnapshotMessage(long requestId, int cloneId) implements AgentControlMessage {}
