package io.dsa.agent.internal;

import io.dsa.CacheState;
import io.dsa.ElementType;
import io.dsa.coherence.Access;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One node's copy of one partition, the access its workers have to it, and the workers waiting
 * for that access. The only translation of the coherence engine's word into worker access: the
 * engine's store ({@link ArrayDirectory}) calls {@link #grant}, {@link #install} and
 * {@link #materialize}, all on the node's I/O thread, which owns the engine; workers read the
 * {@link #stamp} and wait for it to change ({@link Waiting#await}). The one change a worker makes
 * is a scope's cap ({@link #cap}, by the node's first worker into a scope or last out of one), so
 * every change of the stamp is a compare-and-set that recomputes the workers' access from the
 * grant, the bytes and the cap it sees: a cap and a grant that race both land.
 *
 * <p><b>Stamp.</b> The volatile {@link #stamp} packs a version (from bit 4 up), the access the
 * engine granted this node (bits 2-3, an {@link Access} ordinal) and the access the workers have
 * (bits 0-1). The two differ only while the slot has no {@link #data} yet (a partition homed here
 * and never touched is all zeros, readable and writable as far as the engine knows, and gets its
 * bytes on first local use, {@link #materialize}), or while a scope caps the workers' access
 * ({@link #cap}). Whenever the workers' access is not NONE,
 * {@link #data} is not null. Every change makes a new version and then wakes the waiters.
 *
 * <p><b>Hits and revocations.</b> Element read hits use the {@link ReadView} published with the
 * last stamp ({@link #readView}, read without an acquire; region reads and misses read the stamp);
 * writers read the stamp, store into {@link #data}, make a full fence (or store with an atomic exchange, which is one) and read the stamp again: if it changed, a revocation may have copied the partition
 * before the store landed, so the writer redoes the write through the miss path. A revocation
 * writes the stamp before the engine copies or lends the bytes. This is a Dekker pair: either the
 * revoker's copy holds the store, or the writer sees the new stamp.
 *
 * <p><b>One array per slot, refilled in place.</b> A copy that arrives from the network is decoded
 * straight into this slot's own array when the workers have no access ({@link #receiveBuffer}),
 * and a slot's array is never handed to another partition or array. So a writer that read a
 * writable stamp before a revocation can store into the array after the revocation, even after the
 * refill that follows it. That early store is harmless: the writer's re-check sees the changed
 * stamp and redoes the write through the protocol, storing the same value into the current copy,
 * so the store can be observed only by accesses that race with that very write (in a data-race-free
 * program, nobody else writes that element meanwhile, and a read of it that races with the write
 * may return either value). A refill cannot resurrect a stale value either: it is the home's
 * current copy, and a writer whose store it overwrote redoes the store. A read hit that races
 * with a revocation and a refill returns a value the element had in one of the copies; an element
 * that differs between them was written by a write that races with that read.
 * {@code SlotLincheckTest} checks writers racing a revocation, an in-place refill and a new grant.
 */
final class Slot extends WaitPoint {
    /** Bits 0-1: the workers' access. */
    static final int ACCESS_MASK = 3;
    /** Bits 2-3: the engine's grant. */
    private static final int GRANTED_SHIFT = 2;
    /** One version. */
    private static final int VERSION = 16;
    private static final Access[] ACCESS = Access.values();
    private static final CacheState[] CACHE_STATE = {CacheState.INVALID, CacheState.SHARED, CacheState.EXCLUSIVE};
    private static final java.lang.invoke.VarHandle STAMP;
    private static final java.lang.invoke.VarHandle OVERWRITE;
    private static final java.lang.invoke.VarHandle VIEWS = java.lang.invoke.MethodHandles.arrayElementVarHandle(ReadView[].class);

    static {
        try {
            STAMP = java.lang.invoke.MethodHandles.lookup().findVarHandle(Slot.class, "stamp", int.class);
            OVERWRITE = java.lang.invoke.MethodHandles.lookup().findVarHandle(Slot.class, "overwrite", Overwrite.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    volatile int stamp;
    /**
     * The array's views by partition, of which this slot's is {@code views[index]}: what an element
     * read hit uses ({@link #readView}), replaced by a new {@link ReadView} after every change of the
     * stamp and read by the hit path without an acquire, straight from the array (one load fewer on
     * the hit's chain of dependent loads than a field of the slot). Written with volatile stores by
     * the threads that publish it (the I/O thread, and a worker setting a scope's cap), so their
     * last write is the view of the last stamp.
     */
    private final ReadView[] views;
    private final int index;

    /**
     * The slot as an element read sees it: the array the workers may read, or null if they may
     * not, in a final field, made after the bytes it covers were written (docs/runtime.md, "Read
     * hits through a published view"). A thread that sees a view sees those bytes (the final-field
     * rule of the Java memory model), so a read hit needs no acquire.
     */
    static final class ReadView {
        /** No access. */
        static final ReadView NONE = new ReadView(null);
        /** The slot's array when the workers may read it, else null. */
        final byte[] data;

        private ReadView(byte[] data) {
            this.data = data;
        }
    }

    /**
     * @return the readers' view, read plainly: the hit path's. A worker past a synchronisation sees
     *         the view of every stamp change made before it, or a later one.
     */
    ReadView readView() { return (ReadView) VIEWS.get(views, index); }

    // After a change of the stamp: the view of the stamp now. A publisher racing another (the I/O thread and a cap) writes
    // again until the stamp did not change meanwhile, so the last view written is the last stamp's.
    private void publishView() {
        int st;
        do {
            st = stamp;
            if (staleViewsOnRevocation && !readable(st)) return;
            VIEWS.setVolatile(views, index, readable(st) ? new ReadView(data) : ReadView.NONE);
        } while (stamp != st);
    }
    /** Written by the I/O thread before the stamp that publishes it; never replaced by another partition's array. */
    byte[] data;
    /**
     * The cache of {@link #bulkView}: a plain field holding an immutable pair, so a thread sees
     * null or a view with the array it was made for, which it checks against {@link #data}.
     */
    private BulkView bulk;
    /** Accesses a worker posted and the I/O thread has not served yet (see {@link ArrayDirectory#post}). */
    volatile int posted;
    /** The most the workers get while a scope is open (READ_WRITE outside scopes); set by {@link #cap}. */
    private volatile Access cap = Access.READ_WRITE;
    /** A worker's bytes for all of this partition, waiting for its request without data ({@link Overwrite}); null if none. */
    private volatile Overwrite overwrite;
    /** Tests only ({@code SlotCapLincheckTest}): the seeded bug of a plain store of the stamp instead of a compare-and-set. */
    boolean plainStampStores;
    /** Tests only ({@code SlotLincheckTest}): the seeded bug of a revocation that leaves the readable view in place. */
    boolean staleViewsOnRevocation;

    /**
     * @param granted the engine's initial grant: READ_WRITE for a partition homed here (untouched,
     *        so the workers get access once it has bytes), NONE for one homed elsewhere
     */
    Slot(Access granted) {
        this(granted, new ReadView[1], 0);
    }

    /**
     * @param granted as for {@link #Slot(Access)}
     * @param views the array's views by partition, shared by its slots (the hit path reads them)
     * @param index this slot's partition, its place in {@code views}
     */
    Slot(Access granted, ReadView[] views, int index) {
        this.views = views;
        this.index = index;
        VIEWS.setVolatile(views, index, ReadView.NONE);
        this.stamp = granted.ordinal() << GRANTED_SHIFT;
    }

    static Access accessOf(int stamp) { return ACCESS[stamp & ACCESS_MASK]; }

    static boolean readable(int stamp) { return (stamp & ACCESS_MASK) >= 1; }

    static boolean writable(int stamp) { return (stamp & ACCESS_MASK) == 2; }

    /** @return the workers' access now */
    Access access() { return accessOf(stamp); }

    /** @return the engine's grant now, which the workers have once the slot has bytes */
    Access granted() { return grantedOf(stamp); }

    /** @return the engine's grant in {@code stamp} */
    static Access grantedOf(int stamp) { return ACCESS[(stamp >>> GRANTED_SHIFT) & ACCESS_MASK]; }

    /** @return whether the engine's grant in {@code stamp} lets this node read its copy, whatever a scope's cap says */
    static boolean grantReadable(int stamp) { return (stamp >>> GRANTED_SHIFT & ACCESS_MASK) >= 1; }

    /**
     * @return what the node may do with its bytes as far as the engine is concerned: the grant
     *         once the slot has bytes, NONE before; a scope's cap does not lower it (the I/O
     *         thread writes a diff or an accumulate into a capped slot, a release scope's reads
     *         read it)
     */
    Access usable() { return data == null ? Access.NONE : granted(); }

    /** @return this node's copy as a cache sees it: the engine's grant as INVALID, SHARED or EXCLUSIVE */
    CacheState cacheState() { return CACHE_STATE[(stamp >>> GRANTED_SHIFT) & ACCESS_MASK]; }

    @Override
    long version() { return stamp; }

    // ---- every change of the stamp: the I/O thread's, and a scope's cap ---------------------------------

    /** The engine raises or lowers this node's access; the workers get it if the slot has bytes. */
    void grant(Access access) {
        publish(access, data == null ? Access.NONE : access);
    }

    /**
     * The engine installs a copy with {@code access}: {@code newData} is this slot's own array
     * (decoded in place) or, once, its first array.
     */
    void install(byte[] newData, Access access) {
        data = newData;
        publish(access, access);
    }

    /**
     * A local worker needs the access the engine has granted, but the slot has no bytes yet (a
     * partition homed here, never touched): allocates its zeros and gives the workers the grant.
     *
     * @return whether the slot had no bytes (and now has)
     */
    boolean materialize(int bytes) {
        if (data != null) return false;
        Access granted = granted();
        if (granted == Access.NONE) return false;
        data = new byte[bytes];
        publish(granted, granted);
        return true;
    }

    /**
     * A scope opens or closes: the workers get at most {@code limit} of the engine's grant from
     * now on (READ for a read cache, NONE for owner computes, READ_WRITE again at exit), so
     * accesses a scope forbids miss and fail there instead of hitting. The engine's grant is
     * unchanged. Any thread: called by the worker that sets a scope up or tears it down, while no
     * worker of the node uses the slot.
     */
    void cap(Access limit) {
        cap = limit;
        int old;
        int next;
        do {
            old = stamp;
            Access granted = grantedOf(old);
            next = stamp(old, granted, data == null ? Access.NONE : granted);
        } while (!setStamp(old, next));
        publishView();
        wake();
    }

    private void publish(Access granted, Access workers) {
        int old;
        do {
            old = stamp;
        } while (!setStamp(old, stamp(old, granted, workers)));
        publishView();
        wake();
    }

    private boolean setStamp(int old, int next) {
        if (!plainStampStores) return STAMP.compareAndSet(this, old, next);
        stamp = next;
        return true;
    }

    // The stamp after old with a new version, the grant and the workers' access at most the cap.
    private int stamp(int old, Access granted, Access workers) {
        Access limit = cap;
        if (workers.ordinal() > limit.ordinal()) workers = limit;
        return ((old & ~(VERSION - 1)) + VERSION) | granted.ordinal() << GRANTED_SHIFT | workers.ordinal();
    }

    /**
     * @return this slot's own array for a copy of {@code bytes} bytes arriving from the network, or
     *         null if the engine grants the current bytes (a worker may be given them by lifting a
     *         cap, {@link #cap}, while the copy is decoded) or the workers may access them (or it
     *         has none, or another size)
     */
    byte[] receiveBuffer(int bytes) {
        byte[] d = data;
        return d != null && d.length == bytes && (stamp & (ACCESS_MASK << GRANTED_SHIFT | ACCESS_MASK)) == 0 ? d : null;
    }

    /**
     * @return the slot's own array (zeros if it has none yet), lent to a send that encodes it at
     *         once; never to be kept or modified. The workers' access was lowered first.
     */
    byte[] lend(int bytes) {
        byte[] d = data;
        return d == null ? new byte[bytes] : d;
    }

    /** @return a copy of the bytes (zeros if none), for a state image at a safe point */
    byte[] snapshot(int bytes) {
        byte[] d = data;
        return d == null ? new byte[bytes] : d.clone();
    }

    /**
     * {@link #snapshot} without the copy: the slot's own bytes (zeros for a slot without), valid only while nothing
     * writes the slot (a safe point), for a caller that copies them before it ends.
     */
    byte[] bytesAtSafePoint(int bytes) {
        byte[] d = data;
        return d == null ? new byte[bytes] : d;
    }

    // ---- a worker's overwrite (docs/runtime.md, "Writes that cover a partition") ------------------------

    /** A worker offers its bytes for all of the partition. @return false if another overwrite waits here */
    boolean offerOverwrite(Overwrite o) { return OVERWRITE.compareAndSet(this, null, o); }

    /** @return the overwrite waiting here, or null */
    Overwrite overwrite() { return overwrite; }

    /** The worker that offered {@code o} took it back: it is no longer waiting here. */
    void dropOverwrite(Overwrite o) { OVERWRITE.compareAndSet(this, o, null); }

    /** @return the overwrite waiting here, no longer waiting (the I/O thread, at its grant), or null */
    Overwrite takeOverwrite() { return (Overwrite) OVERWRITE.getAndSet(this, null); }

    /**
     * @return the slot's array for an overwrite's bytes, made (zeros) if the slot has none; on the I/O thread while
     *         the engine grants no access (so no thread reads the array before the stamp that follows)
     */
    byte[] arrayForOverwrite(int bytes) {
        if (data == null) data = new byte[bytes];
        return data;
    }

    /** @return whether the slot has bytes */
    boolean allocated() { return data != null; }

    /**
     * A little-endian view of {@link #data} as {@code type}'s buffer ({@code DoubleBuffer}, ...), for
     * absolute bulk gets and puts: they copy memory in one go where a {@code VarHandle} loop converts
     * one element at a time, and move no position, so threads share the view. Made once per array
     * and kept, so a copy allocates nothing after the slot's first; a thread that finds none, or
     * one made for an earlier array, makes its own. Only while {@link #data} is not null: after the
     * stamp allowed an access, or on the I/O thread.
     */
    Buffer bulkView(ElementType type) {
        byte[] d = data;
        BulkView b = bulk;
        if (b != null && b.data() == d) return b.view();
        ByteBuffer bytes = ByteBuffer.wrap(d).order(ByteOrder.LITTLE_ENDIAN);
        Buffer view = switch (type) {
            case DOUBLE -> bytes.asDoubleBuffer();
            case FLOAT -> bytes.asFloatBuffer();
            case INT -> bytes.asIntBuffer();
            case LONG -> bytes.asLongBuffer();
            default -> throw new IllegalArgumentException("no bulk view of " + type + " elements");
        };
        bulk = new BulkView(d, view);
        return view;
    }

    /** A partition's bytes and a typed little-endian view of them. */
    private record BulkView(byte[] data, Buffer view) {}
}
