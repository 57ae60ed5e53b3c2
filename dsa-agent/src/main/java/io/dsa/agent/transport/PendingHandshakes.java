package io.dsa.agent.transport;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * An acceptor's connections that have not authenticated yet, held within two limits: at most
 * {@link TransportConfig#maxPendingHandshakesPerSource()} from one source address and
 * {@link TransportConfig#maxPendingHandshakes()} in all. A new connection is always admitted:
 * when a limit is full, the oldest pending handshake (of that source, or of all) is closed
 * instead, so a legitimate peer's quick handshake gets through however many idle connections a
 * flood holds open. A connection leaves when it authenticates or closes; authenticated peers
 * never count against these limits and are always served. Handshake timeouts still apply to
 * every pending connection.
 *
 * <p>What happens to unauthenticated connections is logged through one {@link HandshakeLog},
 * with a rate limit. Thread-safe: accepted channels live on several event loops; the lock is
 * held only to update the two indexes.
 */
final class PendingHandshakes {
    /** Set on a channel this class closed to make room, so its handshake reports it as evicted. */
    static final AttributeKey<String> EVICTED = AttributeKey.valueOf(PendingHandshakes.class, "evicted");

    private final int maxPending;
    private final int maxPerSource;
    private final HandshakeLog log;
    /** Every pending channel, oldest first, with its source address. */
    private final LinkedHashMap<Channel, InetAddress> pending = new LinkedHashMap<>();
    /** The pending channels of each source, oldest first. */
    private final Map<InetAddress, LinkedHashSet<Channel>> bySource = new HashMap<>();

    PendingHandshakes(int maxPending, int maxPerSource, HandshakeLog log) {
        this.maxPending = maxPending;
        this.maxPerSource = maxPerSource;
        this.log = log;
    }

    /**
     * Admits a newly accepted channel, closing the pending ones it displaces, and arranges for it
     * to leave when it closes.
     */
    void admit(Channel ch) {
        InetAddress source = source(ch);
        List<Channel> evicted = new ArrayList<>(2);
        synchronized (this) {
            LinkedHashSet<Channel> fromSource = bySource.computeIfAbsent(source, s -> new LinkedHashSet<>());
            if (fromSource.size() >= maxPerSource) {
                Channel oldest = fromSource.iterator().next();
                removeLocked(oldest);
                evict(oldest, "made room for a newer connection: " + maxPerSource
                        + " pending handshakes from " + (source == null ? "one source" : source.getHostAddress())
                        + ", the limit per source", evicted);
                fromSource = bySource.computeIfAbsent(source, s -> new LinkedHashSet<>());
            }
            if (pending.size() >= maxPending) {
                Channel oldest = pending.keySet().iterator().next();
                removeLocked(oldest);
                evict(oldest, "made room for a newer connection: " + maxPending
                        + " pending handshakes, the limit over all sources", evicted);
            }
            pending.put(ch, source);
            fromSource.add(ch);
        }
        ch.closeFuture().addListener(f -> leave(ch));
        for (Channel c : evicted) {
            c.close(); // its handshake handler logs it, as EVICTED
        }
    }

    /** The channel authenticated or closed: it no longer counts. Idempotent. */
    synchronized void leave(Channel ch) {
        removeLocked(ch);
    }

    /** @return pending handshakes now, over all sources */
    synchronized int size() { return pending.size(); }

    /** @return pending handshakes now from {@code source} */
    synchronized int size(InetAddress source) {
        LinkedHashSet<Channel> s = bySource.get(source);
        return s == null ? 0 : s.size();
    }

    /** Logs, with the rate limit, that the unauthenticated connection {@code ch} ended and why. */
    void ended(Channel ch, HandshakeLog.Outcome outcome, String peer, String reason) {
        log.record(outcome, source(ch), peer, reason);
    }

    private static void evict(Channel ch, String reason, List<Channel> into) {
        ch.attr(EVICTED).set(reason);
        into.add(ch);
    }

    private void removeLocked(Channel ch) {
        InetAddress source = pending.remove(ch);
        if (source == null) {
            return;
        }
        LinkedHashSet<Channel> fromSource = bySource.get(source);
        fromSource.remove(ch);
        if (fromSource.isEmpty()) {
            bySource.remove(source);
        }
    }

    private static InetAddress source(Channel ch) {
        return ch.remoteAddress() instanceof InetSocketAddress inet ? inet.getAddress() : null;
    }
}
