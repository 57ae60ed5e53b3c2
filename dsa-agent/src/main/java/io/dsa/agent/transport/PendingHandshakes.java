package io.dsa.agent.transport;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * An acceptor's connections that have not authenticated yet, held within two limits: at most
 * {@link TransportConfig#maxPendingHandshakesPerSource()} from one source and
 * {@link TransportConfig#maxPendingHandshakes()} in all. A new connection is always admitted;
 * when a limit is full a pending handshake is closed instead:
 * <ul>
 *   <li>over the per-source limit, the oldest of that source;</li>
 *   <li>over the overall limit, the oldest of the source that holds the most, so that a flood
 *       from some sources cannot push out the one handshake of another source however fast it
 *       comes.</li>
 * </ul>
 * A legitimate peer's handshake takes one round trip, so it gets through however many idle
 * connections a flood holds open. A source is an IPv4 address or an IPv6 /64 prefix (what one
 * host usually has). A connection leaves when it authenticates or closes: authenticated peers
 * never count against these limits and are always served. Handshake timeouts still apply.
 *
 * <p>What happens to unauthenticated connections is logged through one {@link HandshakeLog},
 * with a rate limit. Thread-safe: accepted channels live on several event loops; the lock is held
 * only to update the indexes, and an eviction closes its channel on that channel's event loop,
 * only if it has not authenticated meanwhile.
 */
final class PendingHandshakes {
    /** Set on a channel this class closed to make room, so its handshake reports it as evicted. */
    static final AttributeKey<String> EVICTED = AttributeKey.valueOf(PendingHandshakes.class, "evicted");

    private final int maxPending;
    private final int maxPerSource;
    private final HandshakeLog log;
    /** Every pending channel, oldest first, with its source. */
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
        List<String> reasons = new ArrayList<>(2);
        synchronized (this) {
            LinkedHashSet<Channel> fromSource = bySource.get(source);
            if (fromSource != null && fromSource.size() >= maxPerSource) {
                evicted.add(removeLocked(fromSource.iterator().next()));
                reasons.add("made room for a newer connection: " + maxPerSource + " pending handshakes from "
                        + describe(source) + ", the limit per source");
            }
            if (pending.size() >= maxPending) {
                LinkedHashSet<Channel> largest = largestSourceLocked();
                evicted.add(removeLocked(largest.iterator().next()));
                reasons.add("made room for a newer connection: " + maxPending + " pending handshakes, the limit over all"
                        + " sources; this source held the most (" + (largest.size() + 1) + ")");
            }
            pending.put(ch, source);
            bySource.computeIfAbsent(source, s -> new LinkedHashSet<>()).add(ch);
        }
        ch.closeFuture().addListener(f -> leave(ch));
        for (int i = 0; i < evicted.size(); i++) {
            evict(evicted.get(i), reasons.get(i));
        }
    }

    /** The channel authenticated or closed: it no longer counts. Idempotent. */
    synchronized void leave(Channel ch) {
        removeLocked(ch);
    }

    /** @return pending handshakes now, over all sources */
    synchronized int size() { return pending.size(); }

    /** Logs, with the rate limit, that the unauthenticated connection {@code ch} ended and why. */
    void ended(Channel ch, HandshakeLog.Outcome outcome, String peer, String reason) {
        log.record(outcome, source(ch), peer, reason);
    }

    private static void evict(Channel ch, String reason) {
        ch.eventLoop().execute(() -> {
            // On its own event loop the handshake cannot finish under our feet: close it only if still running.
            if (ch.pipeline().get(Transport.HANDSHAKE_HANDLER) != null) {
                ch.attr(EVICTED).set(reason);
                ch.close(); // its handshake handler logs it, as EVICTED
            }
        });
    }

    private LinkedHashSet<Channel> largestSourceLocked() {
        LinkedHashSet<Channel> largest = null;
        for (LinkedHashSet<Channel> s : bySource.values()) { // at most maxPending sources
            if (largest == null || s.size() > largest.size()) {
                largest = s;
            }
        }
        return largest;
    }

    /** @return {@code ch}, no longer pending (if it was) */
    private Channel removeLocked(Channel ch) {
        if (!pending.containsKey(ch)) {
            return ch;
        }
        InetAddress source = pending.remove(ch); // may be null: a channel without an IP address
        LinkedHashSet<Channel> fromSource = bySource.get(source);
        fromSource.remove(ch);
        if (fromSource.isEmpty()) {
            bySource.remove(source);
        }
        return ch;
    }

    /** @return the source of {@code ch}: its IPv4 address, or its IPv6 address's /64 prefix; null without one */
    static InetAddress source(Channel ch) {
        if (!(ch.remoteAddress() instanceof InetSocketAddress inet) || inet.getAddress() == null) {
            return null;
        }
        InetAddress address = inet.getAddress();
        if (address instanceof Inet6Address) {
            byte[] prefix = Arrays.copyOf(address.getAddress(), 16);
            Arrays.fill(prefix, 8, 16, (byte) 0);
            try {
                return InetAddress.getByAddress(prefix);
            } catch (UnknownHostException e) {
                throw new IllegalStateException(e); // 16 bytes are always an address
            }
        }
        return address;
    }

    private static String describe(InetAddress source) {
        if (source == null) {
            return "one source";
        }
        return source instanceof Inet6Address ? source.getHostAddress() + "/64" : source.getHostAddress();
    }
}
