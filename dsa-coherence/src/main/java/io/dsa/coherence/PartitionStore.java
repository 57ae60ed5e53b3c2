package io.dsa.coherence;

/**
 * A node's partition data and the access rights of its worker threads, owned by the runtime.
 * The {@link CoherenceEngine} changes rights and moves data only through this interface; in the
 * agent an implementation guards worker threads' hits, in tests it is a plain map.
 *
 * <p>Every node holds at most one copy of each partition. At a partition's home node that copy
 * is the home memory. A partition never touched is all zeros.
 */
public interface PartitionStore {
    /**
     * Lowers or raises the local workers' rights on the copy. After this returns with a lower
     * right, no local write is in progress that a later {@link #snapshot} could miss: every
     * write that completed before is included, every later one misses.
     */
    void setAccess(int arrayId, int partition, Access access);

    /**
     * @return the local data (zeros if never written here) for a message the engine sends at once:
     *         a fresh copy, or the store's own array if the outbox consumes it before
     *         {@link Outbox#send} returns (the agent's does); the engine never keeps or modifies it
     */
    byte[] snapshot(int arrayId, int partition);

    /**
     * Replaces the local data with {@code data} (whose ownership passes to the store) and then
     * sets {@code access}, waking local threads that wait for it.
     */
    void install(int arrayId, int partition, byte[] data, Access access);

    /**
     * Grants {@link Access#READ_WRITE} on a copy that arrived without data because a local worker
     * asked to overwrite all of it ({@link CoherenceEngine#requestOverwrite}): the store writes
     * that worker's bytes into its copy first, then sets the access and wakes the threads that
     * wait for it, so no thread ever sees the copy without them. The store's copy was invalid
     * until now.
     */
    void overwrite(int arrayId, int partition);
}
