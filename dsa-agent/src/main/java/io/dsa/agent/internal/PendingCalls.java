package io.dsa.agent.internal;

import io.dsa.DsaException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;

/**
 * Requests that wait for a reply (registrations, shared variable operations, lock grants),
 * correlated by a request id unique on this node. A failed job fails every open request, and every
 * request opened after it. Thread-safe: workers open and wait, the I/O thread completes.
 */
final class PendingCalls {
    private final PeerNetwork network;
    private final JobLifecycle job;
    private final Map<Long, CompletableFuture<Object>> open = new ConcurrentHashMap<>();
    private final AtomicLong nextRequestId = new AtomicLong(1);
    private volatile String failure;

    PendingCalls(PeerNetwork network, JobLifecycle job) {
        this.network = network;
        this.job = job;
    }

    /**
     * Sends the request {@code request} builds from a new request id to {@code node} and waits for
     * the reply, waking up to notice a failed job.
     *
     * @throws DsaException if the job fails first
     */
    Object call(int node, LongFunction<Object> request, String what) {
        CompletableFuture<Object> reply = new CompletableFuture<>();
        long id = open(reply);
        WorkerThread w = WorkerThread.waitFor(WorkerThread.CALL, what, node);
        try {
            return job.await(() -> network.send(node, request.apply(id)), reply, what);
        } finally {
            WorkerThread.resume(w);
        }
    }

    /** @return a new request id whose reply completes {@code reply} (at once, exceptionally, if the job failed) */
    long open(CompletableFuture<Object> reply) {
        long id = nextRequestId.getAndIncrement();
        open.put(id, reply);
        // after the put: a failAll that ran before it is seen here, one that runs after it sees the entry
        String f = failure;
        if (f != null) reply.completeExceptionally(new DsaException("job failed: " + f));
        return id;
    }

    /** The reply to request {@code requestId}; a reply to no open request is dropped. */
    void complete(long requestId, Object reply) {
        CompletableFuture<Object> f = open.remove(requestId);
        if (f != null) f.complete(reply);
    }

    /** The job failed with {@code text}: every open request fails, and so will every later one (with the first text). */
    void failAll(String text) {
        if (failure == null) failure = text;
        for (CompletableFuture<Object> f : open.values()) f.completeExceptionally(new DsaException("job failed: " + text));
    }
}
