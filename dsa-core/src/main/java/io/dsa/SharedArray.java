package io.dsa;

import java.util.concurrent.CompletableFuture;

/**
 * A distributed shared array. Element access lives on the typed sub-interfaces
 * ({@link SharedDoubleArray} and the others). Instances are thread-safe: every worker of a node
 * shares the node's one cached copy of each partition.
 *
 * <p><b>Hot loops.</b> An element read that hits costs a few nanoseconds, two to three times a
 * plain array's. Once any read in the JVM has missed (a remote partition, a partition touched for
 * the first time), the JIT compiles the miss path into every loop that reads a shared array, and
 * such a loop reloads its fields on every element, about twice as slow again (docs/runtime.md, "A
 * miss in the loop"). A loop that dominates a run is faster written over whole regions: region
 * reads and a scope's plain arrays ({@link DsaScope}) run at a plain array's speed, and the typed
 * arrays' {@code gather}, which checks each partition once per call, does not slow down after
 * misses. Each hit also increments the node's hit counter (for {@code dsa status} and the
 * metrics); a VM started without hit counts ({@code DsaConfig.hitCounts(false)}, {@code dsa run
 * --no-hit-counts}) skips it.
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
