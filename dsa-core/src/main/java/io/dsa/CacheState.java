package io.dsa;

/** The state of a partition's copy at one node (MSI). */
public enum CacheState {
    /** No valid copy here: an access misses. */
    INVALID,
    /** A read-only copy: reads hit, a write must upgrade. */
    SHARED,
    /** The only valid copy: reads and writes hit. */
    EXCLUSIVE
}
