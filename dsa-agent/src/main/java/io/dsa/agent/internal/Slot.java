package io.dsa.agent.internal;

import io.dsa.coherence.Access;

/**
 * One node's copy of one partition and the access rights its workers have on it.
 *
 * <p>The {@link #stamp} packs a version (upper bits) and an {@link Access} ordinal (low 2 bits).
 * Hits read the stamp (volatile), use {@link #data}, and writers re-read the stamp after a full
 * fence: if it changed, a revocation may have copied the partition before the store landed, so
 * the writer redoes the write through the slow path. Revocations write the stamp (volatile)
 * before copying. This is a Dekker pair: either the revoker's copy sees the store, or the
 * writer sees the new stamp. Data arrays are never reused after a revocation, so a late store
 * into a dead array is harmless.
 *
 * <p>Stamp changes happen under the slot's monitor, which waiting workers use to sleep.
 */
final class Slot {
    static final int ACCESS_MASK = 3;
    private static final Access[] ACCESS = Access.values();

    volatile int stamp;
    /** Written before the stamp that publishes it; never null once the slot was first installed. */
    byte[] data;

    Slot(Access access, byte[] data) {
        this.data = data;
        this.stamp = access.ordinal();
    }

    static Access accessOf(int stamp) { return ACCESS[stamp & ACCESS_MASK]; }

    static boolean readable(int stamp) { return (stamp & ACCESS_MASK) >= 1; }

    static boolean writable(int stamp) { return (stamp & ACCESS_MASK) == 2; }

    Access access() { return accessOf(stamp); }

    /** Changes the access; a new version so that in-flight writers notice. */
    synchronized void setAccess(Access access) {
        stamp = ((stamp & ~ACCESS_MASK) + 4) | access.ordinal();
        notifyAll();
    }

    synchronized void install(byte[] newData, Access access) {
        data = newData;
        stamp = ((stamp & ~ACCESS_MASK) + 4) | access.ordinal();
        notifyAll();
    }

    synchronized byte[] snapshot(int bytes) {
        byte[] d = data;
        return d == null ? new byte[bytes] : d.clone();
    }

    synchronized void wakeAll() { notifyAll(); }
}
