package io.dsa.agent.internal;

import io.dsa.coherence.CoherenceEngine;
import java.util.HashMap;
import java.util.Map;

/**
 * Which partitions homed at this node the home pushes to their readers, and when (docs/runtime.md,
 * "Pushes to returning readers"). A node whose copy of a partition the home invalidated, and that
 * then asked for the partition again, is a <em>returning reader</em>: the partition is rewritten
 * and re-read epoch after epoch (CG's {@code p}, a stencil's boundary rows). At this node's next
 * global arrival (a barrier or a collective, once all its workers have arrived, so none of them
 * writes until the release) the home pushes its copy to each returning reader it has invalidated
 * since the last round ({@link CoherenceEngine#push}), so the reader's next read after the release
 * hits instead of making a round trip.
 *
 * <p>A push cannot tell whether the reader still reads, and a pushed copy makes the home's next
 * write an invalidation. So every {@value #SAMPLE}th round of a partition pushes nothing and forgets
 * its returning readers: a reader that reads in the next epoch misses once and returns, one that
 * stopped reading gets no more pushes. Readers are tracked by node id up to 63 (bit masks); nodes
 * beyond that are never pushed to.
 *
 * <p>Only on the node's I/O thread, which owns the engine, except {@link #pending}.
 */
final class ReaderPushes {
    /** One round in this many pushes nothing and forgets the returning readers, so that readers that stopped are dropped. */
    static final int SAMPLE = 8;
    /** Node ids tracked: the bits of a long. */
    static final int MAX_NODE = 63;

    /** What the home knows of one partition's readers. */
    private static final class History {
        final int arrayId;
        final int partition;
        /** Nodes whose copy the home invalidated since the last round. */
        long invalidated;
        /** Nodes that asked for the partition again after it invalidated their copy. */
        long returned;
        /** Rounds with candidates, counted for {@link #SAMPLE}. */
        int rounds;

        History(int arrayId, int partition) {
            this.arrayId = arrayId;
            this.partition = partition;
        }

        long candidates() { return invalidated & returned; }
    }

    private final Map<Long, History> histories = new HashMap<>();
    /** Whether the VM pushes at all ({@link io.dsa.agent.DsaConfig#readerPushes()}); set before the node runs. */
    private boolean enabled;
    /** Whether some partition has a candidate for the next round: read by the arriving worker, written by the I/O thread. */
    private volatile boolean pending;
    /** Copies pushed (one per node per partition), for the tests. */
    private long pushed;

    /** Turns the pushes on; before the node runs. */
    void enable() { enabled = true; }

    /** The home sent an INV for the partition to {@code node}. */
    void invalidated(int arrayId, int partition, int node) {
        if (!enabled || node > MAX_NODE) return;
        History h = histories.computeIfAbsent(key(arrayId, partition), k -> new History(arrayId, partition));
        h.invalidated |= 1L << node;
        if (h.candidates() != 0) pending = true;
    }

    /** A GET_S for the partition arrived from {@code node}. */
    void requested(int arrayId, int partition, int node) {
        if (!enabled || node > MAX_NODE) return;
        History h = histories.get(key(arrayId, partition));
        if (h == null || (h.invalidated & 1L << node) == 0) return;
        h.returned |= 1L << node;
        pending = true;
    }

    /** @return whether the next round would push (or sample) anything; any thread */
    boolean pending() { return pending; }

    /** This node's workers all arrived at a global round: pushes each partition to its returning readers that it invalidated. */
    void round(CoherenceEngine engine) {
        if (!pending) return;
        pending = false;
        for (History h : histories.values()) {
            long candidates = h.candidates();
            if (candidates == 0) continue;
            if (++h.rounds % SAMPLE == 0) {
                // push nothing this time: a reader still reading misses once and returns (its invalidated bit stays)
                h.returned &= ~candidates;
                continue;
            }
            pushed += engine.push(h.arrayId, h.partition, nodes(candidates));
            h.invalidated &= ~candidates;
        }
    }

    /** @return copies pushed so far */
    long pushed() { return pushed; }

    /** The node left the VM (a clone left, a move): it is nobody's reader any more. */
    void forget(int node) {
        if (node > MAX_NODE) return;
        for (History h : histories.values()) {
            h.invalidated &= ~(1L << node);
            h.returned &= ~(1L << node);
        }
    }

    private static long key(int arrayId, int partition) { return (long) arrayId << 32 | (partition & 0xFFFFFFFFL); }

    private static int[] nodes(long mask) {
        int[] nodes = new int[Long.bitCount(mask)];
        for (int i = 0; mask != 0; i++, mask &= mask - 1) nodes[i] = Long.numberOfTrailingZeros(mask);
        return nodes;
    }
}
