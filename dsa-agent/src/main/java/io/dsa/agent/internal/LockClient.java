package io.dsa.agent.internal;

import io.dsa.DsaException;
import io.dsa.agent.wire.LockMessage;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The node side of {@code DsaLock}s, whose home is node 0: acquire (waiting, or until a deadline,
 * withdrawing the request on time-out) and release. The node's own threads queue on a local lock
 * first ({@code NodeContext}), so one request per lock is out at a time. Called by workers.
 */
final class LockClient {
    private final int nodeId;
    private final PeerNetwork network;
    private final PendingCalls calls;
    private final JobLifecycle job;

    LockClient(int nodeId, PeerNetwork network, PendingCalls calls, JobLifecycle job) {
        this.nodeId = nodeId;
        this.network = network;
        this.calls = calls;
        this.job = job;
    }

    /** Waits until the home grants lock {@code lockId} to this node. */
    void acquire(int lockId) {
        calls.call(0, id -> new LockMessage(lockId, LockMessage.ACQUIRE, nodeId, id), "lock");
    }

    /**
     * Asks the home for the lock and waits until {@code deadlineNs} ({@link System#nanoTime()}).
     * On time-out withdraws the request; a grant that raced the withdrawal is kept (and reported).
     *
     * @return whether this node now holds the lock
     */
    boolean tryAcquire(int lockId, long deadlineNs) {
        CompletableFuture<Object> f = new CompletableFuture<>();
        long id = calls.open(f);
        network.send(0, new LockMessage(lockId, LockMessage.ACQUIRE, nodeId, id));
        while (true) {
            job.checkFailed();
            long leftNs = deadlineNs - System.nanoTime();
            if (leftNs <= 0) break;
            try {
                f.get(Math.min(leftNs, TimeUnit.MILLISECONDS.toNanos(NodeRuntime.POLL_MS)), TimeUnit.NANOSECONDS);
                return true;
            } catch (TimeoutException e) {
                // poll again
            } catch (ExecutionException e) {
                throw new DsaException("lock failed: " + e.getCause().getMessage(), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new DsaException("interrupted while waiting for a lock");
            }
        }
        network.send(0, new LockMessage(lockId, LockMessage.CANCEL, nodeId, id));
        // the home answers with CANCEL_ACK, or the grant it sent before it saw the cancel: then the
        // lock was granted before the withdrawal took effect, and this node keeps it
        LockMessage answer = (LockMessage) job.await(f, "lock cancel");
        return answer.op() == LockMessage.GRANT;
    }

    /** Gives lock {@code lockId} back to its home. */
    void release(int lockId) {
        network.send(0, new LockMessage(lockId, LockMessage.RELEASE, nodeId, 0));
    }

    /** @return whether {@code m} answers this node's request (rather than asking node 0's lock home) */
    static boolean isAnswer(LockMessage m) {
        return m.op() == LockMessage.GRANT || m.op() == LockMessage.CANCEL_ACK;
    }
}
