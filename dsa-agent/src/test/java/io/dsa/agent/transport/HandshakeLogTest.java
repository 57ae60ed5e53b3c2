package io.dsa.agent.transport;

import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rate-limited log of unauthenticated connections, on a manual scheduler: the first one of a
 * quiet period in full, then one counted line per window, then quiet again.
 */
@Timeout(10)
class HandshakeLogTest {
    private final List<String> lines = new ArrayList<>();
    private final List<Runnable> scheduled = new ArrayList<>();
    private final HandshakeLog log = new HandshakeLog(lines::add, (task, delaySeconds) -> {
        assertEquals(HandshakeLog.WINDOW_SECONDS, delaySeconds);
        scheduled.add(task);
    });

    private void runScheduled() {
        List<Runnable> due = new ArrayList<>(scheduled);
        scheduled.clear();
        due.forEach(Runnable::run);
    }

    private static InetAddress source(int i) throws Exception {
        return InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) i});
    }

    @Test
    void aFloodWritesOneLinePerWindowWithCounts() throws Exception {
        log.record(HandshakeLog.Outcome.REFUSED, source(5), "127.0.0.5:4000", "authentication failed");
        assertEquals(List.of("unauthenticated connection from 127.0.0.5:4000 refused: authentication failed"
                + " (more in the next 10 s are counted, not logged one by one)"), lines);
        for (int i = 0; i < 4_100; i++) {
            log.record(HandshakeLog.Outcome.EVICTED, source(10 + i % 37), "127.0.0." + (10 + i % 37) + ":5000",
                    "made room for a newer connection");
        }
        for (int i = 0; i < 13; i++) {
            log.record(HandshakeLog.Outcome.TIMED_OUT, source(9), "127.0.0.9:6000", "timed out after 15000 ms in AWAIT_HELLO");
        }
        assertEquals(1, lines.size());
        runScheduled();
        assertEquals(2, lines.size());
        assertEquals("closed 4,113 unauthenticated connections from 38 sources in the last 10 s: 4,100 evicted for newer ones,"
                + " 13 timed out; last: 127.0.0.9:6000: timed out after 15000 ms in AWAIT_HELLO", lines.get(1));
        assertEquals(1, scheduled.size(), "the next window is open while the flood goes on");

        runScheduled(); // a quiet window: nothing to say, and the log goes quiet
        assertEquals(2, lines.size());
        assertTrue(scheduled.isEmpty());
        log.record(HandshakeLog.Outcome.FAILED, source(7), "127.0.0.7:1", "connection closed by peer");
        assertEquals(3, lines.size());
        assertTrue(lines.get(2).startsWith("unauthenticated connection from 127.0.0.7:1 failed: connection closed by peer"));
    }

    @Test
    void aShutDownSchedulerLeavesEveryLineInFull() throws Exception {
        HandshakeLog closing = new HandshakeLog(lines::add, (task, delay) -> {
            throw new RejectedExecutionException("shut down");
        });
        closing.record(HandshakeLog.Outcome.REFUSED, source(1), "a", "one");
        closing.record(HandshakeLog.Outcome.REFUSED, source(1), "b", "two");
        assertEquals(2, lines.size());
    }

    @Test
    void pendingHandshakesEvictTheOldestOfASourceThenTheOldestOfTheLargestSource() throws Exception {
        PendingHandshakes pending = new PendingHandshakes(4, 3, log);
        EmbeddedChannel a1 = channelFrom("127.0.0.1"), a2 = channelFrom("127.0.0.1"), a3 = channelFrom("127.0.0.1");
        EmbeddedChannel b1 = channelFrom("127.0.0.2"), a4 = channelFrom("127.0.0.1"), b2 = channelFrom("127.0.0.2");
        pending.admit(b1);
        pending.admit(a1);
        pending.admit(a2);
        pending.admit(a3);
        assertEquals(4, pending.size());
        pending.admit(a4); // 127.0.0.1 is at its limit of 3: its oldest goes
        runTasks(a1, b1);
        assertTrue(!a1.isOpen() && b1.isOpen());
        assertEquals("made room for a newer connection: 3 pending handshakes from 127.0.0.1, the limit per source",
                a1.attr(PendingHandshakes.EVICTED).get());
        pending.admit(b2); // over all at the limit of 4: the oldest of the largest source goes, not b1, the oldest
        runTasks(a2, b1);
        assertTrue(!a2.isOpen() && b1.isOpen());
        assertEquals("made room for a newer connection: 4 pending handshakes, the limit over all sources; this source held"
                + " the most (3)", a2.attr(PendingHandshakes.EVICTED).get());
        pending.leave(a3); // authenticated: no longer counts
        assertEquals(3, pending.size());
        b2.close();
        assertEquals(2, pending.size());
        for (EmbeddedChannel c : List.of(a1, a2, a3, a4, b1, b2)) {
            c.finishAndReleaseAll();
        }
    }

    @Test
    void anEvictedChannelThatAuthenticatedMeanwhileStaysOpen() throws Exception {
        PendingHandshakes pending = new PendingHandshakes(1, 1, log);
        EmbeddedChannel first = channelFrom("127.0.0.1");
        EmbeddedChannel second = channelFrom("127.0.0.1");
        pending.admit(first);
        pending.admit(second);
        first.pipeline().remove(Transport.HANDSHAKE_HANDLER); // it authenticated before the eviction ran
        first.runPendingTasks();
        assertTrue(first.isOpen());
        first.finishAndReleaseAll();
        second.finishAndReleaseAll();
    }

    @Test
    void anIpv6SourceIsItsSlash64() throws Exception {
        EmbeddedChannel one = channelFrom("2001:db8:1:2::5");
        EmbeddedChannel other = channelFrom("2001:db8:1:2:ffff::9");
        EmbeddedChannel elsewhere = channelFrom("2001:db8:1:3::5");
        assertEquals(PendingHandshakes.source(one), PendingHandshakes.source(other));
        assertTrue(!PendingHandshakes.source(one).equals(PendingHandshakes.source(elsewhere)));
        for (EmbeddedChannel c : List.of(one, other, elsewhere)) {
            c.finishAndReleaseAll();
        }
    }

    /** @return an embedded channel whose remote address is {@code ip}, with a handshake in its pipeline */
    private static EmbeddedChannel channelFrom(String ip) throws Exception {
        java.net.InetSocketAddress remote = new java.net.InetSocketAddress(InetAddress.getByName(ip), 40_000);
        EmbeddedChannel ch = new EmbeddedChannel() {
            @Override
            protected java.net.SocketAddress remoteAddress0() { return remote; }
        };
        ch.pipeline().addLast(Transport.HANDSHAKE_HANDLER, new io.netty.channel.ChannelInboundHandlerAdapter());
        return ch;
    }

    private static void runTasks(EmbeddedChannel... channels) {
        for (EmbeddedChannel c : channels) {
            c.runPendingTasks();
        }
    }
}
