package io.dsa.agent.internal;

import io.dsa.ArrayLayout;
import io.dsa.CacheState;
import io.dsa.SharedArray;
import io.dsa.coherence.Access;
import java.util.concurrent.CompletableFuture;

/**
 * What the typed shared arrays have in common: the layout, the node's slots, and the miss path,
 * which posts a request to the node's I/O thread (the owner of the coherence engine) and waits for
 * the slot's stamp to change, by the VM's wait strategy.
 */
abstract class AbstractSharedArray implements SharedArray {
    final NodeRuntime rt;
    final ArrayState state;
    final ArrayLayout layout;
    final Slot[] slots;
    private final ArrayDirectory arrays;
    /** Partitions requested ahead of a sequential {@code readPartition} loop (0: none). */
    private final int prefetchWindow;
    // A hint shared by the threads that read this array partition by partition: the last partition
    // read, and how far ahead requests were posted. Racy on purpose: a lost update costs a request.
    private int lastRead = -2;
    private int prefetchedTo = -1;

    // The index fast path of the hit: when both partition sides are powers of two and the columns
    // have no ragged edge, (row, col) -> (partition, offset) is shifts and masks; rowShift < 0 otherwise.
    final int rows;
    final int cols;
    final int gridCols;
    final int rowShift;
    final int colShift;
    final int rowMask;
    final int colMask;
    /** log2(cols) when the fast path applies and cols is a power of two (flat index -> row, col), else -1 */
    final int flatShift;

    AbstractSharedArray(NodeRuntime rt, ArrayState state) {
        this.rt = rt;
        this.state = state;
        this.layout = state.layout;
        this.slots = state.slots;
        this.arrays = rt.arrays;
        this.prefetchWindow = rt.config.prefetchWindow();
        int pr = state.spec.partitionRows();
        int pc = state.spec.partitionCols();
        this.rows = layout.rows();
        this.cols = layout.cols();
        this.gridCols = layout.partitionGridCols();
        boolean fast = Integer.bitCount(pr) == 1 && Integer.bitCount(pc) == 1 && cols % pc == 0;
        this.rowShift = fast ? Integer.numberOfTrailingZeros(pr) : -1;
        this.colShift = fast ? Integer.numberOfTrailingZeros(pc) : -1;
        this.rowMask = pr - 1;
        this.colMask = pc - 1;
        this.flatShift = fast && Integer.bitCount(cols) == 1 ? Integer.numberOfTrailingZeros(cols) : -1;
    }

    @Override
    public final String name() { return state.spec.name(); }

    @Override
    public final ArrayLayout layout() { return layout; }

    @Override
    public final int partitionOf(int row, int col) { return layout.partitionOf(row, col); }

    @Override
    public final int homeOf(int partition) { return layout.homeOf(partition); }

    @Override
    public final CacheState cacheState(int partition) {
        layout.checkPartition(partition);
        return slots[partition].cacheState();
    }

    /** Completed by the node's I/O thread when the copy is here: no thread waits meanwhile. */
    @Override
    public final CompletableFuture<Void> requestPartitionCopy(int partition) {
        layout.checkPartition(partition);
        return arrays.whenGranted(state, partition, Access.READ);
    }

    /** Completed by the node's I/O thread when this node owns the partition: no thread waits meanwhile. */
    @Override
    public final CompletableFuture<Void> acquirePartition(int partition) {
        layout.checkPartition(partition);
        return arrays.whenGranted(state, partition, Access.READ_WRITE);
    }

    /**
     * Blocks until this node may access {@code partition} as {@code needed}. The caller re-checks
     * the stamp after it returns, because the access can be revoked again at any time.
     */
    final void awaitAccess(int partition, Access needed) {
        arrays.awaitAccess(state, partition, needed);
    }

    /**
     * Starts the request for {@code needed} on {@code partition} if this node lacks it, without
     * waiting: a region access calls it for every partition it covers before it copies any, so
     * their misses overlap. Only a hint: the copy re-checks the access and waits for it.
     */
    final void prefetch(int partition, Access needed) {
        if (Slot.accessOf(slots[partition].stamp).allows(needed)) return;
        rt.checkFailed();
        arrays.post(state, partition, needed);
    }

    /**
     * {@code readPartition(partition)} is about to run: if it follows a read of the partition
     * before it, the reads are a sequential loop, and the partitions up to {@code prefetchWindow}
     * ahead are requested now, so that several transfers are in flight.
     */
    final void sequentialRead(int partition) {
        if (prefetchWindow == 0) return;
        int previous = lastRead;
        lastRead = partition;
        if (partition != previous + 1) {
            prefetchedTo = partition;
            return;
        }
        int to = Math.min(partition + prefetchWindow, slots.length - 1);
        for (int q = Math.max(prefetchedTo + 1, partition + 1); q <= to; q++) prefetch(q, Access.READ);
        prefetchedTo = Math.max(prefetchedTo, to);
    }

    /** Index of element {@code index} of the row-major flattening, checked. */
    final int rowOfIndex(int index) {
        checkFlatIndex(index);
        return (int) (index / layout.cols());
    }

    final int colOfIndex(int index) {
        return (int) (index % layout.cols());
    }

    private void checkFlatIndex(int index) {
        if (index < 0 || index >= layout.length()) {
            throw new IndexOutOfBoundsException("index " + index + " out of range [0, " + layout.length()
                    + ") for array '" + name() + "'");
        }
    }

    final void checkBuffer(int partition, int length, String what) {
        layout.checkPartition(partition);
        int need = layout.partitionElements(partition);
        if (length < need) {
            throw new IllegalArgumentException(what + " has " + length + " elements, partition " + partition
                    + " of array '" + name() + "' needs " + need);
        }
    }

    final void checkRegion(int row, int col, int rows, int cols, int length) {
        if (rows < 0 || cols < 0) {
            throw new IllegalArgumentException("region " + rows + "x" + cols + " has a negative size for array '" + name() + "'");
        }
        if (rows == 0 || cols == 0) return;
        layout.checkIndex(row, col);
        layout.checkIndex(row + rows - 1, col + cols - 1);
        if ((long) rows * cols > length) {
            throw new IllegalArgumentException("buffer has " + length + " elements, region " + rows + "x" + cols
                    + " of array '" + name() + "' needs " + (long) rows * cols);
        }
    }

    @Override
    public String toString() { return "SharedArray" + state.spec; }
}
