package io.dsa.agent.internal;

import io.dsa.DsaException;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;

/**
 * Node 0's gate on global barrier releases: the safe point of a migration or a cloning. Every
 * barrier kind's global release passes {@link #releaseGlobal} at node 0 (it is the root of each);
 * when the gate is armed, the first plain release (no collective values) that brings the workers
 * to the armed epoch, while no scope is open at node 0, is held, and the gate's future completes with its generation.
 * With checkpoints on, a plain release at a checkpoint's epoch is handed to {@link Checkpoints}
 * instead, which sends it once every node's snapshot is in memory, and a held release is reported
 * only once the checkpoints before it are committed (their files are written after their release,
 * and a move or clone must not overtake that). Thread-safe:
 * releases come from the I/O thread or a worker (a one-node VM), the hold and release from the
 * thread running the move.
 */
final class MigrationGate {
    private final int nodeId;
    private final NodeCounters counters;
    private CompletableFuture<Long> gate;
    private long gateMinEpoch;
    private Runnable heldRelease;
    /** When the held release was held: the safe point. */
    private long heldAtNs;
    /** Scopes open at node 0: while any is, no release is held (a node moves only between scopes). */
    private final IntSupplier openScopes;
    /** Node 0 with checkpoints on: takes one at the plain releases it says are due (null: off). */
    private Checkpoints checkpoints;

    /** A gate at a node without scopes (tests). */
    MigrationGate(int nodeId, NodeCounters counters) {
        this(nodeId, counters, () -> 0);
    }

    MigrationGate(int nodeId, NodeCounters counters, IntSupplier openScopes) {
        this.nodeId = nodeId;
        this.counters = counters;
        this.openScopes = openScopes;
    }

    /**
     * A global barrier's release of {@code generation}: runs {@code send} now, or holds it when the
     * gate is armed, the release is {@code plain}, and it reaches the armed epoch.
     */
    void releaseGlobal(long generation, boolean plain, Runnable send) {
        CompletableFuture<Long> reached = null;
        Checkpoints checkpoint = null;
        Checkpoints writing = null;
        synchronized (this) {
            if (plain && gate != null && heldRelease == null && generation + 1 >= gateMinEpoch && openScopes.getAsInt() == 0) {
                heldRelease = send;
                heldAtNs = System.nanoTime();
                reached = gate;
                writing = checkpoints;
            } else if (plain && checkpoints != null && openScopes.getAsInt() == 0 && checkpoints.due(generation + 1)) {
                checkpoint = checkpoints;   // a move armed for this barrier goes first; the checkpoint takes the next
            }
        }
        if (reached != null && writing != null) {
            CompletableFuture<Long> held = reached;
            writing.afterPending(() -> held.complete(generation));   // a checkpoint's files are written after its release
        } else if (reached != null) {
            reached.complete(generation);
        } else if (checkpoint != null) {
            checkpoint.take(generation + 1, send);   // on the checkpoint's thread, which sends the release after
        } else {
            send.run();
        }
    }

    /** Node 0: checkpoints are taken at the plain global releases {@code checkpoints} says are due. */
    synchronized void takeCheckpoints(Checkpoints checkpoints) { this.checkpoints = checkpoints; }

    /**
     * Arms the gate for the first plain global barrier whose release brings the workers to epoch
     * {@code minEpoch} or later (0: the next one).
     *
     * @return completes with the held barrier's generation when every worker of the VM waits there
     * @throws DsaException on a node other than 0, or if the gate is armed already
     */
    synchronized CompletableFuture<Long> hold(long minEpoch) {
        if (nodeId != 0) throw new DsaException("only node 0 (the barrier root) can hold a global barrier, not node " + nodeId);
        if (gate != null) throw new DsaException("a migration is already under way (the gate at node 0 is armed)");
        gate = new CompletableFuture<>();
        gateMinEpoch = minEpoch;
        return gate;
    }

    /** Sends the held release (if any) and disarms the gate. Idempotent. */
    void release() {
        release(null, 0);
    }

    /** Sends the held release and arms the gate again for epoch {@code minEpoch}, atomically. */
    CompletableFuture<Long> releaseAndHold(long minEpoch) {
        CompletableFuture<Long> next = new CompletableFuture<>();
        release(next, minEpoch);
        return next;
    }

    // Sends the held release (if any) and leaves the gate armed with `next` for `minEpoch`, or disarmed if null.
    private void release(CompletableFuture<Long> next, long minEpoch) {
        Runnable send;
        long pausedNs;
        synchronized (this) {
            send = heldRelease;
            pausedNs = System.nanoTime() - heldAtNs;
            heldRelease = null;
            if (gate != null) gate.cancel(false);
            gate = next;
            gateMinEpoch = minEpoch;
        }
        if (send != null) {
            counters.migrationPause(pausedNs);
            send.run();
        }
    }
}
