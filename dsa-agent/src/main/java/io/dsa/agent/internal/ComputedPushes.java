package io.dsa.agent.internal;

import io.dsa.agent.wire.DiffAppliedMessage;
import io.dsa.agent.wire.PushMessage;
import io.dsa.coherence.Access;
import io.dsa.coherence.CoherenceEngine;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/**
 * Owner computes in update mode (docs/consistency.md, "Owner computes pushed to its sharers"): a
 * global owner-computes scope that does not take ownership of its home partitions when it opens,
 * so the other nodes' copies stay where they are (valid, and stale while the scope is open: no
 * worker reads them, every node caps the array at NONE), and that writes its results into those
 * copies when it closes instead of invalidating them, so a later read of them hits.
 *
 * <ul>
 * <li><b>Opening:</b> each home gets read access to its partitions (an exclusive owner elsewhere
 *     is recalled; the sharers stay) and copies them into the plain arrays
 *     ({@link ScopeDirectory#copyIfHomesGranted}).
 * <li><b>Closing, before the node arrives at the closing round:</b> in one task on the I/O
 *     thread ({@link #closeHomes}), unless the node's own requests for the array are still under
 *     way (a prefetch sent before the scope: it waits for them and asks again), and if every
 *     partition homed here is readable here with nothing under way or queued at it, the node
 *     writes the plain arrays into the partitions the scope changed and sends each sharer the
 *     bytes of the changed partitions it shares, in {@link PushMessage}s of about
 *     {@link #PUSH_BYTES}; then it waits for the answer to the last one to each sharer. Otherwise
 *     (a partition owned elsewhere, or busy) it takes ownership and writes them back as a scope
 *     without update mode does, which invalidates every copy.
 * <li><b>A sharer</b> writes each pushed partition into its copy if it holds one valid, on its
 *     I/O thread, and answers a push that asks ({@link #onPush}); a copy it dropped is left alone.
 * </ul>
 * Why nothing stale survives: the homes write their partitions on the I/O thread, so a request
 * served after that gets the new bytes, and one served before it (sent before the scope) made
 * its requester a sharer, which the push then overwrites: the push never overtakes the reply
 * sent before it on the same connection (a push, not about one partition, keeps its place behind
 * everything sent before it), and the requester installed that reply before it arrived anyway.
 * A sharer handles a home's pushes in the order sent, so the answer to the last means all are
 * written, before the home arrives at the closing round; after the round every copy holds the
 * results, and nothing sent after it can overtake a push.
 *
 * <p>Only global scopes (a group scope's nodes outside the group could read the copies meanwhile,
 * and the group's round does not synchronise them); {@code -Ddsa.ownerComputesPushes=false}
 * turns update mode off (a diagnostic switch, for comparisons). Thread-safe.
 */
final class ComputedPushes {
    /** Known bugs a node can be made to commit, so a test can show its checks find each; package-private. */
    enum Fault {
        /** a sharer answers a push without writing it into its copy */
        NOT_APPLIED,
        /** the homes write their results back without pushing them (their sharers keep the old bytes) */
        NOT_PUSHED
    }

    /**
     * Bytes of partitions one push carries at most (unless a single partition is larger): a
     * transfer's chunk ({@code TransportConfig.DEFAULT_CHUNK_BYTES}, 128 KiB) less room for the
     * push's head, so a push travels in one frame, decoded from it without reassembly.
     */
    static final int PUSH_BYTES = 124 * 1024;
    /** Whether update mode is on (it is unless {@code -Ddsa.ownerComputesPushes=false}). */
    static final boolean ENABLED = !"false".equals(System.getProperty("dsa.ownerComputesPushes"));

    private final int nodeId;
    private final ArrayDirectory arrays;
    private final PeerNetwork network;
    private final PendingCalls calls;
    /** A known bug to commit (tests only), or null. */
    volatile Fault fault;
    /** Per home, the first refusal of a push that asked no answer, told with the answer to its last; on the I/O thread. */
    private final Map<Integer, String> refused = new HashMap<>();
    /** Partitions this node pushed (times their sharers), and pushed partitions it wrote into its copies. */
    final LongAdder pushed = new LongAdder();
    final LongAdder applied = new LongAdder();

    ComputedPushes(int nodeId, ArrayDirectory arrays, PeerNetwork network, PendingCalls calls) {
        this.nodeId = nodeId;
        this.arrays = arrays;
        this.network = network;
        this.calls = calls;
    }

    /** @return whether a scope, global or a group's, uses update mode */
    static boolean applies(boolean global) {
        return ENABLED && global;
    }

    /**
     * What {@link #closeHomes} did: nothing yet, because this node's own requests for the array
     * are still under way ({@code underWay}, each done when granted: the caller waits for them and
     * asks again); nothing, because a home partition cannot be pushed ({@code answers} null: the
     * caller takes ownership and writes the partitions back instead); or the partitions written
     * and pushed, and the sharers' answers to come.
     */
    record Closing(List<CompletableFuture<Void>> underWay, List<CompletableFuture<Object>> answers) {}

    /**
     * Posts to the I/O thread: unless this node has requests for {@code a} under way, and if every
     * partition of {@code a} homed here is readable here (no exclusive owner elsewhere), has its
     * bytes, and has no transaction under way or queued, writes the plain arrays of the scope
     * ({@link ArrayState#locals}) into those partitions and pushes each to its sharers.
     *
     * @return done when the task ran and every answer it asked for came (each answer already in
     *         {@link Closing#answers})
     */
    CompletableFuture<Closing> closeHomes(ArrayState a) {
        // one wait for the caller: the task, then every answer it asked for (the worker is woken once)
        return arrays.onIoThreadLater(() -> closeHomesNow(a)).thenCompose(c -> c.answers() == null || c.answers().isEmpty()
                ? CompletableFuture.completedFuture(c)
                : CompletableFuture.allOf(c.answers().toArray(new CompletableFuture<?>[0])).thenApply(x -> c));
    }

    // closeHomes' task, on the I/O thread
    private Closing closeHomesNow(ArrayState a) {
        CoherenceEngine engine = arrays.engine();
        List<CompletableFuture<Void>> underWay = new ArrayList<>();
        for (int p = 0; p < a.slots.length; p++) {
            Access pending = engine.pendingRequest(a.id, p);
            if (pending != Access.NONE) underWay.add(arrays.whenGranted(a, p, pending));
        }
        if (!underWay.isEmpty()) return new Closing(underWay, List.of());
        for (int p = 0; p < a.slots.length; p++) {
            if (a.layout.homeOf(p) != nodeId) continue;
            Slot s = a.slots[p];
            if (!s.granted().allows(Access.READ) || !s.allocated() || engine.busy(a.id, p) || engine.queuedRequests(a.id, p) > 0) {
                return new Closing(List.of(), null);
            }
        }
        // per sharer, the partitions it holds that the scope changed: pushed in batches of about PUSH_BYTES, only the
        // last one answered (a partition left as it was is neither written back nor pushed)
        Map<Integer, List<Integer>> bySharer = new TreeMap<>();
        for (int p = 0; p < a.slots.length; p++) {
            if (a.layout.homeOf(p) != nodeId || ScopeDirectory.samePartition(a, p, a.locals[p])) continue;
            ScopeDirectory.copyOut(a, p, a.locals[p]);
            if (fault == Fault.NOT_PUSHED) continue;
            for (int sharer : engine.sharers(a.id, p)) bySharer.computeIfAbsent(sharer, k -> new ArrayList<>()).add(p);
        }
        List<CompletableFuture<Object>> answers = new ArrayList<>();
        for (Map.Entry<Integer, List<Integer>> e : bySharer.entrySet()) {
            List<Integer> parts = e.getValue();
            for (int from = 0; from < parts.size(); ) {
                int to = from;
                long bytes = 0;
                while (to < parts.size() && (to == from || bytes + a.layout.partitionBytes(parts.get(to)) <= PUSH_BYTES)) {
                    bytes += a.layout.partitionBytes(parts.get(to++));
                }
                long[] batch = new long[to - from];
                byte[][] sources = new byte[to - from][];
                for (int i = from; i < to; i++) {
                    int p = parts.get(i);
                    batch[i - from] = PushMessage.part(p, a.layout.partitionBytes(p));
                    sources[i - from] = a.slots[p].data;
                }
                long requestId = PushMessage.NO_ANSWER;
                if (to == parts.size()) {
                    CompletableFuture<Object> answer = new CompletableFuture<>();
                    answers.add(answer);
                    requestId = calls.open(answer);
                }
                // the codec copies the partitions' bytes into the frames now, on this thread
                network.send(e.getKey(), new PushMessage(requestId, a.id, batch, sources));
                pushed.add(batch.length);
                from = to;
            }
        }
        return new Closing(List.of(), answers);
    }

    /**
     * A push of node {@code from}'s results ({@link #closeHomes}), on the I/O thread: each
     * partition written into this node's copy if it holds one valid (a copy it dropped meanwhile
     * is fetched, new, when read), then answered if asked; a push that names a partition out of
     * range, homed here or with the wrong byte count is refused with the reason (with the answer
     * to that home's last push), which the home's worker throws.
     */
    void onPush(int from, PushMessage m) {
        arrays.whenDefined(m.arrayId(), a -> {
            String error = check(a, m);
            if (error == null) {
                int at = 0;
                for (long part : m.parts()) {
                    int p = PushMessage.partition(part);
                    int bytes = PushMessage.bytes(part);
                    Slot s = a.slots[p];
                    if (fault != Fault.NOT_APPLIED && Slot.grantReadable(s.stamp) && s.allocated()) {
                        System.arraycopy(m.values(), at, s.data, 0, bytes);
                        applied.increment();
                    }
                    at += bytes;
                }
            }
            if (m.requestId() != PushMessage.NO_ANSWER) {
                String earlier = refused.remove(from);
                String answer = error != null ? error : earlier != null ? earlier : "";
                network.send(from, new DiffAppliedMessage(m.requestId(), answer));
            } else if (error != null) {
                refused.putIfAbsent(from, error);
            }
        });
    }

    // Why push m does not fit array a at this node, or null if it does.
    private String check(ArrayState a, PushMessage m) {
        for (long part : m.parts()) {
            int p = PushMessage.partition(part);
            String array = "push of partition " + p + " of array '" + a.spec.name() + "'";
            if (p < 0 || p >= a.slots.length) return array + ": out of range [0, " + a.slots.length + ")";
            if (a.layout.homeOf(p) == nodeId) return array + ": homed at node " + nodeId + ", which pushes it itself";
            if (PushMessage.bytes(part) != a.layout.partitionBytes(p)) {
                return array + ": " + PushMessage.bytes(part) + " bytes, the partition has " + a.layout.partitionBytes(p);
            }
        }
        return null;
    }
}
