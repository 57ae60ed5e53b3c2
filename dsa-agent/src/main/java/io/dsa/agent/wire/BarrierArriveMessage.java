package io.dsa.agent.wire;

/**
 * Node proxy to the barrier root: {@code arrivals} workers of {@code node} reached generation
 * {@code generation} of barrier {@code barrierId}; {@code values} carries their collective
 * contributions (one per arriving worker, in thread-id order), possibly empty. {@code payload} is
 * the node's own contribution of any length to a global TREE round (a scope switch's pushed diffs,
 * docs/consistency.md "Diffs pushed in the switch"), empty otherwise; the root hands every node's
 * to every node in the release.
 */
public record BarrierArriveMessage(int barrierId, long generation, int node, int arrivals, long[] values, long[] payload)
        implements WireMessage {
    /** No node payload. */
    public static final long[] NO_PAYLOAD = new long[0];

    /** A payload absent on the wire (length -1) is an empty one. */
    public BarrierArriveMessage {
        if (payload == null) payload = NO_PAYLOAD;
    }

    /** An arrival without a node payload. */
    public BarrierArriveMessage(int barrierId, long generation, int node, int arrivals, long[] values) {
        this(barrierId, generation, node, arrivals, values, NO_PAYLOAD);
    }
}
