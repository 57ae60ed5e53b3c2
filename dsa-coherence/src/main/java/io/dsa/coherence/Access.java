package io.dsa.coherence;

/** What the local worker threads of a node may do with their copy of a partition. */
public enum Access {
    /** no valid copy: accesses miss */
    NONE,
    /** reads hit, writes miss */
    READ,
    /** reads and writes hit */
    READ_WRITE;

    /** @return whether this access allows {@code needed} */
    public boolean allows(Access needed) { return ordinal() >= needed.ordinal(); }
}
