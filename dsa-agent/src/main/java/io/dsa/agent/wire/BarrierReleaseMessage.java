package io.dsa.agent.wire;

/**
 * Root to nodes: generation {@code generation} of barrier {@code barrierId} is complete;
 * {@code values} is every contribution in thread-id order (empty for a plain barrier).
 * {@code payload} is the nodes' own contributions to a global TREE round
 * ({@link BarrierArriveMessage#payload}) in node order, each as its length and then its longs,
 * or empty when no node gave one.
 */
public record BarrierReleaseMessage(int barrierId, long generation, long[] values, long[] payload) implements WireMessage {
    /** A payload absent on the wire (length -1) is an empty one. */
    public BarrierReleaseMessage {
        if (payload == null) payload = BarrierArriveMessage.NO_PAYLOAD;
    }

    /** A release without node payloads. */
    public BarrierReleaseMessage(int barrierId, long generation, long[] values) {
        this(barrierId, generation, values, BarrierArriveMessage.NO_PAYLOAD);
    }
}
