package io.dsa;

/**
 * A distributed shared array of {@code double}. Indices are the sequential program's; a 1-D array is
 * addressed by {@code index} (or as row 0). Element access is thread-safe. A read or write that
 * finds a valid copy here sends nothing; a miss blocks until the coherence protocol brings one.
 *
 * @throws IndexOutOfBoundsException from every method, for indices outside the array, with the
 *         value and the valid range
 */
public interface SharedDoubleArray extends SharedArray {
    /** @return element {@code (row, col)} */
    double read(int row, int col);

    /** Sets element {@code (row, col)}. */
    void write(int row, int col, double value);

    /** @return element {@code index} of a 1-D array (or of the row-major flattening of a 2-D one) */
    double read(int index);

    /** Sets element {@code index}; see {@link #read(int)}. */
    void write(int index, double value);

    /**
     * Gathers the elements at flat indices (addressed as {@link #read(int)} addresses them), as
     * Global Arrays' {@code NGA_Gather}: {@code dst[dstOffset + k] = read(indices[from + k])} for
     * {@code k} in {@code [0, count)}. The call checks the coherence state of each partition it
     * touches once instead of once per element, so a gather from valid copies costs little more
     * than the same loop over a plain array (a sparse matrix-vector product's inner loop, for
     * example), and it requests the partitions it lacks together, so that their misses overlap.
     * Each element is a value {@link #read(int)} could have returned: inside a release scope this
     * node's buffered writes, and writes of other nodes that race with the call, without a
     * synchronisation in between, seen for some elements and not others, as with element reads.
     *
     * @throws IndexOutOfBoundsException before any element is read: an index outside the array
     *         (naming its position, its value and the range), or {@code from}, {@code count} and
     *         {@code dstOffset} that do not fit the two arrays (naming the valid values)
     * @throws IllegalArgumentException if {@code count} is negative
     * @throws IllegalStateException as {@link #read(int)}, for an array the open scope does not let this worker read
     */
    void gather(int[] indices, int from, int count, double[] dst, int dstOffset);

    /** Gathers the elements at all of {@code indices} into the start of {@code dst}; see {@link #gather(int[], int, int, double[], int)}. */
    default void gather(int[] indices, double[] dst) {
        gather(indices, 0, indices.length, dst, 0);
    }

    /**
     * Scatters values to flat indices (addressed as {@link #write(int, double)} addresses them), as
     * Global Arrays' {@code NGA_Scatter}: {@code write(indices[from + k], src[srcOffset + k])} for
     * {@code k} in {@code [0, count)}, in that order (an index named twice ends with the later
     * value). The call checks each partition it touches once and fences once per group of
     * partitions, where an element write fences every time, and requests ownership of the
     * partitions it lacks together, so that their misses overlap. Inside a release scope the
     * values are buffered as element writes are.
     *
     * @throws IndexOutOfBoundsException before any element is written: an index outside the array
     *         (naming its position, its value and the range), or {@code from}, {@code count} and
     *         {@code srcOffset} that do not fit the two arrays (naming the valid values)
     * @throws IllegalArgumentException if {@code count} is negative
     * @throws IllegalStateException as {@link #write(int, double)}, for an array the open scope does not let this worker write
     */
    void scatter(int[] indices, int from, int count, double[] src, int srcOffset);

    /** Scatters the start of {@code src} to all of {@code indices}; see {@link #scatter(int[], int, int, double[], int)}. */
    default void scatter(int[] indices, double[] src) {
        scatter(indices, 0, indices.length, src, 0);
    }

    /**
     * Copies a whole partition, row-major within the partition, into {@code dst} (paper:
     * ReadRemotePartition). {@code dst.length} must be at least the partition's element count.
     */
    void readPartition(int partition, double[] dst);

    /** Overwrites a whole partition from {@code src} (paper: WriteRemotePartition). */
    void writePartition(int partition, double[] src);

    /** Copies the region {@code rows x cols} at {@code (row, col)}, row-major, into {@code dst}, across partitions. */
    void read(int row, int col, int rows, int cols, double[] dst);

    /** Writes the region {@code rows x cols} at {@code (row, col)} from {@code src}, row-major, across partitions. */
    void write(int row, int col, int rows, int cols, double[] src);

    /**
     * Combines {@code src} into the region {@code rows x cols} at {@code (row, col)}, row-major:
     * every element becomes {@code op.apply(element, src[i])}. The update is shipped to each
     * partition's home and applied there, one partition at a time, without bringing the data here
     * or taking ownership (Global Arrays' {@code NGA_Acc}): concurrent accumulates from any workers
     * and nodes are all applied, each element's updates one after another. Returns once every
     * partition's home has applied its part; a later read by this thread sees the result, other
     * threads see it after a barrier (docs/consistency.md). Ops: SUM, MIN, MAX and PROD.
     *
     * @throws IllegalArgumentException if {@code op} is not defined for double, or {@code src} is shorter than {@code rows * cols}
     */
    void accumulate(int row, int col, int rows, int cols, double[] src, ReduceOp op);

    /** Combines {@code value} into element {@code (row, col)} at its home; see {@link #accumulate(int, int, int, int, double[], ReduceOp)}. */
    void accumulate(int row, int col, double value, ReduceOp op);

    /** Combines {@code value} into element {@code index} at its home; see {@link #accumulate(int, int, int, int, double[], ReduceOp)}. */
    void accumulate(int index, double value, ReduceOp op);
}
