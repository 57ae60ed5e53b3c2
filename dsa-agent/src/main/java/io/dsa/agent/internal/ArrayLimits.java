package io.dsa.agent.internal;

import io.dsa.ArrayLayout;
import io.dsa.ArraySpec;
import io.dsa.DsaException;
import io.dsa.agent.DsaConfig;

/**
 * What an array must meet at {@code create...Array}, so that a job fails there, naming the sizes,
 * rather than later: the partitions homed at this node fit the free heap, less a reserve of
 * {@link #HEAP_RESERVE_PERCENT}% of the maximum heap. (A partition larger than the transport's
 * frame limit is not refused: it travels in chunks, docs/runtime.md "Bulk transfers".)
 */
final class ArrayLimits {
    /**
     * Heap kept free beyond the home partitions, in percent of the maximum heap: G1 (the default
     * collector) keeps 10% free by default as to-space for evacuation ({@code -XX:G1ReservePercent});
     * a heap filled beyond that spends its time collecting, and cached copies of other nodes'
     * partitions, frames in flight and the program's own data need room too.
     */
    static final int HEAP_RESERVE_PERCENT = 10;

    private ArrayLimits() {}

    /** @return the bytes of the partitions of {@code layout} homed at {@code nodeId} */
    static long homeBytes(ArrayLayout layout, int nodeId) {
        long bytes = 0;
        for (int p = 0; p < layout.partitionCount(); p++) {
            if (layout.homeOf(p) == nodeId) bytes += layout.partitionBytes(p);
        }
        return bytes;
    }

    /**
     * @param maxHeapBytes {@link Runtime#maxMemory()}
     * @param usedHeapBytes heap in use now ({@link Runtime#totalMemory()} - {@link Runtime#freeMemory()})
     * @throws DsaException when the home partitions do not fit the free heap less the reserve
     */
    static void checkHeap(ArrayLayout layout, int nodeId, long maxHeapBytes, long usedHeapBytes) {
        long home = homeBytes(layout, nodeId);
        long reserve = maxHeapBytes / 100 * HEAP_RESERVE_PERCENT;
        long usable = maxHeapBytes - usedHeapBytes - reserve;
        if (home <= usable) return;
        throw new DsaException("array '" + layout.spec().name() + "': the partitions homed at node " + nodeId + " hold " + home
                + " bytes, more than the " + Math.max(0, usable) + " bytes this node's heap can give them (max heap " + maxHeapBytes
                + ", in use " + usedHeapBytes + ", reserve " + reserve + " = " + HEAP_RESERVE_PERCENT + "%); use more nodes,"
                + " or a larger heap (-Xmx)");
    }

    /** The heap check, against this JVM's heap now. */
    static void check(ArraySpec spec, DsaConfig config, int nodeId, int nodes, int threadsPerNode, boolean knownHere) {
        if (knownHere) return;   // created here before: its partitions are counted in the heap in use
        Runtime r = Runtime.getRuntime();
        checkHeap(ArrayLayout.of(spec, nodes, threadsPerNode), nodeId, r.maxMemory(), r.totalMemory() - r.freeMemory());
    }
}
