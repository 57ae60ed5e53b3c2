package io.dsa.agent.metrics;

import java.util.List;

/**
 * One node's counts since its agent started: per array ({@link ArrayCounts}), and for the node as
 * a whole. Read at one moment, each count a value its counting thread wrote (counts are not read
 * atomically together).
 *
 * @param vm the VM's name
 * @param node the node's id
 * @param bytesIn bytes the node's connections read from the network (records, frames and
 *        handshakes; 0 for a node on an in-memory transport)
 * @param bytesOut bytes the node's connections wrote to the network
 * @param barrierWaits waits in a global, local or group barrier (collectives included)
 * @param barrierWaitNanos their total time, from arrival to release
 * @param migrationPauses global barrier releases node 0 held for a live migration or a cloning
 *        (counted at node 0)
 * @param migrationPauseNanos their total time, from the safe point to the release
 * @param arrays the counts of each array this node knows, by name
 * @param hitsCounted whether the node counts hits ({@code DsaConfig.hitCounts}); if not, every
 *        {@link ArrayCounts#readHits()} and {@link ArrayCounts#writeHits()} is 0 and means nothing
 */
public record NodeCounts(String vm, int node, long bytesIn, long bytesOut, long barrierWaits, long barrierWaitNanos,
                         long migrationPauses, long migrationPauseNanos, List<ArrayCounts> arrays, boolean hitsCounted) {
    public NodeCounts {
        arrays = List.copyOf(arrays);
    }

    /** Counts of a node that counts its hits (as every node did before {@code DsaConfig.hitCounts}). */
    public NodeCounts(String vm, int node, long bytesIn, long bytesOut, long barrierWaits, long barrierWaitNanos,
                      long migrationPauses, long migrationPauseNanos, List<ArrayCounts> arrays) {
        this(vm, node, bytesIn, bytesOut, barrierWaits, barrierWaitNanos, migrationPauses, migrationPauseNanos, arrays, true);
    }

    /** @return the sum of {@code count} over the arrays, e.g. {@code total(ArrayCounts::readHits)} */
    public long total(java.util.function.ToLongFunction<ArrayCounts> count) {
        long sum = 0;
        for (ArrayCounts a : arrays) sum += count.applyAsLong(a);
        return sum;
    }

    /** @return the node-wide counts as a {@code long[]}, in component order from {@code bytesIn}, {@code hitsCounted} as 1 or 0 */
    long[] values() {
        return new long[] {bytesIn, bytesOut, barrierWaits, barrierWaitNanos, migrationPauses, migrationPauseNanos, hitsCounted ? 1 : 0};
    }

    /** How many counts {@link #values()} holds. */
    static final int VALUES = 7;
    /** How many it held before {@code hitsCounted}: rows of an earlier build, whose nodes counted hits. */
    static final int VALUES_BEFORE_HITS_COUNTED = 6;
}
