package io.dsa.agent.wire;

/**
 * Node 0 to a node, over their authenticated connection: the path of node 0's barrier lane
 * listener (a Unix-domain socket in a directory only its user can enter) and the 32-byte token
 * that the node sends first on the lane, which binds the lane to this connection
 * (docs/runtime.md, "Barrier lanes").
 */
public record LaneOfferMessage(String path, byte[] token) implements WireMessage {}
