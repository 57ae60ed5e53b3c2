package io.dsa.agent.wire;

/**
 * Node proxy to the barrier root: {@code arrivals} workers of {@code node} reached generation
 * {@code generation} of barrier {@code barrierId}; {@code values} carries their collective
 * contributions (one per arriving worker, in thread-id order), possibly empty.
 */
public record BarrierArriveMessage(int barrierId, long generation, int node, int arrivals, long[] values)
        implements WireMessage {}
