package io.dsa;

/**
 * A distributed shared array of {@code float}. Indices are the sequential program's; a 1-D array is
 * addressed by {@code index} (or as row 0). Element access is thread-safe. A read or write that
 * finds a valid copy here sends nothing; a miss blocks until the coherence protocol brings one.
 *
 * @throws IndexOutOfBoundsException from every method, for indices outside the array, with the
 *         value and the valid range
 */
public interface SharedFloatArray extends SharedArray {
    /** @return element {@code (row, col)} */
    float read(int row, int col);

    /** Sets element {@code (row, col)}. */
    void write(int row, int col, float value);

    /** @return element {@code index} of a 1-D array (or of the row-major flattening of a 2-D one) */
    float read(int index);

    /** Sets element {@code index}; see {@link #read(int)}. */
    void write(int index, float value);

    /**
     * Copies a whole partition, row-major within the partition, into {@code dst} (paper:
     * ReadRemotePartition). {@code dst.length} must be at least the partition's element count.
     */
    void readPartition(int partition, float[] dst);

    /** Overwrites a whole partition from {@code src} (paper: WriteRemotePartition). */
    void writePartition(int partition, float[] src);

    /** Copies the region {@code rows x cols} at {@code (row, col)}, row-major, into {@code dst}, across partitions. */
    void read(int row, int col, int rows, int cols, float[] dst);

    /** Writes the region {@code rows x cols} at {@code (row, col)} from {@code src}, row-major, across partitions. */
    void write(int row, int col, int rows, int cols, float[] src);
}
