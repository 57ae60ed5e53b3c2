package io.dsa;

/** How an array's partitions are assigned to home nodes. */
public enum Distribution {
    /** Contiguous runs of partitions (row-major over the partition grid) per node. */
    BLOCK,
    /** Partitions dealt cyclically over a 2-D grid of nodes (ScaLAPACK style); 1-D: round-robin. */
    BLOCK_CYCLIC
}
