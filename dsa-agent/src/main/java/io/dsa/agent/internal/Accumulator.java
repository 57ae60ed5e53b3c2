package io.dsa.agent.internal;

import io.dsa.ArrayLayout;
import io.dsa.DsaException;
import io.dsa.ElementType;
import io.dsa.ReduceOp;
import io.dsa.agent.wire.AccumulateMessage;
import io.dsa.agent.wire.AccumulatedMessage;
import io.dsa.coherence.Access;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Accumulates into shared arrays by function shipping: a worker's update travels to each
 * partition's home as an {@link AccumulateMessage}, and the home's I/O thread (the owner of its
 * coherence engine) applies it once the home may write the partition, that is after the protocol
 * has invalidated the cached copies or recalled an exclusive one. Every accumulate into a
 * partition is applied by that one thread, one after another in arrival order, so concurrent
 * accumulates of any nodes combine without losing any; the data never travels to the updater.
 * Thread-safe: workers call {@link #accumulate}, the I/O thread {@link #onAccumulate}.
 * {@code AccumulateSimulationTest} checks accumulates racing plain coherence traffic, and finds
 * each {@link Fault}.
 */
final class Accumulator {
    private static final ReduceOp[] OPS = ReduceOp.values();

    /** Known bugs the home can be made to commit, so a test can show its check finds each; package-private. */
    enum Fault {
        /** the home applies an update as soon as it can read the partition, before invalidating the other copies */
        APPLIED_BEFORE_INVALIDATION,
        /** the home applies an update twice */
        APPLIED_TWICE,
        /** the home answers an update without applying it */
        LOST
    }

    /** A known bug to commit (tests only), or null. */
    volatile Fault fault;

    private final int nodeId;
    private final ArrayDirectory arrays;
    private final PendingCalls calls;
    private final JobLifecycle job;
    private final HomeUpdates homes;

    Accumulator(int nodeId, ArrayDirectory arrays, PeerNetwork network, PendingCalls calls, JobLifecycle job, IoThread io) {
        this.nodeId = nodeId;
        this.arrays = arrays;
        this.calls = calls;
        this.job = job;
        this.homes = new HomeUpdates(nodeId, network, calls, io);
    }

    // ---- workers ---------------------------------------------------------------------------------------

    /**
     * Combines the {@code rows x cols} block of {@code src} (row-major, {@code cols} wide) into the
     * region at {@code (row, col)} of {@code a}, one message per partition the region covers, all
     * in flight at once, and waits until every home has applied its part. The caller has checked
     * the region, the buffer and the op.
     *
     * @throws DsaException if a home refuses the update or the job fails first
     */
    void accumulate(ArrayState a, int row, int col, int rows, int cols, Object src, ReduceOp op) {
        List<CompletableFuture<Object>> replies = send(a, row, col, rows, cols, src, op);
        String what = "accumulate into array '" + a.spec.name() + "'";
        for (CompletableFuture<Object> reply : replies) {
            AccumulatedMessage done = (AccumulatedMessage) job.await(reply, what);
            if (!done.error().isEmpty()) throw new DsaException(done.error());
        }
    }

    /** @return the answers to the parts of an accumulate, sent now without waiting (see {@link #accumulate}) */
    List<CompletableFuture<Object>> send(ArrayState a, int row, int col, int rows, int cols, Object src, ReduceOp op) {
        List<CompletableFuture<Object>> replies = new ArrayList<>();
        if (rows == 0 || cols == 0) return replies;
        ArrayLayout layout = a.layout;
        ElementType type = a.spec.elementType();
        int pr = a.spec.partitionRows();
        int pc = a.spec.partitionCols();
        for (int r0 = row; r0 < row + rows; r0 = (r0 / pr + 1) * pr) {
            int r1 = Math.min(row + rows, (r0 / pr + 1) * pr);
            for (int c0 = col; c0 < col + cols; c0 = (c0 / pc + 1) * pc) {
                int c1 = Math.min(col + cols, (c0 / pc + 1) * pc);
                int p = layout.partitionOf(r0, c0);
                byte[] values = Accumulations.pack(type, src, r0 - row, c0 - col, cols, r1 - r0, c1 - c0);
                CompletableFuture<Object> reply = new CompletableFuture<>();
                replies.add(reply);
                AccumulateMessage m = new AccumulateMessage(calls.open(reply), a.id, p, op.ordinal(),
                        layout.offsetInPartition(r0, c0), r1 - r0, c1 - c0, values);
                homes.send(layout.homeOf(p), m, () -> onAccumulate(nodeId, m));
            }
        }
        return replies;
    }

    // ---- the home: the I/O thread ------------------------------------------------------------------------

    /**
     * An accumulate from node {@code from} (this node included) into a partition homed here:
     * applied once this node may write the partition, then answered. An update that does not fit
     * the array is refused with the reason, which the sender's worker throws.
     */
    void onAccumulate(int from, AccumulateMessage m) {
        arrays.whenDefined(m.arrayId(), a -> {
            String error = check(nodeId, a, m);
            if (error != null) {
                homes.answer(from, m.requestId(), new AccumulatedMessage(m.requestId(), error));
                return;
            }
            Fault f = fault;
            Access needed = f == Fault.APPLIED_BEFORE_INVALIDATION ? Access.READ : Access.READ_WRITE;
            arrays.whenAccessible(a, m.partition(), needed, () -> {
                for (int times = f == Fault.LOST ? 0 : f == Fault.APPLIED_TWICE ? 2 : 1; times > 0; times--) {
                    Accumulations.apply(a.spec.elementType(), OPS[m.op()], a.slots[m.partition()].data, m.base(),
                            a.layout.partitionCols(m.partition()), m.rows(), m.cols(), m.values());
                }
                homes.answer(from, m.requestId(), new AccumulatedMessage(m.requestId(), ""));
            });
        });
    }

    /** @return why {@code m} does not fit array {@code a} at node {@code nodeId}, or null if it does */
    static String check(int nodeId, ArrayState a, AccumulateMessage m) {
        int p = m.partition();
        String misplaced = HomeUpdates.misplaced(nodeId, a, p, "accumulate into");
        if (misplaced != null) return misplaced;
        String part = "accumulate into partition " + p + " of array '" + a.spec.name() + "'";
        if (m.op() < 0 || m.op() >= OPS.length) return part + ": unknown reduce op " + m.op() + ", expected [0, " + OPS.length + ")";
        ElementType type = a.spec.elementType();
        if (!OPS[m.op()].appliesTo(type)) return part + ": reduce op " + OPS[m.op()] + " does not apply to " + type + " elements";
        int width = a.layout.partitionCols(p);
        int height = a.layout.partitionRows(p);
        if (m.rows() < 1 || m.cols() < 1 || m.base() < 0 || m.base() >= width * height
                || m.base() % width + m.cols() > width || m.base() / width + m.rows() > height) {
            return part + ": block " + m.rows() + "x" + m.cols() + " at element " + m.base() + " does not fit the partition's "
                    + height + "x" + width + " elements";
        }
        long expected = (long) m.rows() * m.cols() * type.bytes();
        if (m.values().length != expected) {
            return part + ": " + m.values().length + " bytes of values, expected " + expected;
        }
        return null;
    }
}
