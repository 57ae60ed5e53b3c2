package io.dsa.agent.internal;

import io.dsa.ArrayLayout;
import io.dsa.ArraySpec;
import io.dsa.DsaException;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.transport.FrameSizes;

/**
 * What an array must meet at {@code create...Array}, so that a job fails there, naming the sizes,
 * rather than later in a miss that cannot be served:
 * <ul>
 *   <li>every partition's coherence frame fits the transport's frame limit
 *       ({@link DsaConfig#maxFrameBytes()}): a larger partition could never be sent (until the
 *       transport sends partitions in chunks);</li>
 *   <li>the partitions homed at this node fit the free heap, less a reserve of
 *       {@link #HEAP_RESERVE_PERCENT}% of the maximum heap.</li>
 * </ul>
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

    /**
     * @throws DsaException when a partition's coherence frame would exceed {@code maxFrameBytes}
     */
    static void checkFrame(ArraySpec spec, int maxFrameBytes) {
        long partitionBytes = (long) spec.partitionRows() * spec.partitionCols() * spec.elementType().bytes();
        long frameBytes = FrameSizes.coherenceFrameBytes(partitionBytes);
        if (frameBytes <= maxFrameBytes) return;
        String shape = spec.oneDimensional() ? spec.partitionCols() + " " + spec.elementType()
                : spec.partitionRows() + " x " + spec.partitionCols() + " " + spec.elementType();
        String raise = frameBytes <= DsaConfig.MAX_MAX_FRAME_BYTES
                ? "use smaller partitions, or raise the limit to at least " + frameBytes + " bytes (DsaConfig.Builder.maxFrameBytes,"
                        + " or --max-frame-bytes of dsa run and dsa node; at most " + DsaConfig.MAX_MAX_FRAME_BYTES + ")"
                : "use smaller partitions: the limit goes up to " + DsaConfig.MAX_MAX_FRAME_BYTES + " bytes, partitions of at most "
                        + (DsaConfig.MAX_MAX_FRAME_BYTES - FrameSizes.coherenceFrameBytes(0)) + " bytes";
        throw new DsaException("array '" + spec.name() + "': a partition of " + shape + " elements holds " + partitionBytes
                + " bytes, and its coherence frame of " + frameBytes + " bytes exceeds the transport's limit of " + maxFrameBytes
                + " bytes (max frame bytes); " + raise);
    }

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

    /** Both checks, against this JVM's heap now. */
    static void check(ArraySpec spec, DsaConfig config, int nodeId, int nodes, int threadsPerNode, boolean knownHere) {
        checkFrame(spec, config.maxFrameBytes());
        if (knownHere) return;   // created here before: its partitions are counted in the heap in use
        Runtime r = Runtime.getRuntime();
        checkHeap(ArrayLayout.of(spec, nodes, threadsPerNode), nodeId, r.maxMemory(), r.totalMemory() - r.freeMemory());
    }
}
