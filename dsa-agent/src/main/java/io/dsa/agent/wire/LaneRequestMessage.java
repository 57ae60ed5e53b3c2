package io.dsa.agent.wire;

/**
 * A node to node 0, over their authenticated connection: node {@code node} asks for a barrier
 * lane (docs/runtime.md, "Barrier lanes"). Node 0 answers with a {@link LaneOfferMessage}, or
 * not at all when it has no lanes.
 */
public record LaneRequestMessage(int node) implements WireMessage {}
