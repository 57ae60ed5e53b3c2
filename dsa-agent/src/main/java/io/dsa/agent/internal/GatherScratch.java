package io.dsa.agent.internal;

import io.dsa.coherence.Access;

/**
 * The partitions one {@code gather} or {@code scatter} call has checked, with the stamp and the
 * bytes each showed: the call reads the stamp of a partition once (an acquire) and then loads (or
 * stores) every element of that partition with plain accesses, and checks at the end that no
 * stamp moved (as a region read checks around its copy; a scatter after one full fence, as a
 * write hit does after each store). The bytes are found by partition number in a table, so the
 * per-element path has one load and one branch that is almost never taken (a search of the
 * checked partitions cost a mispredicted branch per element where the indices alternate between
 * partitions). A worker keeps its scratch in its {@link WorkerThread}, any other thread in a
 * thread-local: a gather allocates nothing after a thread's first on an array of as many
 * partitions. Every entry of the table is null between calls.
 *
 * <p>Threads: used by one thread, within one call.
 */
final class GatherScratch {
    /** Partitions checked at once; a gather that touches more checks them in groups of this many. */
    static final int CAPACITY = 16;

    private static final ThreadLocal<GatherScratch> OTHER_THREADS = ThreadLocal.withInitial(GatherScratch::new);

    private final int[] partitions = new int[CAPACITY];
    private final int[] stamps = new int[CAPACITY];
    /** How many partitions the current group has checked. */
    int size;
    /** By partition number: the bytes of a partition the current group checked, else null. Grows, never shrinks. */
    private byte[][] table = new byte[0][];
    /** Partitions a gather requests ahead at most, on its first miss ({@link #prefetchAhead}). */
    static final int AHEAD = 64;

    /** Partitions whose request the current call has started ({@link #prefetchAhead}). */
    private final int[] requested = new int[AHEAD];
    /** Whether the current call has looked ahead for partitions to request (once per call). */
    private boolean lookedAhead;

    /**
     * Starts a gather or a scatter ({@code what}) on {@code a}: checks its arguments ({@code count}
     * indices from {@code from}, each inside the array, and as many elements of a
     * {@code bufLength}-element {@code buf}, "destination" or "source", from {@code bufOffset})
     * before any element moves, so a refused call changes nothing.
     *
     * @return the calling thread's scratch (its own if it is a worker of {@code a}'s node, else its
     *         thread-local one), its table as long as {@code a}'s partition count
     * @throws IndexOutOfBoundsException naming the bad value and the valid range
     * @throws IllegalArgumentException if {@code count} is negative
     */
    static GatherScratch begin(AbstractSharedArray a, String what, int[] indices, int from, int count, int bufLength, int bufOffset,
                               String buf) {
        if (count < 0) throw new IllegalArgumentException(what + " count " + count + " is negative");
        if (from < 0 || from > indices.length - count) {
            throw new IndexOutOfBoundsException(what + " of " + count + " indices from " + from + " does not fit the " + indices.length
                    + " indices given (valid from: 0 to " + Math.max(0, indices.length - count) + ")");
        }
        if (bufOffset < 0 || bufOffset > bufLength - count) {
            throw new IndexOutOfBoundsException(what + " of " + count + " elements at offset " + bufOffset + " does not fit the "
                    + bufLength + "-element " + buf + " (valid offsets: 0 to " + Math.max(0, bufLength - count) + ")");
        }
        long length = a.layout.length();
        for (int k = from; k < from + count; k++) {
            if (indices[k] < 0 || indices[k] >= length) {
                throw new IndexOutOfBoundsException(what + ": indices[" + k + "] = " + indices[k] + " out of range [0, " + length
                        + ") of array '" + a.name() + "'");
            }
        }
        GatherScratch g = Thread.currentThread() instanceof WorkerThread w && w.rt == a.rt ? w.gather : OTHER_THREADS.get();
        if (g.table.length < a.slots.length) g.table = new byte[a.slots.length][];
        g.lookedAhead = false;
        return g;
    }

    /** @return the table by partition (all null between calls), as long as the current call's array's partition count */
    byte[][] table() {
        return table;
    }

    /**
     * The call found {@code indices[k]} in a partition of {@code a} this node may not read (a
     * gather) or write (a scatter) yet: outside scopes, starts the requests for {@code needed} on
     * every partition the rest of the call lacks ({@code indices[k .. end)}, up to {@link #AHEAD}
     * of them), so that their misses overlap as a region access's do. Only a hint, like
     * {@link AbstractSharedArray#prefetch}; at most once per call.
     */
    void prefetchAhead(AbstractSharedArray a, int[] indices, int k, int end, Access needed) {
        if (a.state.scopeUse != null || a.state.release != null || lookedAhead) return;
        lookedAhead = true;   // not again in this call, even if nothing was lacking
        int n = 0;
        for (int i = k; i < end && n < AHEAD; i++) {
            int p = (int) (a.locate(indices[i]) >>> 32);
            if (Slot.accessOf(a.slots[p].stamp).allows(needed)) continue;
            boolean seen = false;
            for (int j = 0; j < n && !seen; j++) seen = requested[j] == p;
            if (seen) continue;
            requested[n++] = p;
            a.prefetch(p, needed);
        }
    }

    /** Records {@code partition} as checked with {@code stamp} and its bytes {@code bytes}. */
    void add(int partition, int stamp, byte[] bytes) {
        partitions[size] = partition;
        stamps[size++] = stamp;
        table[partition] = bytes;
    }

    /** @return whether every checked partition's stamp is still the one it showed (the caller fenced its loads first) */
    boolean unchanged(Slot[] slots) {
        for (int i = 0; i < size; i++) if (slots[partitions[i]].stamp != stamps[i]) return false;
        return true;
    }

    /** Forgets the checked partitions (and drops the table's references to their bytes). */
    void clear() {
        for (int i = 0; i < size; i++) table[partitions[i]] = null;
        size = 0;
    }
}
