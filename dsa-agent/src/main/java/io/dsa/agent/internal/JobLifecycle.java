package io.dsa.agent.internal;

import io.dsa.DsaException;
import io.dsa.agent.WaitStrategy;
import io.dsa.agent.transport.Spins;
import io.dsa.agent.wire.ReportMessage;
import io.dsa.agent.wire.StatusMessage;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The job as one node sees it: its first failure, its end (node 0's FINISHED), and whether this
 * agent's node moved away. Workers poll it while they wait ({@link #checkFailed()},
 * {@link #await}); an abort wakes every waiting worker through the {@code onAbort} action.
 *
 * <p>Threads: workers read; the I/O thread delivers ABORT and FINISHED ({@link #onStatus}); any
 * thread may report. The fields are volatile, the futures thread-safe.
 */
final class JobLifecycle {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(JobLifecycle.class);
    private final int nodeId;
    private final PeerNetwork network;
    private final Consumer<String> onAbort;
    private final WaitStrategy waitStrategy;
    private final int machineThreads;
    private final CompletableFuture<String> finished = new CompletableFuture<>();
    private final IoThread io;
    private volatile String failure;
    private volatile boolean movedAway;

    /** @param onAbort wakes every blocked worker (calls, slots, barriers); gets the abort's text */
    JobLifecycle(int nodeId, PeerNetwork network, Consumer<String> onAbort) {
        this(nodeId, network, onAbort, WaitStrategy.PARK, 0);
    }

    /**
     * @param waitStrategy how {@link #await} waits for a reply
     * @param machineThreads the node threads on this machine, for {@link WaitStrategy#ADAPTIVE} ({@link Waiting#spinNs})
     */
    JobLifecycle(int nodeId, PeerNetwork network, Consumer<String> onAbort, WaitStrategy waitStrategy, int machineThreads) {
        this(nodeId, network, onAbort, waitStrategy, machineThreads, IoThread.CALLER);
    }

    /**
     * @param io the node's I/O thread, which a thread waiting in {@link #await} drives under
     *        {@link WaitStrategy#SPIN} ({@link Waiting#waitersDriveIo})
     */
    JobLifecycle(int nodeId, PeerNetwork network, Consumer<String> onAbort, WaitStrategy waitStrategy, int machineThreads, IoThread io) {
        this.nodeId = nodeId;
        this.network = network;
        this.onAbort = onAbort;
        this.waitStrategy = waitStrategy;
        this.machineThreads = machineThreads;
        this.io = io;
    }

    /** Thrown in the workers of an agent whose node moved to another agent; ends them quietly. */
    static final class MovedAway extends DsaException {
        MovedAway(int node) { super("node " + node + " moved to another agent; this agent's workers stop here"); }
    }

    /**
     * @throws MovedAway if this agent's node moved away
     * @throws DsaException if the job has failed
     */
    void checkFailed() {
        if (movedAway) throw new MovedAway(nodeId);
        String f = failure;
        if (f != null) throw new DsaException("job failed: " + f);
    }

    boolean failed() { return failure != null; }

    /** @return whether waiting workers should stop: the job failed, or this node moved away */
    boolean stopped() { return failure != null || movedAway; }

    /** @return the job's first failure as this node learnt it, or null */
    String failure() { return failure; }

    /** Marks the job failed here (the first text stays) and wakes every blocked worker. */
    void abort(String text) {
        if (failure == null) failure = text;
        onAbort.accept(text);
    }

    /**
     * Failure texts longer than this are cut when reported: the report travels in one frame, which
     * may be as small as {@link io.dsa.agent.DsaConfig#MIN_MAX_FRAME_BYTES} (UTF-8 takes at most 3
     * bytes a char).
     */
    static final int MAX_FAILURE_CHARS = 1000;

    /** Reports a local failure to the monitor, which aborts the job everywhere. */
    void reportFailure(String text) {
        String cut = text.length() <= MAX_FAILURE_CHARS ? text
                : text.substring(0, MAX_FAILURE_CHARS) + "... (" + (text.length() - MAX_FAILURE_CHARS) + " more characters)";
        network.send(0, new StatusMessage(nodeId, StatusMessage.FAILED, cut));
    }

    /**
     * A message that could not be sent fails the job with the reason: whatever waits for it (a
     * reply, a barrier release, a partition) would otherwise wait until the job's timeout.
     */
    void sendFailed(int node, Object message, DsaException cause) {
        String text = "node " + nodeId + " " + cause.getMessage();
        LOG.error(text);
        if (message instanceof StatusMessage) {
            abort(text);   // the failure report itself: fail here at least
        } else {
            reportFailure(text);
        }
    }

    /** A program's result line, for node 0's report. */
    void report(String line) {
        network.send(0, new ReportMessage(nodeId, line));
    }

    /** This node's workers have all finished. */
    void reportDone() {
        network.send(0, new StatusMessage(nodeId, StatusMessage.DONE, ""));
    }

    /** @return whether {@code s} is node 0's word to the nodes (ABORT, FINISHED) rather than a node's to node 0 */
    static boolean isNodeStatus(StatusMessage s) {
        return s.code() == StatusMessage.ABORT || s.code() == StatusMessage.FINISHED;
    }

    /** Node 0's ABORT (the job failed) or FINISHED (every node is done, with the first failure or nothing). */
    void onStatus(StatusMessage s) {
        if (s.code() == StatusMessage.ABORT) {
            abort(s.text());
        } else {
            if (!s.text().isEmpty()) abort(s.text());
            finished.complete(s.text());
        }
    }

    /** The monitor is gone: the job ends here with {@code text} as its failure. */
    void endWithoutMonitor(String text) {
        abort(text);
        finished.complete(text);
    }

    /** @return whether node 0 announced the job's end (or the monitor was lost) */
    boolean finished() { return finished.isDone(); }

    /** Waits until every node is done. @return the first failure, or empty */
    String awaitFinished() {
        while (true) {
            try {
                return finished.get(NodeRuntime.POLL_MS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                // keep waiting: other nodes may still be working
            } catch (ExecutionException e) {
                return e.getCause().getMessage();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new DsaException("interrupted while waiting for the job to finish");
            }
        }
    }

    /**
     * Waits for {@code future} by the VM's wait strategy (spinning on it for a while, then parked
     * until it completes), waking up to notice a failed job.
     */
    <T> T await(CompletableFuture<T> future, String what) {
        return await(null, future, what);
    }

    /**
     * Runs {@code send} (the request {@code future} is the reply to; null if sent already), then
     * waits for {@code future} as {@link #await(CompletableFuture, String)} does. Under SPIN the
     * wait begins before the send, so a lending I/O thread is not woken for a request the waiting
     * thread sends itself ({@link IoThread#waitBegins}).
     */
    <T> T await(Runnable send, CompletableFuture<T> future, String what) {
        long spinNs = Waiting.spinNs(waitStrategy, machineThreads);
        boolean drives = Waiting.waitersDriveIo(waitStrategy);
        if (send != null && !drives) send.run();
        if (drives) {
            io.waitBegins();   // SPIN: the waiter sends and reads its reply itself
            try {
                if (send != null) send.run();
                long start = System.nanoTime();
                for (int turn = 1; !future.isDone(); turn++) {
                    if (turn % 64 == 0 && (stopped() || System.nanoTime() - start >= spinNs)) break;
                    if (!io.waitTurn() || Spins.yieldsAt(spinNs, turn)) Spins.turn(spinNs, turn);
                }
            } finally {
                io.waitEnds();
            }
        } else if (spinNs > 0 && !future.isDone()) {
            long start = System.nanoTime();
            for (int turn = 1; !future.isDone(); turn++) {
                if (turn % 64 == 0 && (stopped() || System.nanoTime() - start >= spinNs)) break;
                Spins.turn(spinNs, turn);
            }
        }
        while (true) {
            checkFailed();
            try {
                return future.get(NodeRuntime.POLL_MS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                // poll again
            } catch (ExecutionException e) {
                Throwable c = e.getCause();
                if (c instanceof DsaException) throw new DsaException(c.getMessage(), c);
                throw new DsaException(what + " failed: " + c, c);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new DsaException("interrupted while waiting for " + what);
            }
        }
    }

    /** This agent's node moved to another agent: its workers unwind ({@link MovedAway}), it reports nothing more. */
    void markMovedAway() { movedAway = true; }

    /** @return whether this agent's node moved away */
    boolean movedAway() { return movedAway; }
}
