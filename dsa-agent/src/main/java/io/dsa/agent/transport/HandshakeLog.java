package io.dsa.agent.transport;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * The rate-limited log of an acceptor's unauthenticated connections that ended without
 * authenticating, so that a flood of them writes a few lines instead of one per connection.
 * After a quiet period, the first such connection is logged at once in full (a wrong secret or a
 * version mismatch shows up with its reason right away); those that follow within
 * {@value #WINDOW_SECONDS} s are counted, and one summary line per window says how many, from how
 * many source addresses, why, and the last reason, e.g.
 * {@code closed 4,113 unauthenticated connections from 37 sources in the last 10 s: 4,100 evicted
 * for newer ones, 13 timed out; last: 127.0.0.12:40312: timed out after 15000 ms in AWAIT_HELLO}.
 * Thread-safe.
 */
final class HandshakeLog {
    /** Length of a counting window. */
    static final long WINDOW_SECONDS = 10;
    /** Distinct source addresses remembered per window; beyond it the count reads "65,536+". */
    static final int MAX_SOURCES_COUNTED = 1 << 16;

    /** Why an unauthenticated connection ended. */
    enum Outcome {
        /** Closed to admit a newer connection when a pending-handshake limit was full. */
        EVICTED("evicted", "evicted for newer ones"),
        /** Did not complete the handshake in time. */
        TIMED_OUT("timed out", "timed out"),
        /** Told why and closed: wrong secret, VM name, transport security or protocol version. */
        REFUSED("refused", "refused"),
        /** Closed for malformed input or by the peer. */
        FAILED("failed", "failed");

        private final String verb;
        private final String summary;

        Outcome(String verb, String summary) {
            this.verb = verb;
            this.summary = summary;
        }
    }

    /** Runs a task later (the transport's accept event loop; a manual one in tests). */
    interface Scheduler {
        /** @throws RejectedExecutionException when shut down */
        void schedule(Runnable task, long delaySeconds);
    }

    private final Consumer<String> sink;
    private final Scheduler scheduler;
    private final Map<Outcome, Long> counts = new EnumMap<>(Outcome.class);
    private final Set<InetAddress> sources = new HashSet<>();
    private boolean windowOpen;
    private String last;

    /**
     * @param sink where lines go (a logger's WARN)
     * @param scheduler runs the end of each window
     */
    HandshakeLog(Consumer<String> sink, Scheduler scheduler) {
        this.sink = sink;
        this.scheduler = scheduler;
    }

    /** Records that the connection from {@code peer} (source address {@code source}) ended, and why. */
    void record(Outcome outcome, InetAddress source, String peer, String reason) {
        String line;
        synchronized (this) {
            if (windowOpen) {
                counts.merge(outcome, 1L, Long::sum);
                if (sources.size() < MAX_SOURCES_COUNTED && source != null) {
                    sources.add(source);
                }
                last = peer + ": " + reason;
                return;
            }
            windowOpen = true;
            line = "unauthenticated connection from " + peer + " " + outcome.verb + ": " + reason
                    + " (more in the next " + WINDOW_SECONDS + " s are counted, not logged one by one)";
        }
        scheduleEndOfWindow();
        sink.accept(line);
    }

    /** Ends the current window: logs its summary if anything was counted, else goes quiet. */
    void endWindow() {
        String line;
        synchronized (this) {
            long total = counts.values().stream().mapToLong(Long::longValue).sum();
            if (total == 0) {
                windowOpen = false;
                return;
            }
            List<String> parts = new ArrayList<>();
            for (Outcome o : Outcome.values()) {
                Long n = counts.get(o);
                if (n != null) {
                    parts.add(String.format(Locale.ROOT, "%,d %s", n, o.summary));
                }
            }
            String sourceCount = String.format(Locale.ROOT, "%,d", sources.size())
                    + (sources.size() >= MAX_SOURCES_COUNTED ? "+" : "");
            line = String.format(Locale.ROOT, "closed %,d unauthenticated connection%s from %s source%s in the last %d s: %s; last: %s",
                    total, total == 1 ? "" : "s", sourceCount, sources.size() == 1 ? "" : "s", WINDOW_SECONDS,
                    String.join(", ", parts), last);
            counts.clear();
            sources.clear();
            last = null;
        }
        scheduleEndOfWindow(); // a flood that goes on gets one line per window
        sink.accept(line);
    }

    private void scheduleEndOfWindow() {
        try {
            scheduler.schedule(this::endWindow, WINDOW_SECONDS);
        } catch (RejectedExecutionException shuttingDown) {
            synchronized (this) {
                windowOpen = false; // nothing will end the window: log the next one in full
            }
        }
    }
}
