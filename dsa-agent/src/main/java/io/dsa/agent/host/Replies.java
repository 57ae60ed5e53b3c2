package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.agent.wire.HostReplyMessage;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Pending requests to hosts, by request id, completed by their answer: a {@link HostReplyMessage}
 * (ok or refused) or a typed answer ({@code HostStatusMessage}, {@code ElementsMessage}). Thread-safe.
 */
final class Replies {
    private final AtomicLong nextId = new AtomicLong(1);
    private final Map<Long, CompletableFuture<Object>> pending = new ConcurrentHashMap<>();
    private final Map<Long, Object> via = new ConcurrentHashMap<>();

    /** @return a fresh request id with a future waiting for its reply */
    long open() {
        long id = nextId.getAndIncrement();
        pending.put(id, new CompletableFuture<>());
        return id;
    }

    /** @return a fresh request id whose reply must come over {@code connection}; see {@link #failVia} */
    long open(Object connection) {
        long id = open();
        via.put(id, connection);
        return id;
    }

    /** Fails the requests sent over {@code connection}, which closed: their replies will never come. */
    void failVia(Object connection, String why) {
        for (Map.Entry<Long, Object> e : via.entrySet()) {
            if (e.getValue() == connection) {
                CompletableFuture<Object> f = pending.get(e.getKey());
                if (f != null) f.completeExceptionally(new DsaException(why));
            }
        }
    }

    /** Completes the request the reply answers; replies to unknown ids are dropped. */
    void onReply(HostReplyMessage reply) { onAnswer(reply.requestId(), reply); }

    /** Completes request {@code requestId} with {@code answer}; answers to unknown ids are dropped. */
    void onAnswer(long requestId, Object answer) {
        CompletableFuture<Object> f = pending.get(requestId);   // await removes it
        if (f != null) f.complete(answer);
    }

    /** Fails every pending request, e.g. because the connection closed. */
    void failAll(String why) {
        for (Long id : pending.keySet()) {
            CompletableFuture<Object> f = pending.remove(id);
            if (f != null) f.completeExceptionally(new DsaException(why));
        }
    }

    /**
     * Waits for the reply to request {@code id}.
     *
     * @param what the request, for messages ("status of 127.0.0.2:7000")
     * @return the reply, which succeeded
     * @throws DsaException when the reply says it failed (with its text), the connection closed, or
     *         the wait timed out
     */
    HostReplyMessage await(long id, String what, long timeoutMs) {
        return await(id, what, timeoutMs, HostReplyMessage.class);
    }

    /**
     * As {@link #await(long, String, long)}, for a request answered by a {@code type} on success
     * (and by a refused {@link HostReplyMessage} on failure).
     *
     * @throws DsaException also when the answer is of another type (naming both)
     */
    <T> T await(long id, String what, long timeoutMs, Class<T> type) {
        CompletableFuture<Object> f = pending.get(id);
        if (f == null) throw new DsaException("no pending request " + id + " (" + what + ")");
        Object reply;
        try {
            reply = f.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new DsaException(what + ": no answer after " + timeoutMs + " ms");
        } catch (ExecutionException e) {
            throw new DsaException(what + ": " + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DsaException(what + ": interrupted");
        } finally {
            pending.remove(id);
            via.remove(id);
        }
        if (reply instanceof HostReplyMessage r && !r.ok()) throw new DsaException(what + " refused: " + r.text());
        if (!type.isInstance(reply)) {
            throw new DsaException(what + ": answered with a " + reply.getClass().getSimpleName() + ", expected a "
                    + type.getSimpleName());
        }
        return type.cast(reply);
    }
}
