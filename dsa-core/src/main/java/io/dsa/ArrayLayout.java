package io.dsa;

/**
 * The index math of one shared array in one virtual machine: which partition holds an element,
 * where in the partition it is, which node is a partition's home, and which block of the array
 * each worker thread owns (the paper's {@code startingIndexAtThread}/{@code maxIndexAtThread}).
 *
 * <p>Partitions are numbered row-major over the partition grid. Edge partitions are ragged when
 * the shape is not a multiple of the partition shape. Elements within a partition are stored
 * row-major in the partition's own (possibly ragged) shape. Immutable and thread-safe; the
 * element methods do not allocate.
 */
public final class ArrayLayout {
    private final ArraySpec spec;
    private final int nodeCount;
    private final int threadsPerNode;
    private final int gridRows;
    private final int gridCols;
    private final int partitionCount;
    private final int nodeGridRows;
    private final int nodeGridCols;
    // Copies of the spec's shape, read on every element access.
    private final int rows;
    private final int cols;
    private final int partRows;
    private final int partCols;
    // Power-of-two partition dimensions: shift and mask replace division and remainder; -1 if not.
    private final int partRowShift;
    private final int partColShift;
    private final int partRowMask;
    private final int partColMask;

    private ArrayLayout(ArraySpec spec, int nodeCount, int threadsPerNode) {
        this.spec = spec;
        this.nodeCount = nodeCount;
        this.threadsPerNode = threadsPerNode;
        this.rows = spec.rows();
        this.cols = spec.cols();
        this.partRows = spec.partitionRows();
        this.partCols = spec.partitionCols();
        this.partRowShift = log2IfPowerOfTwo(partRows);
        this.partColShift = log2IfPowerOfTwo(partCols);
        this.partRowMask = partRows - 1;
        this.partColMask = partCols - 1;
        this.gridRows = ceilDiv(spec.rows(), spec.partitionRows());
        this.gridCols = ceilDiv(spec.cols(), spec.partitionCols());
        long count = (long) gridRows * gridCols;
        if (count > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("array " + spec + " has " + count + " partitions, at most "
                    + Integer.MAX_VALUE + " allowed");
        }
        this.partitionCount = (int) count;
        int r = (int) Math.sqrt(nodeCount);
        while (nodeCount % r != 0) r--;
        this.nodeGridRows = r;
        this.nodeGridCols = nodeCount / r;
    }

    /**
     * @param spec the array
     * @param nodeCount nodes in the VM, at least 1
     * @param threadsPerNode workers per node, at least 1
     * @throws IllegalArgumentException naming the bad value and the valid range
     */
    public static ArrayLayout of(ArraySpec spec, int nodeCount, int threadsPerNode) {
        if (nodeCount < 1) throw new IllegalArgumentException("node count " + nodeCount + " out of range [1, " + Integer.MAX_VALUE + "]");
        if (threadsPerNode < 1) throw new IllegalArgumentException("threads per node " + threadsPerNode + " out of range [1, " + Integer.MAX_VALUE + "]");
        return new ArrayLayout(spec, nodeCount, threadsPerNode);
    }

    // (a + b - 1) / b would overflow for a near Integer.MAX_VALUE; a >= 1 and b >= 1 here.
    private static int ceilDiv(int a, int b) { return (a - 1) / b + 1; }

    private static int log2IfPowerOfTwo(int n) {
        return Integer.bitCount(n) == 1 ? Integer.numberOfTrailingZeros(n) : -1;
    }

    /** @return the spec this layout was made from */
    public ArraySpec spec() { return spec; }

    /** @return rows of the array */
    public int rows() { return spec.rows(); }

    /** @return columns of the array */
    public int cols() { return spec.cols(); }

    /** @return elements in the array */
    public long length() { return (long) spec.rows() * spec.cols(); }

    /** @return nodes of the VM this layout is for */
    public int nodeCount() { return nodeCount; }

    /** @return workers per node */
    public int threadsPerNode() { return threadsPerNode; }

    /** @return rows of the partition grid */
    public int partitionGridRows() { return gridRows; }

    /** @return columns of the partition grid */
    public int partitionGridCols() { return gridCols; }

    /** @return number of partitions */
    public int partitionCount() { return partitionCount; }

    /** @throws IndexOutOfBoundsException if {@code (row, col)} is outside the array */
    public void checkIndex(int row, int col) {
        if (row < 0 || row >= rows) throw outOfRange("row", row, rows);
        if (col < 0 || col >= cols) throw outOfRange(spec.oneDimensional() ? "index" : "col", col, cols);
    }

    private IndexOutOfBoundsException outOfRange(String what, long value, long limit) {
        return new IndexOutOfBoundsException(what + " " + value + " out of range [0, " + limit + ") for array '"
                + spec.name() + "'");
    }

    /** @throws IndexOutOfBoundsException if {@code partition} is not a partition of this array */
    public void checkPartition(int partition) {
        if (partition < 0 || partition >= partitionCount) throw outOfRange("partition", partition, partitionCount);
    }

    /** @return the partition holding {@code (row, col)} @throws IndexOutOfBoundsException if outside */
    public int partitionOf(int row, int col) {
        checkIndex(row, col);
        return gridRowOf(row) * gridCols + gridColOf(col);
    }

    // Row of the partition grid holding array row {@code row}; {@code row} must be valid (>= 0).
    private int gridRowOf(int row) {
        return partRowShift >= 0 ? row >>> partRowShift : row / partRows;
    }

    private int gridColOf(int col) {
        return partColShift >= 0 ? col >>> partColShift : col / partCols;
    }

    /** @return the partition holding element {@code index} of the row-major flattening */
    public int partitionOf(long index) {
        if (index < 0 || index >= length()) throw outOfRange("index", index, length());
        return partitionOf((int) (index / spec.cols()), (int) (index % spec.cols()));
    }

    /** @return the offset of {@code (row, col)} within its partition; indices must be valid */
    public int offsetInPartition(int row, int col) {
        int pc = gridColOf(col);
        int width = partitionColsOf(pc);
        int rowInPartition = partRowShift >= 0 ? row & partRowMask : row - gridRowOf(row) * partRows;
        int colInPartition = partColShift >= 0 ? col & partColMask : col - pc * partCols;
        return rowInPartition * width + colInPartition;
    }

    private int partitionColsOf(int gridCol) {
        int first = gridCol * partCols;
        return Math.min(partCols, cols - first);
    }

    private int partitionRowsOf(int gridRow) {
        int first = gridRow * partRows;
        return Math.min(partRows, rows - first);
    }

    /** @return the first row of {@code partition} */
    public int partitionFirstRow(int partition) {
        checkPartition(partition);
        return (partition / gridCols) * spec.partitionRows();
    }

    /** @return the first column of {@code partition} */
    public int partitionFirstCol(int partition) {
        checkPartition(partition);
        return (partition % gridCols) * spec.partitionCols();
    }

    /** @return rows of {@code partition} (smaller at a ragged edge) */
    public int partitionRows(int partition) {
        checkPartition(partition);
        return partitionRowsOf(partition / gridCols);
    }

    /** @return columns of {@code partition} (smaller at a ragged edge) */
    public int partitionCols(int partition) {
        checkPartition(partition);
        return partitionColsOf(partition % gridCols);
    }

    /** @return elements in {@code partition} */
    public int partitionElements(int partition) {
        return partitionRows(partition) * partitionCols(partition);
    }

    /** @return bytes of {@code partition}'s data */
    public int partitionBytes(int partition) {
        return partitionElements(partition) * spec.elementType().bytes();
    }

    /** @return the home node of {@code partition}, in {@code [0, nodeCount())} */
    public int homeOf(int partition) {
        checkPartition(partition);
        if (spec.distribution() == Distribution.BLOCK) {
            return (int) ((long) partition * nodeCount / partitionCount);
        }
        if (spec.oneDimensional() || gridRows == 1 || gridCols == 1) {
            return partition % nodeCount;
        }
        int pr = partition / gridCols;
        int pc = partition % gridCols;
        return (pr % nodeGridRows) * nodeGridCols + (pc % nodeGridCols);
    }

    /** @return the node grid used by {@link Distribution#BLOCK_CYCLIC}: {@code {rows, cols}} */
    public int[] nodeGrid() { return new int[] {nodeGridRows, nodeGridCols}; }

    /**
     * First index of the block of the array's leading dimension (rows of a 2-D array, elements of
     * a 1-D array) that worker {@code threadId} owns; blocks are contiguous, balanced and in
     * thread-id order.
     */
    public int startingIndexAtThread(int threadId) {
        return (int) ((long) leading() * checkThread(threadId) / globalThreads());
    }

    /** One past the last index of the block owned by {@code threadId}; see {@link #startingIndexAtThread(int)}. */
    public int maxIndexAtThread(int threadId) {
        return (int) ((long) leading() * (checkThread(threadId) + 1) / globalThreads());
    }

    /**
     * The partitions that worker {@code threadId} owns (owner computes): those homed at its node,
     * dealt round-robin to the node's threads in partition order.
     */
    public int[] partitionsOfThread(int threadId) {
        int node = checkThread(threadId) / threadsPerNode;
        int local = threadId % threadsPerNode;
        int count = 0;
        int seen = 0;
        for (int p = 0; p < partitionCount; p++) {
            if (homeOf(p) == node) {
                if (seen % threadsPerNode == local) count++;
                seen++;
            }
        }
        int[] result = new int[count];
        int i = 0;
        seen = 0;
        for (int p = 0; p < partitionCount; p++) {
            if (homeOf(p) == node) {
                if (seen % threadsPerNode == local) result[i++] = p;
                seen++;
            }
        }
        return result;
    }

    private int leading() { return spec.oneDimensional() ? spec.cols() : spec.rows(); }

    private int globalThreads() { return nodeCount * threadsPerNode; }

    private int checkThread(int threadId) {
        if (threadId < 0 || threadId >= globalThreads()) throw outOfRange("thread id", threadId, globalThreads());
        return threadId;
    }

    @Override
    public String toString() {
        return spec + " grid " + gridRows + "x" + gridCols + " over " + nodeCount + " nodes x " + threadsPerNode + " threads";
    }
}
