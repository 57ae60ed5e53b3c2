package io.dsa.agent.internal;

import io.dsa.ArrayLayout;
import io.dsa.ArrayUse;
import io.dsa.CacheState;
import io.dsa.SharedArray;
import io.dsa.coherence.Access;
import java.lang.invoke.VarHandle;
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
    /** {@link ArrayState#views}: the element read hit's, one dependent load shorter than through {@link #slots}. */
    final Slot.ReadView[] views;
    private final ArrayDirectory arrays;
    /** This node's counts of the array: a row per worker thread ({@link ArrayCounters}). */
    private final long[] counts;
    private final int otherRow;
    /**
     * Bytes a region access, or a sequential partition loop, keeps requested ahead of its copy. A
     * region read that asked for all its partitions at once (32 MiB of 1 MiB partitions) ran at a
     * third of the other ways' rate between two JVMs; capped at 2 to 4 MiB it ran as fast as they do
     * (docs/runtime.md, "Bulk transfer").
     */
    static final long REGION_AHEAD_BYTES = 4L << 20;
    /** Partitions requested ahead of a sequential {@code readPartition} loop (0: none). */
    private final int prefetchWindow;
    /** Whether an element read's returning miss requests the other partitions the node keeps reading ({@link #returningRead}). */
    private final boolean returningReads;
    /**
     * {@link #counts} where hits are counted ({@link io.dsa.agent.DsaConfig#hitCounts()}), else null; misses always
     * are. One reference where a flag and the array were two loads on every hit.
     */
    private final long[] hitCells;
    // A hint shared by the threads that read this array partition by partition: the last partition
    // read, and how far ahead requests were posted. Racy on purpose: a lost update costs a request.
    private int lastRead = -2;
    private int prefetchedTo = -1;
    /** How many partitions the current run of {@code readPartition}s of consecutive partitions has read ({@link #sequentialRead}). */
    private int sequentialRun;

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
    /** The length of a vector (an array of one row), whose flat index takes its own path; 0 for any other shape. */
    final int vectorLength;
    // The index path for every other shape: a division by a partition side is a multiplication by
    // its reciprocal and a shift (Reciprocal), and the partitions of the last grid column may be narrower.
    final int partRows;
    final int partCols;
    final long rowReciprocal;
    final int rowReciprocalShift;
    final long colReciprocal;
    final int colReciprocalShift;
    /** The last column of the partition grid and the width of its partitions (less than partCols at a ragged edge). */
    final int lastGridCol;
    final int lastPartCols;

    AbstractSharedArray(NodeRuntime rt, ArrayState state) {
        this.rt = rt;
        this.state = state;
        this.layout = state.layout;
        this.slots = state.slots;
        this.views = state.views;
        this.arrays = rt.arrays;
        this.counts = state.counters.cells;
        this.otherRow = state.counters.otherRow;
        this.prefetchWindow = rt.config.prefetchWindow();
        this.returningReads = rt.config.returningReads();
        this.hitCells = rt.config.hitCounts() ? counts : null;
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
        this.vectorLength = rows == 1 ? cols : 0;
        this.partRows = pr;
        this.partCols = pc;
        this.rowReciprocal = Reciprocal.multiplier(pr);
        this.rowReciprocalShift = Reciprocal.shift(pr);
        this.colReciprocal = Reciprocal.multiplier(pc);
        this.colReciprocalShift = Reciprocal.shift(pc);
        this.lastGridCol = gridCols - 1;
        this.lastPartCols = cols - lastGridCol * pc;
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
        checkScope(Access.READ);
        return arrays.whenGranted(state, partition, Access.READ);
    }

    /** Completed by the node's I/O thread when this node owns the partition: no thread waits meanwhile. */
    @Override
    public final CompletableFuture<Void> acquirePartition(int partition) {
        layout.checkPartition(partition);
        checkScope(Access.READ_WRITE);
        return arrays.whenGranted(state, partition, Access.READ_WRITE);
    }

    /**
     * Counts {@code what} ({@link ArrayCounters#READ_HIT} ..) in the calling thread's row: a plain
     * increment in memory only this thread writes if it is one of the node's workers. On the hit
     * path: no allocation, no lock, no shared write.
     */
    final void count(int what) {
        counts[row() + what]++;
    }

    /** The calling thread's row of {@link #counts}: a worker's own, or the row every other thread shares. */
    private int row() {
        return Thread.currentThread() instanceof WorkerThread w && w.rt == rt ? w.counterRow : otherRow;
    }

    /**
     * Whether {@code view}, a byte-array view of an element type, does {@code getAndSet} on a byte
     * array's first element (the element write hit's exchange, docs/runtime.md, "The write hit's
     * fence"). JDK 25 refuses atomic modes on byte arrays ({@code UnsupportedOperationException});
     * they would also fail ({@code IllegalStateException}) where a byte array's elements do not
     * start at a multiple of the element's size, which holds for every byte array alike.
     *
     * @param zero the element type's zero, boxed
     */
    static boolean exchangeWorks(VarHandle view, Object zero) {
        try {
            view.toMethodHandle(VarHandle.AccessMode.GET_AND_SET).invoke(new byte[16], 0, zero);
            return true;
        } catch (UnsupportedOperationException | IllegalStateException e) {
            return false;
        } catch (Throwable t) {
            throw new ExceptionInInitializerError(t);
        }
    }

    /**
     * The partition of a vector's flat index, which the caller has checked against {@link #vectorLength}: by the
     * reciprocal of the partition length whatever it is (exact for a power of two too), with no branch on the
     * shape, whose profile every vector's reads would share (docs/runtime.md, "A vector's own index path").
     */
    final int vectorPartition(int index) {
        return Reciprocal.divide(index, colReciprocal, colReciprocalShift);
    }

    /**
     * Counts a hit ({@link ArrayCounters#READ_HIT} or {@link ArrayCounters#WRITE_HIT}) if the VM
     * counts hits. In a loop without calls the JIT tests {@link #hitCells} once, outside the loop.
     */
    final void countHit(int what) {
        long[] cells = hitCells;
        if (cells != null) cells[row() + what]++;
    }

    /** Counts a partition-wide access ({@code readPartition}, a region's block) as a hit or a miss by the slot's access now. */
    final void countAccess(Slot s, boolean write) {
        int stamp = s.stamp;
        if (write) {
            if (!Slot.writable(stamp)) count(ArrayCounters.WRITE_MISS);
            else countHit(ArrayCounters.WRITE_HIT);
        } else {
            if (!Slot.readable(stamp)) count(ArrayCounters.READ_MISS);
            else countHit(ArrayCounters.READ_HIT);
        }
    }

    /**
     * Blocks until this node may access {@code partition} as {@code needed}. The caller re-checks
     * the stamp after it returns, because the access can be revoked again at any time.
     */
    final void awaitAccess(int partition, Access needed) {
        checkScope(needed);
        arrays.awaitAccess(state, partition, needed);
    }

    /**
     * Blocks until this node has a read copy of {@code partition} under the engine's grant, which
     * a release scope's cap hides from the hit path ({@link ArrayDirectory#awaitCopy}).
     *
     * @return the slot's stamp that showed the copy: the caller reads and then checks it is unchanged
     */
    final int awaitCopy(int partition) {
        return arrays.awaitCopy(state, partition);
    }

    /**
     * Refuses an access the open scope forbids ({@link Scopes}); on the miss paths only: the
     * scope caps the workers' access, so such an access never hits. In a release scope the
     * typed arrays' miss paths buffer writes and read the buffer before they get here: what
     * reaches this is a request for ownership, which the scope refuses.
     *
     * @throws IllegalStateException naming the array, the use and what to do instead
     */
    final void checkScope(Access needed) {
        ArrayUse.Behaviour use = state.scopeUse;
        if (use == null || (use == ArrayUse.Behaviour.READ_CACHE || use == ArrayUse.Behaviour.RELEASE) && needed == Access.READ) return;
        if (use == ArrayUse.Behaviour.ACCUMULATE) {
            ReleaseBuffer combined = state.accumulating;
            String op = combined == null ? "" : combined.op.toString();
            throw new IllegalStateException("array '" + name() + "' is accumulate(" + op + ") in the open scope: only accumulate with "
                    + op + " is allowed until the scope closes (its elements are known once the homes have combined every node's"
                    + " updates); read or write it after the scope closes");
        }
        if (use == ArrayUse.Behaviour.RELEASE) {
            throw new IllegalStateException("array '" + name() + "' is release in the open scope: its writes are buffered at this "
                    + "node until the scope closes, so it cannot be owned (acquirePartition) nor accumulated into (an accumulate "
                    + "would reach the home before the buffered writes); write it, or do this after the scope closes");
        }
        if (use == ArrayUse.Behaviour.READ_CACHE) {
            throw new IllegalStateException("array '" + name() + "' is read-cache in the open scope: it cannot be written until "
                    + "the scope closes");
        }
        throw new IllegalStateException("array '" + name() + "' is owner-computes in the open scope: use scope.local(array, "
                + "partition) for this node's partitions; other accesses to it fail until the scope closes");
    }

    /**
     * Starts the request for {@code needed} on {@code partition} if this node lacks it, without
     * waiting: a region access calls it for every partition it covers before it copies any, so
     * their misses overlap. Only a hint: the copy re-checks the access and waits for it.
     */
    final void prefetch(int partition, Access needed) {
        if (Slot.accessOf(slots[partition].stamp).allows(needed)) return;
        if (needed == Access.READ_WRITE && state.release != null) return; // a buffered write fetches nothing
        checkScope(needed);
        rt.checkFailed();
        arrays.post(state, partition, needed);
    }

    /**
     * A write of every element of {@code partition} is about to start, from {@code region} (the
     * typed array; the partition's first element at row {@code bufRow}, column {@code bufCol}, rows
     * {@code bufWidth} apart): if this node holds no valid copy of the partition and is not its home,
     * outside scopes, offers the bytes to the slot and posts the request, which the I/O thread asks
     * for without data ({@link Overwrite}; docs/runtime.md, "Writes that cover a partition").
     *
     * @return the offered overwrite, for {@link #awaitOverwrite}, or null if none applies (the
     *         caller writes as usual)
     */
    final Overwrite offerOverwrite(int partition, Object region, int bufRow, int bufCol, int bufWidth) {
        Slot s = slots[partition];
        if (state.release != null || state.scopeUse != null || layout.homeOf(partition) == rt.nodeId
                || Slot.grantedOf(s.stamp) != Access.NONE || s.overwrite() != null) {
            return null;
        }
        rt.checkFailed();
        Overwrite o = new Overwrite(partition, region, bufRow, bufCol, bufWidth, layout.partitionRows(partition),
                layout.partitionCols(partition));
        if (!s.offerOverwrite(o)) return null;
        arrays.postOverwrite(state, partition);
        return o;
    }

    /**
     * Waits until {@code o}'s bytes are in the partition: written by the I/O thread at the grant
     * that came without data, or, if this node got the access another way, taken back for the
     * caller to write.
     *
     * @return true if written at the grant; false if the caller must write the bytes itself
     */
    final boolean awaitOverwrite(Overwrite o) {
        Slot s = slots[o.partition];
        try {
            while (true) {
                int settled = o.settle(s);
                if (settled == Overwrite.WRITTEN) {
                    count(ArrayCounters.WRITE_MISS);
                    return true;
                }
                if (settled == Overwrite.TAKEN_BACK) return false;
                awaitAccess(o.partition, Access.READ_WRITE);
            }
        } catch (RuntimeException e) {
            if (o.takeBack()) s.dropOverwrite(o);
            throw e;
        }
    }

    /**
     * {@code writePartition}'s bytes, from {@code src}, as an overwrite when one applies.
     *
     * @return whether they were written at the grant (else the caller writes them)
     */
    final boolean overwritePartition(int partition, Object src) {
        Overwrite o = offerOverwrite(partition, src, 0, 0, layout.partitionCols(partition));
        return o != null && awaitOverwrite(o);
    }

    /**
     * An element read missed on {@code partition}, outside scopes: if the node has missed on it
     * before and this is the first such miss since the last global round, requests every other
     * partition the node missed on before and lacks now, from the one after it on (at most
     * {@link #REGION_AHEAD_BYTES}), so that their transfers travel together instead of one round
     * trip after another ({@link ReturningReads}; docs/runtime.md, "Returning reads"). Only a
     * hint, like {@link #prefetch}.
     */
    final void returningRead(int partition) {
        if (!returningReads || state.scopeUse != null) return;
        ReturningReads marks = state.returningReads;
        if (!marks.missed(partition, rt.barriers.globalRounds())) return;
        long bytes = layout.partitionBytes(partition);
        int requested = 0;
        for (int q = marks.nextInWave(partition, partition); q >= 0 && bytes < REGION_AHEAD_BYTES; q = marks.nextInWave(partition, q)) {
            if (Slot.readable(slots[q].stamp)) continue;
            // the missed one's request goes out first, and only if others follow: alone, the wait posts it
            if (requested == 0) prefetch(partition, Access.READ);
            prefetch(q, Access.READ);
            bytes += layout.partitionBytes(q);
            requested++;
        }
        marks.requested(requested);
    }

    /**
     * Where flat index {@code index} lies (as {@code read(int)} addresses it), for {@code gather}:
     * the partition in the high 32 bits, the element's position in the partition in the low ones.
     * The element hits keep this arithmetic written out (a packed result measured slower per hit).
     *
     * @throws IndexOutOfBoundsException naming the index and the array's range
     */
    final long locate(int index) {
        if (rows == 1 && Integer.compareUnsigned(index, cols) < 0) {   // a 1-D array (or one row): the column alone
            if (colShift >= 0) return (long) (index >>> colShift) << 32 | (index & colMask);
            int gridCol = Reciprocal.divide(index, colReciprocal, colReciprocalShift);
            return (long) gridCol << 32 | (index - gridCol * partCols);
        }
        int row;
        int col;
        if (flatShift >= 0 && index >= 0 && index < (long) rows * cols) {
            row = index >>> flatShift;
            col = index & (cols - 1);
        } else {
            row = rowOfIndex(index);   // throws, naming the index and its range
            col = colOfIndex(index);
        }
        int p;
        int at;
        if (rowShift >= 0) {
            p = (row >>> rowShift) * gridCols + (col >>> colShift);
            at = ((row & rowMask) << colShift) | (col & colMask);
        } else {
            int gridRow = Reciprocal.divide(row, rowReciprocal, rowReciprocalShift);
            int gridCol = Reciprocal.divide(col, colReciprocal, colReciprocalShift);
            p = gridRow * gridCols + gridCol;
            int width = gridCol == lastGridCol ? lastPartCols : partCols;
            at = (row - gridRow * partRows) * width + col - gridCol * partCols;
        }
        return (long) p << 32 | at;
    }

    /**
     * The partition of flat index {@code index} (already checked to be inside the array), for the
     * loops of {@code gather} and {@code scatter}: a 1-D array's arithmetic written out (the JIT
     * inlines it and keeps the loop-invariant conditions out of the loop), any other through
     * {@link #locate}. With {@link #positionOf} it replaces the packed result of {@code locate},
     * which measured slower per element.
     */
    final int partitionOfIndex(int index) {
        if (rows == 1) return colShift >= 0 ? index >>> colShift : Reciprocal.divide(index, colReciprocal, colReciprocalShift);
        return (int) (locate(index) >>> 32);
    }

    /** The element position of flat index {@code index} in its partition {@code p} ({@link #partitionOfIndex}). */
    final int positionOf(int index, int p) {
        if (rows == 1) return colShift >= 0 ? index & colMask : index - p * partCols;
        return (int) locate(index);
    }

    /**
     * {@code readPartition(partition)} is about to run: if it is the third read at least of
     * consecutive partitions and is homed at another node, the reads are a sequential loop over
     * remote data, and the partitions up to {@code prefetchWindow} ahead (and at most
     * {@link #REGION_AHEAD_BYTES}) are requested now, so that several transfers are in flight.
     * Owner-computes code reads an operand and then its own block, which can be the partition
     * after it (LU's trailing update reads {@code L(i,k)} of another node, then its {@code (i,k+1)};
     * after the last block of the row before, it reads {@code L(i,0)}): taken for a loop, such a
     * pair fetched the blocks after it, other nodes' blocks the program never reads here, and each
     * was a copy its home had to invalidate at its next write. So two reads are no loop yet, and a
     * read of a partition homed here starts no requests (it costs no round trip to run ahead of);
     * docs/runtime.md, "Prefetch: only runs of remote reads".
     */
    final void sequentialRead(int partition) {
        if (prefetchWindow == 0) return;
        int previous = lastRead;
        lastRead = partition;
        if (partition != previous + 1) {
            prefetchedTo = partition;
            sequentialRun = 1;
            return;
        }
        if (++sequentialRun < 3 || layout.homeOf(partition) == rt.nodeId) return;
        long bytes = Math.max(1, layout.partitionBytes(partition));
        int window = (int) Math.max(1, Math.min(prefetchWindow, REGION_AHEAD_BYTES / bytes));
        int to = Math.min(partition + window, slots.length - 1);
        prefetch(partition, Access.READ); // this one's request goes out first
        for (int q = Math.max(prefetchedTo + 1, partition + 1); q <= to; q++) prefetch(q, Access.READ);
        prefetchedTo = Math.max(prefetchedTo, to);
    }

    /**
     * Walks the partitions the region covers, copying each intersection under one access
     * ({@link #copyBlock}); {@code buf} is the typed array. Requests run ahead of the copy, up to
     * {@link #REGION_AHEAD_BYTES} (at least the partition being copied), so that misses travel
     * together instead of one round trip after another without the whole region in flight at once;
     * the copy waits for each.
     */
    final void region(int row, int col, int rows, int cols, Object buf, boolean write) {
        if (rows == 0 || cols == 0) return;
        int pr = layout.spec().partitionRows();
        int pc = layout.spec().partitionCols();
        int lastRow = row + rows;
        int lastCol = col + cols;
        boolean ahead = rows > pr - row % pr || cols > pc - col % pc; // several partitions
        Access needed = write ? Access.READ_WRITE : Access.READ;
        int nextRow = row;
        int nextCol = col;
        long bytesAhead = 0;
        int requested = 0;
        int copied = 0;
        // the partitions the write covers whole, offered as overwrites (asked for without data), in request order
        java.util.ArrayDeque<Overwrite> overwrites = null;
        try {
            for (int r0 = row; r0 < lastRow; r0 = (r0 / pr + 1) * pr) {
                int r1 = Math.min(lastRow, (r0 / pr + 1) * pr);
                for (int c0 = col; c0 < lastCol; c0 = (c0 / pc + 1) * pc) {
                    int c1 = Math.min(lastCol, (c0 / pc + 1) * pc);
                    int p = layout.partitionOf(r0, c0);
                    while (ahead && nextRow < lastRow && (requested <= copied || bytesAhead < REGION_AHEAD_BYTES)) {
                        int q = layout.partitionOf(nextRow, nextCol);
                        Overwrite o = write && covers(q, nextRow, nextCol, lastRow, lastCol)
                                ? offerOverwrite(q, buf, nextRow - row, nextCol - col, cols) : null;
                        if (o == null) {
                            prefetch(q, needed);
                        } else {
                            if (overwrites == null) overwrites = new java.util.ArrayDeque<>();
                            overwrites.addLast(o);
                        }
                        bytesAhead += layout.partitionBytes(q);
                        requested++;
                        nextCol = (nextCol / pc + 1) * pc;
                        if (nextCol >= lastCol) {
                            nextCol = col;
                            nextRow = (nextRow / pr + 1) * pr;
                        }
                    }
                    Overwrite o = overwrites != null && !overwrites.isEmpty() && overwrites.peekFirst().partition == p
                            ? overwrites.removeFirst()
                            : !ahead && write && covers(p, r0, c0, lastRow, lastCol) ? offerOverwrite(p, buf, 0, 0, cols) : null;
                    if (o == null || !awaitOverwrite(o)) {
                        copyBlock(p, layout.offsetInPartition(r0, c0), layout.partitionCols(p), r0 - row, c0 - col, r1 - r0, c1 - c0,
                                cols, buf, write);
                    }
                    bytesAhead -= layout.partitionBytes(p);
                    copied++;
                }
            }
        } catch (RuntimeException e) {
            // the job failed: the overwrites not waited for yet are no longer offered (those already asked for stay)
            if (overwrites != null) for (Overwrite o : overwrites) if (o.takeBack()) slots[o.partition].dropOverwrite(o);
            throw e;
        }
    }

    /** @return whether the region up to {@code lastRow x lastCol}, met at its element {@code (r0, c0)}, covers partition {@code p} whole */
    private boolean covers(int p, int r0, int c0, int lastRow, int lastCol) {
        return layout.offsetInPartition(r0, c0) == 0 && r0 + layout.partitionRows(p) <= lastRow && c0 + layout.partitionCols(p) <= lastCol;
    }

    /**
     * Copies a {@code rows x cols} block between partition {@code p} (from element {@code base},
     * rows {@code width} apart) and {@code region} (the typed array, from row {@code bufRow},
     * column {@code bufCol}, rows {@code bufWidth} apart), waiting for the access and redoing a
     * write that raced with a revocation; a read copies one version of the partition.
     */
    abstract void copyBlock(int p, int base, int width, int bufRow, int bufCol, int rows, int cols, int bufWidth, Object region,
                            boolean write);

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
