package io.dsa.agent.internal;

import io.dsa.CacheState;
import io.dsa.coherence.CoherenceEngine;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntPredicate;

/**
 * Which shared copies of partitions homed elsewhere this node drops unasked, and when
 * (self-invalidation; docs/runtime.md, "Self-invalidation"). A copy the home invalidated was
 * rewritten after this node read it; if the node asks for the partition again, the new copy is
 * likely to be rewritten again too (CG's {@code p}, a stencil's boundary rows), and the home's next
 * write then waits for an invalidation round trip to this node. So at this node's next global
 * arrival (a barrier or a collective, once all its workers have arrived, so none of them reads
 * until the release) it drops that copy itself ({@link CoherenceEngine#drop}: a PUT_S to the home,
 * off the writer's path), and the home's write finds no sharer.
 *
 * <p>A dropped copy's next copy is dropped too, so a partition rewritten every epoch is dropped
 * every epoch; but a drop cannot tell whether the home still writes, and a dropped copy costs this
 * node a miss on its next read. So a partition's {@value #STREAK}th drop in a row is left out: that
 * copy is kept, and dropped again only after the home invalidates it (it was written) and the node
 * reads it again. A partition rewritten once and then only read costs at most {@value #STREAK} - 1 misses more.
 *
 * <p>A round's drops are marked by the arriving worker before the node's arrival is sent
 * ({@link #mark}) and run by the I/O thread ({@link #runMarked}) from the task that sends the
 * arrival or, if a safe point comes first, from its wait for quiescence: so a move, clone or
 * checkpoint after the round finds every drop's PUT_S under way and waits for its ack.
 *
 * <p>Only on the node's I/O thread, which owns the engine, except {@link #pending} and {@link #mark}.
 */
final class SelfDrops {
    /** Drops in a row of one partition's copies after which one copy is kept (then only an invalidation starts again). */
    static final int STREAK = 8;

    /** This node's history of one partition homed elsewhere. */
    private static final class History {
        final int arrayId;
        final int partition;
        /** Copies dropped since the last invalidation. */
        int drops;
        /** Whether this node holds a copy received since the last invalidation or drop: the one to drop. */
        boolean held;

        History(int arrayId, int partition) {
            this.arrayId = arrayId;
            this.partition = partition;
        }
    }

    private final Map<Long, History> histories = new HashMap<>();
    /** Whether the VM drops at all ({@link io.dsa.agent.DsaConfig#selfInvalidation()}); set before the node runs. */
    private boolean enabled;
    /** Copies held that the next round would drop: read by the arriving worker, written by the I/O thread. */
    private volatile int held;
    /** A global round's drops are marked and not run yet. */
    private final AtomicBoolean marked = new AtomicBoolean();
    /** Copies dropped, for the tests. */
    private long dropped;

    /** Turns the drops on; before the node runs. */
    void enable() { enabled = true; }

    /**
     * A coherence message arrived, before {@code engine} takes it: an INV of a SHARED copy (the
     * partition was rewritten) or a copy (DATA_S, PUSH_S; seen before the install, which wakes the
     * reader, whose arrival after its reads must find the copy held).
     */
    void beforeMessage(CoherenceMessage m, CoherenceEngine engine) {
        if (!enabled) return;
        if (m.op() == CoherenceOp.INV && engine.cacheState(m.arrayId(), m.partition()) == CacheState.SHARED) {
            invalidated(m.arrayId(), m.partition());
        } else if (m.op() == CoherenceOp.DATA_S || m.op() == CoherenceOp.PUSH_S) {
            installed(m.arrayId(), m.partition());
        }
    }

    /** Marks a global round's drops, before the node's arrival is sent; any thread. */
    void mark() { marked.set(true); }

    /** Runs {@link #round} if a round is marked, once per mark; on the I/O thread. @return the copies dropped */
    int runMarked(CoherenceEngine engine, IntPredicate inScope) {
        return marked.getAndSet(false) ? round(engine, inScope) : 0;
    }

    /** The home's INV for this node's shared copy of the partition arrived (the copy was SHARED): it was rewritten. */
    void invalidated(int arrayId, int partition) {
        if (!enabled) return;
        History h = histories.computeIfAbsent(key(arrayId, partition), k -> new History(arrayId, partition));
        h.drops = 0;
        unhold(h);
    }

    /** A copy of the partition arrived (DATA_S or PUSH_S). */
    void installed(int arrayId, int partition) {
        if (!enabled) return;
        History h = histories.get(key(arrayId, partition));
        if (h == null || h.held) return;
        h.held = true;
        held++;
    }

    /** @return whether the next round would drop a copy; any thread */
    boolean pending() { return held > 0; }

    /**
     * This node's workers all arrived at a global round: drops each copy received since its
     * partition's last invalidation or drop, unless it is the {@value #STREAK}th in a row (then
     * kept, and the partition forgotten until its next invalidation) or the engine has a request
     * under way on it; arrays in a scope here ({@code inScope}) are left alone. On the I/O thread.
     *
     * @return the copies dropped
     */
    int round(CoherenceEngine engine, IntPredicate inScope) {
        int n = 0;
        for (Iterator<History> it = histories.values().iterator(); it.hasNext(); ) {
            History h = it.next();
            if (!h.held) continue;
            if (engine.cacheState(h.arrayId, h.partition) != CacheState.SHARED) {
                unhold(h);   // lost another way meanwhile (an upgrade, a move): nothing to drop
                continue;
            }
            if (inScope.test(h.arrayId)) {
                unhold(h);   // the scope's copy: kept (a later invalidation makes the partition a candidate again)
                continue;
            }
            if (!engine.canDrop(h.arrayId, h.partition)) continue;   // a request under way: the next round looks again
            if (h.drops + 1 >= STREAK) {
                unhold(h);
                it.remove();   // this copy is kept; an invalidation makes the partition a candidate again
                continue;
            }
            engine.drop(h.arrayId, h.partition);
            h.drops++;
            unhold(h);
            n++;
        }
        dropped += n;
        return n;
    }

    /** @return the copies dropped so far */
    long dropped() { return dropped; }

    private void unhold(History h) {
        if (h.held) {
            h.held = false;
            held--;
        }
    }

    private static long key(int arrayId, int partition) { return (long) arrayId << 32 | (partition & 0xFFFFFFFFL); }
}
