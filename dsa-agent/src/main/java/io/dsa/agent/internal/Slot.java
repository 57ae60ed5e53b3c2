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
 *
 * <p>A slot with no {@link #data} yet has access NONE whatever the engine says: a home partition
 * never touched is all zeros, and its bytes are allocated on first use ({@link #materialize}),
 * when a local worker is granted access or the engine raises the access. Whenever the stamp allows
 * access, {@link #data} is not null.
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

    /** Sets the access, first allocating zeros if the slot has no data yet and the access is not NONE. */
    synchronized void setAccess(Access access, int bytes) {
        if (data == null && access != Access.NONE) data = new byte[bytes];
        setAccess(access);
    }

    /**
     * A local worker was granted {@code access} by the engine on a partition whose bytes were never
     * allocated (a home partition never touched): allocates zeros and publishes the access.
     *
     * @return whether the slot had no data (and now has)
     */
    synchronized boolean materialize(int bytes, Access access) {
        if (data != null) return false;
        install(new byte[bytes], access);
        return true;
    }

    synchronized boolean allocated() { return data != null; }

    synchronized byte[] snapshot(int bytes) {
        byte[] d = data;
        return d == null ? new byte[bytes] : d.clone();
    }

    /**
     * @return the slot's own data array (zeros if it has none yet), lent to a send that encodes it
     *         at once; never to be kept or modified
     */
    synchronized byte[] lend(int bytes) {
        byte[] d = data;
        return d == null ? new byte[bytes] : d;
    }

    synchronized void wakeAll() { notifyAll(); }
}
