package io.dsa.agent.internal;

import io.dsa.agent.metrics.ArrayCounts;
import io.dsa.agent.metrics.NodeCounts;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * One node's counts beyond the per-array ones ({@link ArrayCounters}): barrier waits and
 * migration pauses, and the coherence traffic the I/O thread counts into each array. Reads them
 * all at once as a {@link NodeCounts}. Barrier waits come from workers at the same moment, so
 * they go to {@link LongAdder}s; the I/O thread's counts have that one writer.
 */
final class NodeCounters {
    private final String vm;
    private final int nodeId;
    private final LongSupplier bytesIn;
    private final LongSupplier bytesOut;
    private final boolean hitsCounted;
    private final LongAdder barrierWaits = new LongAdder();
    private final LongAdder barrierWaitNs = new LongAdder();
    private final LongAdder migrationPauses = new LongAdder();
    private final LongAdder migrationPauseNs = new LongAdder();

    /**
     * @param bytesIn, bytesOut the transport's byte counts
     * @param hitsCounted whether the node's arrays count their hits ({@code DsaConfig.hitCounts})
     */
    NodeCounters(String vm, int nodeId, LongSupplier bytesIn, LongSupplier bytesOut, boolean hitsCounted) {
        this.hitsCounted = hitsCounted;
        this.vm = vm;
        this.nodeId = nodeId;
        this.bytesIn = bytesIn;
        this.bytesOut = bytesOut;
    }

    /** A worker waited {@code ns} in a barrier (0: it was the last to arrive at a local one). */
    void barrierWait(long ns) {
        barrierWaits.increment();
        barrierWaitNs.add(ns);
    }

    /** Node 0 held a global release for {@code ns} for a move or a cloning. */
    void migrationPause(long ns) {
        migrationPauses.increment();
        migrationPauseNs.add(ns);
    }

    /** The engine sends {@code m} about array {@code a} to another node; on the I/O thread. */
    static void sent(ArrayState a, CoherenceMessage m) {
        if (invalidates(m.op())) a.counters.io(ArrayCounters.INVALIDATIONS_SENT, 1);
        if (m.data() != null) a.counters.io(ArrayCounters.BYTES_OUT, m.data().length);
    }

    /** {@code m} about array {@code a} arrived from another node; on the I/O thread. */
    static void received(ArrayState a, CoherenceMessage m) {
        if (invalidates(m.op())) a.counters.io(ArrayCounters.INVALIDATIONS_RECEIVED, 1);
        if (m.data() != null) a.counters.io(ArrayCounters.BYTES_IN, m.data().length);
    }

    // Both make the receiver give up its copy: INV a shared one, FWD_GET_M an exclusive one.
    private static boolean invalidates(CoherenceOp op) {
        return op == CoherenceOp.INV || op == CoherenceOp.FWD_GET_M || op == CoherenceOp.FWD_GET_M_OVERWRITE;
    }

    /** @return the node's counts now, with those of {@code arrays} sorted by name */
    NodeCounts read(Collection<ArrayState> arrays) {
        List<ArrayCounts> counts = new ArrayList<>();
        for (ArrayState a : arrays) {
            ArrayCounters c = a.counters;
            counts.add(new ArrayCounts(a.spec.name(), c.workers(ArrayCounters.READ_HIT), c.workers(ArrayCounters.WRITE_HIT),
                    c.workers(ArrayCounters.READ_MISS), c.workers(ArrayCounters.WRITE_MISS), c.io(ArrayCounters.INVALIDATIONS_SENT),
                    c.io(ArrayCounters.INVALIDATIONS_RECEIVED), c.io(ArrayCounters.BYTES_IN), c.io(ArrayCounters.BYTES_OUT)));
        }
        counts.sort(Comparator.comparing(ArrayCounts::array));
        return new NodeCounts(vm, nodeId, bytesIn.getAsLong(), bytesOut.getAsLong(), barrierWaits.sum(), barrierWaitNs.sum(),
                migrationPauses.sum(), migrationPauseNs.sum(), counts, hitsCounted);
    }
}
