package io.dsa.agent.internal;

import io.dsa.ElementType;
import io.dsa.ReduceOp;
import io.dsa.SharedIntArray;
import io.dsa.coherence.Access;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.IntBuffer;

/**
 * Shared array of {@code int}. Element hits read the slot's stamp and access the partition's
 * little-endian bytes through a {@link VarHandle} view: no allocation, no lock, no message.
 * Writes re-check the stamp after a full fence and redo through the miss path if a revocation
 * raced with them (see {@link Slot}). The index arithmetic is written out in both read and write:
 * a shared helper returning partition and offset packed in a long measured 20-25% slower per hit.
 * Power-of-two partition sides take shifts and masks; any other side a multiplication by its
 * reciprocal ({@link Reciprocal}), never an integer division. That path is written out in read and
 * write too: moved into a helper returning a packed long, the 48-wide partition's hits measured
 * 12-20% slower (LocalHitBenchmark, three alternating runs, 2026-11-28). Partition and region
 * copies of {@link #BULK_MIN} elements or more per row move through a little-endian
 * {@link IntBuffer} view of the partition's bytes ({@link Slot#bulkView}), whose absolute bulk get
 * and put copy memory in one go, where the element loop converts one value at a time. Generated from dsa-agent/src/main/template/SharedArrayImpl.java.template by
 * scripts/gen-shared-arrays.sh.
 */
final class SharedIntArrayImpl extends AbstractSharedArray implements SharedIntArray {
    private static final VarHandle VIEW = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int SHIFT = 2;
    /**
     * Whether an element write hit stores with an atomic exchange, which is its store and the full
     * fence of the Dekker pair with a revocation in one instruction (0.9x the hit's time here,
     * docs/runtime.md, "The write hit's fence"): where this JDK's byte-array views support
     * {@code getAndSet} (JDK 17's do; JDK 25's refuse atomic modes on byte arrays, whose
     * elements need not be aligned), else a plain store and {@link VarHandle#fullFence}.
     */
    private static final boolean EXCHANGE = exchangeWorks(VIEW, (int) 0);
    /** Row segments at least this long are copied through the bulk view; shorter ones element by element. */
    static final int BULK_MIN = 8;

    SharedIntArrayImpl(NodeRuntime rt, ArrayState state) {
        super(rt, state);
    }

    @Override
    public int read(int row, int col) {
        int p;
        int off;
        if ((row | col) >= 0 && row < rows && col < cols) {
            if (rowShift >= 0) {
                p = (row >>> rowShift) * gridCols + (col >>> colShift);
                off = (((row & rowMask) << colShift) | (col & colMask)) << SHIFT;
            } else {
                int gridRow = Reciprocal.divide(row, rowReciprocal, rowReciprocalShift);
                int gridCol = Reciprocal.divide(col, colReciprocal, colReciprocalShift);
                p = gridRow * gridCols + gridCol;
                int width = gridCol == lastGridCol ? lastPartCols : partCols;
                off = ((row - gridRow * partRows) * width + col - gridCol * partCols) << SHIFT;
            }
        } else {
            p = layout.partitionOf(row, col);   // throws, naming the index and its range
            off = 0;
        }
        return readAt(p, off);
    }

    /** The element at byte offset {@code off} of partition {@code p}: a hit through the partition's view, else a miss. */
    private int readAt(int p, int off) {
        byte[] data = views[p].data;   // plain: docs/runtime.md, "Read hits through a published view"
        if (data != null) {
            countHit(ArrayCounters.READ_HIT);
            return (int) VIEW.get(data, off);
        }
        return readMiss(p, off);
    }

    private int readMiss(int p, int off) {
        count(ArrayCounters.READ_MISS);
        ReleaseBuffer release = state.release;
        if (release != null) return bufferedRead(release, p, off);
        returningRead(p);
        Slot s = slots[p];
        while (true) {
            awaitAccess(p, Access.READ);
            if (Slot.readable(s.stamp)) {
                return (int) VIEW.get(s.data, off);
            }
        }
    }

    @Override
    public void write(int row, int col, int value) {
        int p;
        int off;
        if ((row | col) >= 0 && row < rows && col < cols) {
            if (rowShift >= 0) {
                p = (row >>> rowShift) * gridCols + (col >>> colShift);
                off = (((row & rowMask) << colShift) | (col & colMask)) << SHIFT;
            } else {
                int gridRow = Reciprocal.divide(row, rowReciprocal, rowReciprocalShift);
                int gridCol = Reciprocal.divide(col, colReciprocal, colReciprocalShift);
                p = gridRow * gridCols + gridCol;
                int width = gridCol == lastGridCol ? lastPartCols : partCols;
                off = ((row - gridRow * partRows) * width + col - gridCol * partCols) << SHIFT;
            }
        } else {
            p = layout.partitionOf(row, col);   // throws, naming the index and its range
            off = 0;
        }
        Slot s = slots[p];
        int stamp = s.stamp;
        if (Slot.writable(stamp)) {
            if (EXCHANGE) {
                VIEW.getAndSet(s.data, off, value);
            } else {
                VIEW.set(s.data, off, value);
                VarHandle.fullFence();
            }
            if (s.stamp == stamp) {
                countHit(ArrayCounters.WRITE_HIT);
                return;
            }
        }
        writeMiss(p, off, value);
    }

    // A write that found no access, or raced with a revocation and is redone through the protocol.
    private void writeMiss(int p, int off, int value) {
        count(ArrayCounters.WRITE_MISS);
        ReleaseBuffer release = state.release;
        if (release != null) {
            ReleaseBuffer.Part part = release.part(p);
            VIEW.set(part.values, off, value);
            part.mark(off >>> SHIFT);
            return;
        }
        Slot s = slots[p];
        while (true) {
            awaitAccess(p, Access.READ_WRITE);
            int stamp = s.stamp;
            if (Slot.writable(stamp)) {
                VIEW.set(s.data, off, value);
                VarHandle.fullFence();
                if (s.stamp == stamp) return;
            }
        }
    }

    // Inside a release scope (every access misses): this node's buffered value, else its read copy under the engine's grant.
    private int bufferedRead(ReleaseBuffer release, int p, int off) {
        ReleaseBuffer.Part part = release.written(p);
        if (part != null && part.marked(off >>> SHIFT)) return (int) VIEW.get(part.values, off);
        Slot s = slots[p];
        while (true) {
            int stamp = awaitCopy(p);
            int value = (int) VIEW.get(s.data, off);
            VarHandle.loadLoadFence();
            if (s.stamp == stamp) return value;
        }
    }

    @Override
    public void gather(int[] indices, int from, int count, int[] dst, int dstOffset) {
        GatherScratch g = GatherScratch.begin(this, "gather", indices, from, count, dst.length, dstOffset, "destination");
        byte[][] checked = g.table();
        int end = from + count;
        try {
            int k = from;
            int start = k;
            while (true) {
                // the elements of partitions this group checked: no call, no acquire, one rare branch per element
                int p = 0;
                for (; k < end; k++) {
                    int index = indices[k];
                    p = partitionOfIndex(index);
                    byte[] d = checked[p];
                    if (d == null) break;
                    dst[dstOffset + k - from] = (int) VIEW.get(d, positionOf(index, p) << SHIFT);
                }
                if (k < end) {   // a partition this group has not checked
                    int at = positionOf(indices[k], p);
                    Slot s = slots[p];
                    int stamp = s.stamp;
                    if (!Slot.readable(stamp)) {
                        // the element path: waits for the copy (or reads a release scope's buffer, or refuses as the scope says)
                        g.prefetchAhead(this, indices, k, end, Access.READ);
                        dst[dstOffset + k - from] = readMiss(p, at << SHIFT);
                        k++;
                        continue;
                    }
                    if (g.size < GatherScratch.CAPACITY) {
                        countHit(ArrayCounters.READ_HIT);
                        g.add(p, stamp, s.data);
                        continue;
                    }
                }
                // the group is full or the gather done: check that no stamp moved under the copy
                VarHandle.loadLoadFence();
                if (!g.unchanged(slots)) k = start;   // a partition was revoked under the copy: this group again
                g.clear();
                if (k == end) return;
                start = k;
            }
        } finally {
            g.clear();
        }
    }

    @Override
    public void scatter(int[] indices, int from, int count, int[] src, int srcOffset) {
        GatherScratch g = GatherScratch.begin(this, "scatter", indices, from, count, src.length, srcOffset, "source");
        byte[][] checked = g.table();
        int end = from + count;
        try {
            int k = from;
            int start = k;
            while (true) {
                // the elements of partitions this group found writable: plain stores, no fence, one rare branch each
                int p = 0;
                for (; k < end; k++) {
                    int index = indices[k];
                    p = partitionOfIndex(index);
                    byte[] d = checked[p];
                    if (d == null) break;
                    VIEW.set(d, positionOf(index, p) << SHIFT, src[srcOffset + k - from]);
                }
                if (k < end) {   // a partition this group has not found writable
                    int at = positionOf(indices[k], p);
                    Slot s = slots[p];
                    int stamp = s.stamp;
                    if (!Slot.writable(stamp)) {
                        // the element path: takes ownership (or buffers in a release scope, or refuses as the scope says)
                        g.prefetchAhead(this, indices, k, end, Access.READ_WRITE);
                        writeMiss(p, at << SHIFT, src[srcOffset + k - from]);
                        k++;
                        continue;
                    }
                    if (g.size < GatherScratch.CAPACITY) {
                        countHit(ArrayCounters.WRITE_HIT);
                        g.add(p, stamp, s.data);
                        continue;
                    }
                }
                // the group is full or the scatter done: one fence, then the write hit's re-check of every stamp it used
                VarHandle.fullFence();
                if (!g.unchanged(slots)) {
                    // a revocation may have copied a partition before some stores landed: this group's writes again, in
                    // order, through the element path (a write stores the same value again; a later one of an index wins)
                    g.clear();
                    for (int i = start; i < k; i++) {
                        long where = locate(indices[i]);
                        writeMiss((int) (where >>> 32), (int) where << SHIFT, src[srcOffset + i - from]);
                    }
                }
                g.clear();
                if (k == end) return;
                start = k;
            }
        } finally {
            g.clear();
        }
    }

    @Override
    public int read(int index) {
        if (Integer.compareUnsigned(index, vectorLength) < 0) {
            // a vector (one row of partitions): fewer fields and no row arithmetic, which a loop whose
            // miss path is compiled in reloads per element (docs/runtime.md, "A vector's own index path")
            int p = vectorPartition(index);
            return readAt(p, (index - p * partCols) << SHIFT);
        }
        if (flatShift >= 0 && index >= 0 && index < (long) rows * cols) return read(index >>> flatShift, index & (cols - 1));
        return read(rowOfIndex(index), colOfIndex(index));
    }

    @Override
    public void write(int index, int value) {
        if (rows == 1 && Integer.compareUnsigned(index, cols) < 0) {
            write(0, index, value);
        } else if (flatShift >= 0 && index >= 0 && index < (long) rows * cols) {
            write(index >>> flatShift, index & (cols - 1), value);
        } else {
            write(rowOfIndex(index), colOfIndex(index), value);
        }
    }

    @Override
    public void readPartition(int partition, int[] dst) {
        checkBuffer(partition, dst.length, "destination");
        sequentialRead(partition);
        ReleaseBuffer release = state.release;
        if (release != null) {
            int width = layout.partitionCols(partition);
            bufferedBlock(release, partition, 0, width, 0, 0, layout.partitionRows(partition), width, width, dst, false);
            return;
        }
        int n = layout.partitionElements(partition);
        Slot s = slots[partition];
        countAccess(s, false);
        while (true) {
            awaitAccess(partition, Access.READ);
            int stamp = s.stamp;
            if (!Slot.readable(stamp)) continue;
            bulk(s).get(0, dst, 0, n);
            // the copy is one version of the partition: a revocation and refill in place during it shows in the stamp
            VarHandle.loadLoadFence();
            if (s.stamp == stamp) return;
        }
    }

    @Override
    public void writePartition(int partition, int[] src) {
        checkBuffer(partition, src.length, "source");
        ReleaseBuffer release = state.release;
        if (release != null) {
            int width = layout.partitionCols(partition);
            bufferedBlock(release, partition, 0, width, 0, 0, layout.partitionRows(partition), width, width, src, true);
            return;
        }
        if (overwritePartition(partition, src)) return;
        int n = layout.partitionElements(partition);
        Slot s = slots[partition];
        countAccess(s, true);
        while (true) {
            awaitAccess(partition, Access.READ_WRITE);
            int stamp = s.stamp;
            if (!Slot.writable(stamp)) continue;
            bulk(s).put(0, src, 0, n);
            VarHandle.fullFence();
            if (s.stamp == stamp) return;
        }
    }

    @Override
    public void read(int row, int col, int rows, int cols, int[] dst) {
        checkRegion(row, col, rows, cols, dst.length);
        region(row, col, rows, cols, dst, false);
    }

    @Override
    public void write(int row, int col, int rows, int cols, int[] src) {
        checkRegion(row, col, rows, cols, src.length);
        region(row, col, rows, cols, src, true);
    }

    @Override
    public void accumulate(int row, int col, int rows, int cols, int[] src, ReduceOp op) {
        AccumulateCalls.region(this, row, col, rows, cols, src, src.length, op);
    }

    @Override
    public void accumulate(int row, int col, int value, ReduceOp op) {
        if (AccumulateCalls.element(this, row, col, AccumulateCalls.rawBits(value), op)) return; // inside an accumulate scope: no allocation
        AccumulateCalls.region(this, row, col, 1, 1, new int[] {value}, 1, op);
    }

    @Override
    public void accumulate(int index, int value, ReduceOp op) {
        accumulate(rowOfIndex(index), colOfIndex(index), value, op);
    }

    @Override
    void copyBlock(int p, int base, int width, int bufRow, int bufCol, int rows, int cols, int bufWidth, Object region,
                   boolean write) {
        int[] buf = (int[]) region;
        ReleaseBuffer release = state.release;
        if (release != null) {
            bufferedBlock(release, p, base, width, bufRow, bufCol, rows, cols, bufWidth, buf, write);
            return;
        }
        Slot s = slots[p];
        Access needed = write ? Access.READ_WRITE : Access.READ;
        countAccess(s, write);
        while (true) {
            awaitAccess(p, needed);
            int stamp = s.stamp;
            if (write ? !Slot.writable(stamp) : !Slot.readable(stamp)) continue;
            byte[] d = s.data;
            if (cols >= BULK_MIN) {
                IntBuffer view = bulk(s);
                for (int r = 0; r < rows; r++) {
                    if (write) {
                        view.put(base + r * width, buf, (bufRow + r) * bufWidth + bufCol, cols);
                    } else {
                        view.get(base + r * width, buf, (bufRow + r) * bufWidth + bufCol, cols);
                    }
                }
            } else {
                for (int r = 0; r < rows; r++) {
                    int src = base + r * width;
                    int b = (bufRow + r) * bufWidth + bufCol;
                    for (int c = 0; c < cols; c++) {
                        if (write) {
                            VIEW.set(d, (src + c) << SHIFT, buf[b + c]);
                        } else {
                            buf[b + c] = (int) VIEW.get(d, (src + c) << SHIFT);
                        }
                    }
                }
            }
            if (write) {
                VarHandle.fullFence();
            } else {
                VarHandle.loadLoadFence(); // a read copies one version, as readPartition does
            }
            if (s.stamp == stamp) return;
        }
    }

    /** @return {@code s}'s bulk view ({@link Slot#bulkView}); {@code s} has bytes */
    private static IntBuffer bulk(Slot s) {
        return (IntBuffer) s.bulkView(ElementType.INT);
    }

    /**
     * {@link #copyBlock} inside a release scope: a write stores into this node's buffer and marks
     * the elements; a read copies one version of the node's read copy (fetched under the engine's
     * grant if need be) and then this node's buffered values over it.
     */
    private void bufferedBlock(ReleaseBuffer release, int p, int base, int width, int bufRow, int bufCol, int rows, int cols,
                               int bufWidth, int[] buf, boolean write) {
        if (write) {
            ReleaseBuffer.Part part = release.part(p);
            IntBuffer values = (IntBuffer) part.bulk;
            for (int r = 0; r < rows; r++) values.put(base + r * width, buf, (bufRow + r) * bufWidth + bufCol, cols);
            part.markRows(base, width, rows, cols);
            return;
        }
        Slot s = slots[p];
        while (true) {
            int stamp = awaitCopy(p);
            byte[] d = s.data;
            for (int r = 0; r < rows; r++) {
                int at = base + r * width;
                int b = (bufRow + r) * bufWidth + bufCol;
                for (int c = 0; c < cols; c++) buf[b + c] = (int) VIEW.get(d, (at + c) << SHIFT);
            }
            VarHandle.loadLoadFence();
            if (s.stamp == stamp) break;
        }
        ReleaseBuffer.Part part = release.written(p);
        if (part == null) return;
        for (int r = 0; r < rows; r++) {
            int at = base + r * width;
            int b = (bufRow + r) * bufWidth + bufCol;
            for (int c = 0; c < cols; c++) if (part.marked(at + c)) buf[b + c] = (int) VIEW.get(part.values, (at + c) << SHIFT);
        }
    }

    /** @return whether element write hits store with an atomic exchange on this JDK ({@code EXCHANGE}); for tests */
    static boolean exchanges() { return EXCHANGE; }
}
