package io.dsa.agent.internal;

import io.dsa.ArrayLayout;
import io.dsa.ArraySpec;
import io.dsa.ArrayUse;
import io.dsa.ReduceOp;
import io.dsa.coherence.Access;
import java.util.List;
import java.util.Map;

/** One array as this node knows it: its id, layout and the node's slot per partition. */
final class ArrayState {
    final int id;
    final ArraySpec spec;
    final ArrayLayout layout;
    final Slot[] slots;
    /** The slots' read views by partition, which the element read hit reads ({@link Slot#readView}). */
    final Slot.ReadView[] views;
    /** Each slot's request task, made on its first miss ({@link ArrayDirectory#post}). */
    final Runnable[] requests;
    /** This node's hits, misses, invalidations and bytes of the array. */
    final ArrayCounters counters;
    /** The partitions this node reads element by element again and again ({@link AbstractSharedArray#returningRead}). */
    final ReturningReads returningReads;
    /** How the scope open at this node uses the array, or null outside scopes ({@link Scopes}). */
    volatile ArrayUse.Behaviour scopeUse;
    /** This node's buffered writes while a release scope over the array is open here, else null ({@link Scopes}). */
    volatile ReleaseBuffer release;
    /**
     * While a read cache over the array that a switch pushed diffs into is open here: those diffs
     * by partition, in node order, which every copy of a partition installed meanwhile gets too
     * ({@link PushedDiffs#apply}); else null. Set by the switch's first worker (or the I/O thread),
     * cleared by the scope's last worker.
     */
    volatile Map<Integer, List<PushedDiffs.Pushed>> patch;
    /**
     * Installs of a copy of a partition of this array under way on the I/O thread, its only
     * writer: 1 from before an install reads {@link #patch} until it published the copy
     * ({@link PushedDiffs#apply} waits for 0 after setting the patch).
     */
    volatile int installing;
    /** The buffer of the last release scope over the array, cleared, kept for the next one (null before the first). */
    private ReleaseBuffer releaseKept;
    /** This node's combined accumulates while an accumulate scope over the array is open here, else null ({@link Scopes}). */
    volatile ReleaseBuffer accumulating;
    /** The buffer of the last accumulate scope over the array, cleared, kept for the next one with the same op. */
    private ReleaseBuffer accumulatingKept;
    /** The plain arrays of the home partitions under owner computes, by partition (null elsewhere); kept for the next scope. */
    Object[] locals;

    ArrayState(int id, ArraySpec spec, int nodeCount, int threadsPerNode, int nodeId) {
        this.id = id;
        this.spec = spec;
        this.layout = ArrayLayout.of(spec, nodeCount, threadsPerNode);
        this.slots = new Slot[layout.partitionCount()];
        this.views = new Slot.ReadView[slots.length];
        this.requests = new Runnable[slots.length];
        this.counters = new ArrayCounters(threadsPerNode);
        this.returningReads = new ReturningReads(slots.length);
        // No partition memory yet, not even at the home: a home partition (all zeros, and readable and
        // writable as far as the engine knows) gets its bytes on first use (see Slot), so creating a
        // large array costs the slot objects only.
        for (int p = 0; p < slots.length; p++) {
            slots[p] = new Slot(layout.homeOf(p) == nodeId ? Access.READ_WRITE : Access.NONE, views, p);
        }
    }

    /** A release scope over the array opens at this node: its workers' writes go to {@link #release} from now on. */
    void openRelease() {
        release = releaseKept != null ? releaseKept : new ReleaseBuffer(this);
    }

    /** An accumulate scope with {@code op} over the array opens at this node: its workers' accumulates go to {@link #accumulating}. */
    void openAccumulate(ReduceOp op) {
        accumulating = accumulatingKept != null && accumulatingKept.op == op ? accumulatingKept : new ReleaseBuffer(this, op);
    }

    /** @return the buffers of the open release or accumulate scope over the array (none, or one) */
    List<ReleaseBuffer> buffers() {
        ReleaseBuffer r = release;
        ReleaseBuffer a = accumulating;
        return r != null ? List.of(r) : a != null ? List.of(a) : List.of();
    }

    /** The release or accumulate scope's diffs have been written: the buffer, cleared, is kept for the next one. */
    void closeRelease() {
        ReleaseBuffer done = release;
        if (done != null) {
            done.clear();
            releaseKept = done;
            release = null;
        }
        ReleaseBuffer combined = accumulating;
        if (combined != null) {
            combined.clear();
            accumulatingKept = combined;
            accumulating = null;
        }
    }
}
