package io.dsa.agent.internal;

import io.dsa.ArrayLayout;
import io.dsa.CacheState;
import io.dsa.DsaException;
import io.dsa.SharedArray;
import io.dsa.coherence.Access;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * What the typed shared arrays have in common: the layout, the node's slots, and the miss path
 * that asks the coherence engine for access and sleeps on the slot until it is granted.
 */
abstract class AbstractSharedArray implements SharedArray {
    final NodeRuntime rt;
    final ArrayState state;
    final ArrayLayout layout;
    final Slot[] slots;
    private final Executor async;

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

    AbstractSharedArray(NodeRuntime rt, ArrayState state, Executor async) {
        this.rt = rt;
        this.state = state;
        this.layout = state.layout;
        this.slots = state.slots;
        this.async = async;
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
        if (!slots[partition].allocated()) {
            CacheState engineState = rt.arrays.cacheStateOfUnallocated(state, partition);
            if (engineState != null) return engineState;
        }
        switch (slots[partition].access()) {
            case READ: return CacheState.SHARED;
            case READ_WRITE: return CacheState.EXCLUSIVE;
            default: return CacheState.INVALID;
        }
    }

    @Override
    public final CompletableFuture<Void> requestPartitionCopy(int partition) {
        layout.checkPartition(partition);
        return CompletableFuture.runAsync(() -> awaitAccess(partition, Access.READ), async);
    }

    @Override
    public final CompletableFuture<Void> acquirePartition(int partition) {
        layout.checkPartition(partition);
        return CompletableFuture.runAsync(() -> awaitAccess(partition, Access.READ_WRITE), async);
    }

    /**
     * Blocks until this node may access {@code partition} as {@code needed}. The caller re-checks
     * the stamp after it returns, because the access can be revoked again at any time.
     */
    final void awaitAccess(int partition, Access needed) {
        Slot s = slots[partition];
        while (true) {
            rt.checkFailed();
            int observed = s.stamp;
            if (Slot.accessOf(observed).allows(needed)) return;
            // a home partition never touched: the engine grants it, its bytes are allocated now
            if (rt.arrays.request(state, partition, needed)) continue;
            synchronized (s) {
                // any change of the stamp may be our grant, or a grant already revoked again under
                // false sharing: either way look again, and ask again if needed
                while (s.stamp == observed) {
                    rt.checkFailed();
                    try {
                        s.wait(NodeRuntime.POLL_MS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new DsaException("interrupted while waiting for partition " + partition + " of array '"
                                + name() + "'");
                    }
                }
            }
        }
    }

    /**
     * Starts the request for {@code needed} on {@code partition} if this node lacks it, without
     * waiting: a region access calls it for every partition it covers before it copies any, so
     * their misses overlap. Only a hint: the copy re-checks the access and waits for it.
     */
    final void prefetch(int partition, Access needed) {
        Slot s = slots[partition];
        if (Slot.accessOf(s.stamp).allows(needed)) return;
        rt.checkFailed();
        rt.arrays.request(state, partition, needed);
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
