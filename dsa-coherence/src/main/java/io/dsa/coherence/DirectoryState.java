package io.dsa.coherence;

/** The state of a partition's directory entry at its home node (see {@code docs/coherence.md}). */
public enum DirectoryState {
    /** only the home memory is valid; the home's workers have {@link Access#READ_WRITE} (the initial state) */
    HOME,
    /** the home memory and the copies of a set of other nodes (the sharers) are valid; the home has {@link Access#READ} */
    SHARED,
    /** one other node (the owner) holds the only valid copy; the home has {@link Access#NONE} */
    EXCLUSIVE
}
