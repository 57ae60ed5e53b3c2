package io.dsa.agent.internal;

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
    /** Partitions a gather requests ahead at most, on its first miss ({@link AbstractSharedArray#prefetchAhead}). */
    static final int AHEAD = 64;

    /** Partitions whose request the current call has started ({@link AbstractSharedArray#prefetchAhead}). */
    final int[] requested = new int[AHEAD];
    /** Whether the current call has looked ahead for partitions to request (once per call). */
    boolean lookedAhead;

    /** @return the calling thread's scratch: its own if it is a worker of {@code rt}, else its thread-local one */
    static GatherScratch of(NodeRuntime rt) {
        return Thread.currentThread() instanceof WorkerThread w && w.rt == rt ? w.gather : OTHER_THREADS.get();
    }

    /** @return the table by partition, for an array of {@code partitionCount} partitions (all null) */
    byte[][] table(int partitionCount) {
        if (table.length < partitionCount) table = new byte[partitionCount][];
        return table;
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
