package io.dsa.agent.wire;

/**
 * Root to nodes: generation {@code generation} of barrier {@code barrierId} is complete;
 * {@code values} is every contribution in thread-id order (empty for a plain barrier).
 */
public record BarrierReleaseMessage(int barrierId, long generation, long[] values) implements WireMessage {}
