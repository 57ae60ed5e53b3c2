package io.dsa.agent.internal;

import io.dsa.ElementType;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.Buffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;

/**
 * The bytes a worker's region write (or {@code writePartition}) puts into every element of one
 * partition this node holds no valid copy of, handed to the node's I/O thread with the request, so
 * that the partition is asked for without its data ({@code CoherenceEngine#requestOverwrite}): at
 * the grant the I/O thread writes them into the slot before the stamp gives any thread access
 * (docs/runtime.md, "Writes that cover a partition"). A slot holds at most one
 * ({@link Slot#offerOverwrite}).
 *
 * <p><b>States.</b> {@link #REGISTERED} when offered; the I/O thread {@link #claim}s it
 * ({@link #REQUESTED}) only when it sends the request without data, and from then on the grant
 * writes it ({@link #WRITTEN}); a worker that got the access another way (the engine sent an
 * ordinary write request: a shared copy here, a request already under way) {@link #takeBack}s
 * an unclaimed one ({@link #TAKEN_BACK}) and copies its bytes itself. A claimed one is never taken
 * back, so every grant without data finds the bytes it must write.
 */
final class Overwrite {
    static final int REGISTERED = 0;
    static final int REQUESTED = 1;
    static final int WRITTEN = 2;
    static final int TAKEN_BACK = 3;
    /** What {@link #settle} returns while the worker must wait for the access. */
    static final int WAIT = -1;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Overwrite.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The partition. */
    final int partition;
    private final Object region;
    private final int bufRow;
    private final int bufCol;
    private final int bufWidth;
    private final int rows;
    private final int cols;
    private volatile int state = REGISTERED;
    /** Tests only ({@code OverwriteLincheckTest}): the seeded bug of a take-back that looks, then sets, instead of a compare-and-set. */
    boolean plainTakeBack;

    /**
     * @param partition the partition, whose {@code rows x cols} elements the region covers
     * @param region the worker's typed array ({@code double[]}, {@code float[]}, {@code int[]} or {@code long[]})
     * @param bufRow the region's row of the partition's first row
     * @param bufCol the region's column of the partition's first column
     * @param bufWidth the region's row length
     */
    Overwrite(int partition, Object region, int bufRow, int bufCol, int bufWidth, int rows, int cols) {
        this.partition = partition;
        this.region = region;
        this.bufRow = bufRow;
        this.bufCol = bufCol;
        this.bufWidth = bufWidth;
        this.rows = rows;
        this.cols = cols;
    }

    int state() { return state; }

    /** The I/O thread is about to ask without data: from now on only the grant completes this. */
    boolean claim() { return STATE.compareAndSet(this, REGISTERED, REQUESTED); }

    /** The worker has the access another way and writes itself. @return false if the I/O thread claimed this first */
    boolean takeBack() {
        if (!plainTakeBack) return STATE.compareAndSet(this, REGISTERED, TAKEN_BACK);
        if (state != REGISTERED) return false;
        state = TAKEN_BACK;
        return true;
    }

    /**
     * The worker's look at its offer in {@code slot}: {@link #WRITTEN} if the grant wrote its bytes;
     * {@link #TAKEN_BACK} if the node has write access another way and the offer was not claimed,
     * which it now no longer is (the worker writes the bytes itself); {@link #WAIT} otherwise (for
     * the grant that writes them, or for write access). A writable stamp seen while the offer is
     * claimed is an older grant: the claim is made only while the engine grants nothing.
     */
    int settle(Slot slot) {
        int st = state;
        if (st == WRITTEN) return WRITTEN;
        if (st == REGISTERED && Slot.writable(slot.stamp) && takeBack()) {
            slot.dropOverwrite(this);
            return TAKEN_BACK;
        }
        return WAIT;
    }

    /**
     * Writes the region's elements into {@code slot}'s array (which has as many bytes as the
     * partition), then marks this written; on the I/O thread, at the grant, before the stamp that
     * gives the access.
     */
    void writeInto(Slot slot, ElementType type) {
        Buffer view = slot.bulkView(type);
        for (int r = 0; r < rows; r++) {
            int at = r * cols;
            int from = (bufRow + r) * bufWidth + bufCol;
            if (view instanceof DoubleBuffer d) d.put(at, (double[]) region, from, cols);
            else if (view instanceof LongBuffer l) l.put(at, (long[]) region, from, cols);
            else if (view instanceof IntBuffer i) i.put(at, (int[]) region, from, cols);
            else ((FloatBuffer) view).put(at, (float[]) region, from, cols);
        }
        state = WRITTEN;
    }

    @Override
    public String toString() {
        return "overwrite of partition " + partition + " (" + rows + "x" + cols + ", state " + state + ")";
    }
}
