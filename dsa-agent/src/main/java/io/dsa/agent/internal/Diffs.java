package io.dsa.agent.internal;

import io.dsa.DsaException;
import io.dsa.ElementType;
import io.dsa.ReduceOp;
import io.dsa.agent.wire.DiffAppliedMessage;
import io.dsa.agent.wire.DiffMessage;
import io.dsa.coherence.Access;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The diffs of release and accumulate scopes (docs/consistency.md, "Release", "Accumulate"): when
 * such a scope closes at a node, the node's buffered writes (combined accumulates) of each partition
 * travel to the partition's home as one {@link DiffMessage}, all in flight at once, and the home's
 * I/O thread (the owner of its coherence engine) writes them (combines them with the scope's op)
 * once the home may write the partition, that is after the
 * protocol has invalidated the cached copies or recalled an exclusive one: the way an accumulate
 * part travels and is applied ({@link Accumulator}). A diff for a partition homed at the sending
 * node goes to the same I/O thread without a message. Thread-safe: the node's last worker to
 * close a scope calls {@link #apply}, the I/O thread {@link #onDiff}. {@code DiffSimulationTest} checks
 * diffs racing plain coherence traffic, and finds each {@link Fault}.
 */
final class Diffs {
    /** Known bugs the home can be made to commit, so a test can show its check finds each; package-private. */
    enum Fault {
        /** the home writes a diff as soon as it can read the partition, before invalidating the other copies */
        APPLIED_BEFORE_INVALIDATION,
        /** the home answers a diff without writing it */
        LOST,
        /** the home writes an accumulate scope's combined values instead of combining them into the elements */
        ACCUMULATE_WRITTEN
    }
    private static final ReduceOp[] OPS = ReduceOp.values();

    private final int nodeId;
    private final ArrayDirectory arrays;
    private final PendingCalls calls;
    private final JobLifecycle job;
    private final HomeUpdates homes;
    /** A known bug to commit (tests only), or null. */
    volatile Fault fault;

    Diffs(int nodeId, ArrayDirectory arrays, PeerNetwork network, PendingCalls calls, JobLifecycle job, IoThread io) {
        this.nodeId = nodeId;
        this.arrays = arrays;
        this.calls = calls;
        this.job = job;
        this.homes = new HomeUpdates(nodeId, network, calls, io);
    }

    // ---- the writer's node -----------------------------------------------------------------------------

    /**
     * Sends the diffs of every buffer of {@code buffered} (one message per partition written, all
     * in flight at once) and waits until every home has written its diff and answered. Only once
     * no worker of this node writes the buffers any more.
     *
     * @throws DsaException if a home refuses a diff or the job fails first
     */
    void apply(List<ArrayState> buffered, String what) {
        for (CompletableFuture<Object> reply : send(buffered)) {
            DiffAppliedMessage done = (DiffAppliedMessage) job.await(reply, what);
            if (!done.error().isEmpty()) throw new DsaException(done.error());
        }
    }

    /** @return the answers to the diffs of {@code buffered}'s buffers, sent now without waiting (see {@link #apply}) */
    List<CompletableFuture<Object>> send(List<ArrayState> buffered) {
        List<CompletableFuture<Object>> replies = new ArrayList<>();
        for (ArrayState a : buffered) {
            for (ReleaseBuffer buffer : a.buffers()) {
                int op = buffer.op == null ? DiffMessage.WRITE : buffer.op.ordinal();
                // the values stay in the buffer (it is cleared only once every diff is answered): the codec, or this
                // node's I/O thread for a partition homed here, reads each run's values where the workers wrote them
                for (ReleaseBuffer.Diff d : buffer.scatteredDiffs()) {
                    CompletableFuture<Object> reply = new CompletableFuture<>();
                    replies.add(reply);
                    DiffMessage m = new DiffMessage(calls.open(reply), a.id, d.partition(), op, d.runs(), d.values(),
                            a.spec.elementType().bytes());
                    homes.send(a.layout.homeOf(d.partition()), m, () -> onDiff(nodeId, m));
                }
            }
        }
        return replies;
    }

    // ---- the home: the I/O thread ------------------------------------------------------------------------

    /**
     * A diff from node {@code from} (this node included) of a partition homed here: written once
     * this node may write the partition, then answered. A diff that does not fit the array is
     * refused with the reason, which the sender's worker throws.
     */
    void onDiff(int from, DiffMessage m) {
        arrays.whenDefined(m.arrayId(), a -> {
            String error = check(nodeId, a, m);
            if (error != null) {
                homes.answer(from, m.requestId(), new DiffAppliedMessage(m.requestId(), error));
                return;
            }
            Fault f = fault;
            Runnable write = () -> {
                if (f != Fault.LOST) write(a, m, f == Fault.ACCUMULATE_WRITTEN);
                homes.answer(from, m.requestId(), new DiffAppliedMessage(m.requestId(), ""));
            };
            Access needed = f == Fault.APPLIED_BEFORE_INVALIDATION ? Access.READ : Access.READ_WRITE;
            arrays.whenAccessible(a, m.partition(), needed, write);
        });
    }

    // Writes the runs' values into the partition, or combines them with the diff's op (an accumulate scope's)
    private static void write(ArrayState a, DiffMessage m, boolean overwrite) {
        write(a.slots[m.partition()].data, a.spec.elementType(), m, overwrite);
    }

    /** Writes {@code m}'s runs into {@code data}, a partition's bytes, or combines them with its op (unless {@code overwrite}). */
    static void write(byte[] data, ElementType type, DiffMessage m, boolean overwrite) {
        int size = type.bytes();
        int v = 0;
        for (long run : m.runs()) {
            int count = DiffMessage.count(run);
            int at = m.valuesAt(run, v);
            if (m.op() == DiffMessage.WRITE || overwrite) {
                System.arraycopy(m.values(), at, data, DiffMessage.first(run) * size, count * size);
            } else {
                Accumulations.apply(type, OPS[m.op()], data, DiffMessage.first(run), count, 1, count, m.values(), at);
            }
            v += count * size;
        }
    }

    /** @return why {@code m} does not fit array {@code a} at node {@code nodeId}, or null if it does */
    static String check(int nodeId, ArrayState a, DiffMessage m) {
        String misplaced = HomeUpdates.misplaced(nodeId, a, m.partition(), "diff of");
        return misplaced != null ? misplaced : checkShape(a, m);
    }

    /** @return why {@code m}'s op, runs or values do not fit its partition of array {@code a}, or null if they do */
    static String checkShape(ArrayState a, DiffMessage m) {
        return checkShape(a, m.partition(), m.op(), m.runs(), m.scatteredElementBytes(), m.values().length);
    }

    /**
     * @param scatteredElementBytes the element size if the values are the partition's whole buffer
     *        ({@link DiffMessage#scattered}), else 0 (packed)
     * @return why a diff of partition {@code p} of array {@code a} with {@code op}, {@code runs} and
     *         {@code valueBytes} bytes of values does not fit, or null if it does
     */
    static String checkShape(ArrayState a, int p, int op, long[] runs, int scatteredElementBytes, int valueBytes) {
        if (p < 0 || p >= a.slots.length) {
            return "diff of partition " + p + " of array '" + a.spec.name() + "': out of range [0, " + a.slots.length + ")";
        }
        String part = "diff of partition " + p + " of array '" + a.spec.name() + "'";
        if (op != DiffMessage.WRITE) {
            if (op < 0 || op >= OPS.length) {
                return part + ": unknown op " + op + ", expected " + DiffMessage.WRITE + " (write) or a reduce op in [0, "
                        + OPS.length + ")";
            }
            if (!OPS[op].appliesTo(a.spec.elementType())) {
                return part + ": reduce op " + OPS[op] + " does not apply to " + a.spec.elementType() + " elements";
            }
        }
        int n = a.layout.partitionElements(p);
        long elements = 0;
        long next = 0; // the first element the next run may start at: runs are increasing and do not touch
        for (long run : runs) {
            long first = DiffMessage.first(run);
            long count = DiffMessage.count(run);
            if (first < next || count < 1 || first + count > n) {
                return part + ": run of " + count + " elements from element " + first + " is out of order or does not fit the "
                        + "partition's " + n + " elements (runs increase, do not touch and hold at least one element)";
            }
            next = first + count + 1;
            elements += count;
        }
        int size = a.spec.elementType().bytes();
        boolean scattered = scatteredElementBytes != 0;
        if (scattered && scatteredElementBytes != size) {
            return part + ": scattered values of " + scatteredElementBytes + "-byte elements, expected " + size;
        }
        long expected = scattered ? (long) n * size : elements * size;   // scattered: the partition's whole buffer
        if (valueBytes != expected) return part + ": " + valueBytes + " bytes of values, expected " + expected;
        return null;
    }
}
