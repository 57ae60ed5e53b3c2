package io.dsa.coherence;

/** A node's own request under way on a partition, at its home or at a cache: none, a read or a write. */
enum Pending {
    NONE(Access.NONE), READ(Access.READ), WRITE(Access.READ_WRITE);

    /** The access the request asks for. */
    final Access access;

    Pending(Access access) { this.access = access; }
}
