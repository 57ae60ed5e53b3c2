package io.dsa.coherence;

/**
 * One node's side of the home-based MSI directory protocol: the directory entries of the
 * partitions homed here and the cache entries of the others. Pure protocol logic: no threads,
 * sockets or clock. Not thread-safe: the runtime calls it from one thread at a time.
 *
 * <p>See {@code docs/coherence.md} for the state and transition table.
 */
public final class CoherenceEngine {
    /**
     * @param nodeId this node
     * @param nodeCount nodes in the VM
     * @param homes the home of each partition
     * @param store this node's partition data and access rights
     * @param outbox messages to other nodes
     */
    public CoherenceEngine(int nodeId, int nodeCount, HomeResolver homes, PartitionStore store, Outbox outbox) {
        throw new UnsupportedOperationException("written by the coherence work");
    }

    /**
     * A local worker needs {@code needed} ({@link Access#READ} or {@link Access#READ_WRITE}) on a
     * partition. If this node already has it, returns {@code true} and does nothing. Otherwise
     * makes sure a request is under way (at most one per partition per node: concurrent misses
     * coalesce) and returns {@code false}; the store's {@code install}/{@code setAccess} later
     * grants the access.
     */
    public boolean request(int arrayId, int partition, Access needed) {
        throw new UnsupportedOperationException();
    }

    /** Handles a message from another node. */
    public void onMessage(CoherenceMessage message) {
        throw new UnsupportedOperationException();
    }

    /** @return this node's current access to a partition */
    public Access access(int arrayId, int partition) {
        throw new UnsupportedOperationException();
    }
}
