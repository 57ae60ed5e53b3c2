package io.dsa.agent.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Which partitions of one array this node's workers read element by element epoch after epoch,
 * so that the first such miss of a global round requests the others too (docs/runtime.md,
 * "Returning reads"). A vector that its owners rewrite every step and every node then reads
 * (CG's {@code p}, a stencil's boundary) is otherwise fetched one partition at a time: a worker
 * misses, waits a round trip, reads on, misses on the next partition. Here every partition the
 * node missed on before is <em>marked</em>; a miss on a marked partition is a <em>returning
 * read</em>, and the first one after a global round (a barrier or a collective) starts a
 * <em>wave</em>: the caller requests every other marked partition it lacks, so their transfers
 * travel together.
 *
 * <p>A wave cannot tell whether the node still reads a partition, and the hits on a prefetched
 * copy are not seen. So every {@value #SAMPLE}th wave of the array requests nothing and forgets
 * the marks but the missed partition's: a partition still read misses once in that round and is
 * marked again, one no longer read is not requested again.
 *
 * <p>Shared by the node's workers, on their miss paths only (never on a hit): a mark is an atomic
 * OR, and one worker wins a round's wave by a compare-and-set. A mark lost to a concurrent
 * forgetting costs one miss.
 */
final class ReturningReads {
    /** One wave in this many requests nothing and forgets the marks, so that partitions no longer read drop out. */
    static final int SAMPLE = 8;

    private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle WAVE_ROUND;

    static {
        try {
            WAVE_ROUND = MethodHandles.lookup().findVarHandle(ReturningReads.class, "waveRound", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int partitions;
    /** A bit per partition: missed on by an element read at this node. */
    private final long[] marks;
    /** The global round of the last wave (or forgetting); written by compare-and-set. */
    @SuppressWarnings("unused") // through WAVE_ROUND
    private volatile long waveRound = -1;
    /** Waves started, counted by the winner of each round's compare-and-set only. */
    private int waves;
    /** Partitions requested by waves, as the callers report them ({@link #requested}). */
    private final java.util.concurrent.atomic.AtomicLong requested = new java.util.concurrent.atomic.AtomicLong();

    /** @param partitions the array's partition count */
    ReturningReads(int partitions) {
        this.partitions = partitions;
        this.marks = new long[(partitions + 63) >>> 6];
    }

    /**
     * An element read of {@code partition} missed at this node in global round {@code round}
     * (the rounds this node has seen released): marks it.
     *
     * @return whether this miss starts the round's wave: the partition was marked before, and no
     *         wave (nor forgetting) started in this round yet; the caller then requests the
     *         partitions {@link #nextMarked} gives that it lacks
     */
    boolean missed(int partition, long round) {
        long bit = 1L << partition;
        long before = (long) WORDS.getAndBitwiseOr(marks, partition >>> 6, bit);
        if ((before & bit) == 0) return false; // its first miss here: not a returning read yet
        long last = (long) WAVE_ROUND.getVolatile(this);
        if (last == round || !WAVE_ROUND.compareAndSet(this, last, round)) return false;
        if (++waves % SAMPLE != 0) return true;
        for (int w = 0; w < marks.length; w++) WORDS.setVolatile(marks, w, 0L);
        WORDS.getAndBitwiseOr(marks, partition >>> 6, bit);
        return false;
    }

    /**
     * @return the next marked partition after {@code partition}, wrapping around past the last
     *         one; {@code partition} itself if no other is marked (a partition that just
     *         {@link #missed} is marked, so a walk from it ends at it)
     */
    int nextMarked(int partition) {
        int q = firstMarked(partition + 1, partitions);
        if (q < 0) q = firstMarked(0, partition + 1);
        return q < 0 ? partition : q;
    }

    /**
     * The walk of a wave that started at {@code start}: the marked partitions after it, in order,
     * wrapping around, each once.
     *
     * @param current {@code start} for the first step, then the partition this returned last
     * @return the next partition of the walk, or -1 once it is back at {@code start}; also when a
     *         concurrent forgetting cleared {@code start}'s mark, since the walk never goes back
     *         past its start (a library thread's wave may overlap the next round's forgetting)
     */
    int nextInWave(int start, int current) {
        int next = nextMarked(current);
        int done = Math.floorMod(current - start, partitions);
        int ahead = Math.floorMod(next - start, partitions);
        return ahead == 0 || ahead <= done ? -1 : next;
    }

    /** @return the first marked partition in {@code [from, to)}, or -1 */
    private int firstMarked(int from, int to) {
        if (from >= to) return -1;
        for (int w = from >>> 6; w << 6 < to; w++) {
            long word = (long) WORDS.getVolatile(marks, w);
            if (w == from >>> 6) word &= -1L << from; // the shift takes from's bit in its word
            if (word == 0) continue;
            int found = (w << 6) + Long.numberOfTrailingZeros(word);
            return found < to ? found : -1;
        }
        return -1;
    }

    /** The caller of a wave requested {@code partitions} partitions besides the missed one. */
    void requested(int partitions) {
        if (partitions > 0) requested.addAndGet(partitions);
    }

    /** @return partitions requested by waves so far, besides the missed ones (for tests) */
    long requested() { return requested.get(); }

    /** @return whether {@code partition} is marked (for tests) */
    boolean marked(int partition) {
        return ((long) WORDS.getVolatile(marks, partition >>> 6) & 1L << partition) != 0;
    }
}
