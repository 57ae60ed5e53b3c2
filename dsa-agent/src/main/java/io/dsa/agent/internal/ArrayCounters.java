package io.dsa.agent.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One node's counts for one array: the workers' hits and misses, and what the node's I/O thread
 * saw of the array's coherence traffic (invalidations, partition bytes).
 *
 * <p><b>The hit path.</b> Hits and misses are counted in a row per worker thread of the node
 * ({@link WorkerThread#counterRow}), plain {@code long} increments in memory no other thread
 * writes, so a hit neither contends nor allocates; rows are {@value #STRIDE} longs (128 bytes)
 * apart, with a row of padding before the first (the array's header, which every hit reads for
 * its bounds check) and after the last. Threads that are not the node's workers (a library-style
 * caller, a benchmark's thread) share one more row: their counts are exact when one such thread
 * runs at a time and may lose increments when several race.
 *
 * <p><b>The I/O thread's counts</b> (invalidations, bytes) have one writer, the node's I/O
 * thread, which owns the coherence engine.
 *
 * <p>Readers (a metrics scrape, {@code dsa status --watch}) sum the rows at any time with opaque
 * reads: each count is one the counting thread wrote, possibly a moment old.
 */
final class ArrayCounters {
    /** Longs per row: 128 bytes, two cache lines, so adjacent-line prefetch does not couple two rows. */
    static final int STRIDE = 16;
    static final int READ_HIT = 0;
    static final int WRITE_HIT = 1;
    static final int READ_MISS = 2;
    static final int WRITE_MISS = 3;
    /** INV and FWD_GET_M this node sent as the home (each makes a holder drop its copy). */
    static final int INVALIDATIONS_SENT = 0;
    /** INV and FWD_GET_M this node received as a holder. */
    static final int INVALIDATIONS_RECEIVED = 1;
    /** Partition bytes of this array that arrived in coherence messages. */
    static final int BYTES_IN = 2;
    /** Partition bytes of this array sent in coherence messages. */
    static final int BYTES_OUT = 3;
    private static final VarHandle CELLS = MethodHandles.arrayElementVarHandle(long[].class);

    /** The workers' rows, then the other threads' row, between padding. */
    final long[] cells;
    /** The other threads' row. */
    final int otherRow;
    /** The I/O thread's counts. */
    private final long[] io = new long[STRIDE];
    private final int rows;

    ArrayCounters(int threadsPerNode) {
        this.rows = threadsPerNode + 1;
        this.otherRow = row(threadsPerNode);
        this.cells = new long[(rows + 2) * STRIDE];
    }

    /** @return the offset of local worker {@code localIndex}'s row */
    static int row(int localIndex) { return (localIndex + 1) * STRIDE; }

    /** @return the sum over threads of worker count {@code what} ({@link #READ_HIT} .. {@link #WRITE_MISS}) */
    long workers(int what) {
        long sum = 0;
        for (int r = 0; r < rows; r++) sum += (long) CELLS.getOpaque(cells, row(r) + what);
        return sum;
    }

    /** Adds {@code n} to I/O count {@code what}; on the node's I/O thread only. */
    void io(int what, long n) {
        CELLS.setOpaque(io, what, (long) CELLS.getOpaque(io, what) + n);
    }

    /** @return I/O count {@code what} ({@link #INVALIDATIONS_SENT} .. {@link #BYTES_OUT}) */
    long io(int what) { return (long) CELLS.getOpaque(io, what); }
}
