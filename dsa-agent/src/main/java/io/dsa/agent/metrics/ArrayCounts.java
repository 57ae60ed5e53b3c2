package io.dsa.agent.metrics;

/**
 * One node's counts for one array since the node's agent started (a moved or restored agent
 * starts again from zero).
 *
 * @param array the array's name
 * @param readHits element reads, and partition or region reads per partition, that found a readable copy
 * @param writeHits writes that found this node owning the partition (and were not raced by a revocation)
 * @param readMisses reads that had to wait for the I/O thread: a copy from the home, or a home
 *        partition's first touch
 * @param writeMisses writes that had to wait for ownership, or were redone after a revocation raced them
 * @param invalidationsSent INV and FWD_GET_M messages this node sent as the partitions' home
 * @param invalidationsReceived INV and FWD_GET_M messages this node received as a holder of a copy
 * @param bytesIn partition bytes of the array that arrived here in coherence messages
 * @param bytesOut partition bytes of the array this node sent in coherence messages
 */
public record ArrayCounts(String array, long readHits, long writeHits, long readMisses, long writeMisses, long invalidationsSent,
                          long invalidationsReceived, long bytesIn, long bytesOut) {
    /** @return the counts as a {@code long[]} in component order after the name */
    long[] values() {
        return new long[] {readHits, writeHits, readMisses, writeMisses, invalidationsSent, invalidationsReceived, bytesIn, bytesOut};
    }

    /** @return counts from {@code v}, in component order after the name */
    static ArrayCounts of(String array, long[] v) {
        return new ArrayCounts(array, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
    }

    /** How many counts {@link #values()} holds. */
    static final int VALUES = 8;
}
