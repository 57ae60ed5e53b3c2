package io.dsa;

import java.util.concurrent.CompletableFuture;

/**
 * A distributed shared array. Element access lives on the typed sub-interfaces
 * ({@link SharedDoubleArray} and the others). Instances are thread-safe: every worker of a node
 * shares the node's one cached copy of each partition.
 */
public interface SharedArray {
    /** @return the array's name, unique in the VM */
    String name();

    /** @return shape, partition shape, homes and the assignment of blocks to threads */
    ArrayLayout layout();

    /** @return the partition holding element {@code (row, col)} @throws IndexOutOfBoundsException if outside */
    int partitionOf(int row, int col);

    /** @return the home node of {@code partition} */
    int homeOf(int partition);

    /** @return the state of this node's copy of {@code partition} */
    CacheState cacheState(int partition);

    /**
     * Fetches a shared copy of {@code partition} (prefetch); completes when it is readable here.
     * No thread waits meanwhile: the future is completed by the node's I/O thread, so an action
     * chained with a non-async method ({@code thenRun}, ...) may run on that thread and must not
     * block or access shared arrays (a blocking operation there fails with a {@link DsaException});
     * chain such work with the {@code ...Async} methods, or {@code join()} the future.
     */
    CompletableFuture<Void> requestPartitionCopy(int partition);

    /**
     * Takes exclusive ownership of {@code partition}; completes when it is writable here, on the
     * node's I/O thread, as {@link #requestPartitionCopy} does.
     */
    CompletableFuture<Void> acquirePartition(int partition);
}
