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
    void pendingHandshakesEvictTheOldestOfASourceThenTheOldestOverall() throws Exception {
        PendingHandshakes pending = new PendingHandshakes(3, 2, log);
        EmbeddedChannel[] ch = new EmbeddedChannel[5];
        for (int i = 0; i < ch.length; i++) {
            ch[i] = new EmbeddedChannel();
        }
        // Embedded channels have no IP source: they all count as one source.
        pending.admit(ch[0]);
        pending.admit(ch[1]);
        assertEquals(2, pending.size());
        pending.admit(ch[2]);
        assertTrue(!ch[0].isOpen() && ch[1].isOpen() && ch[2].isOpen());
        assertEquals("made room for a newer connection: 2 pending handshakes from one source, the limit per source",
                ch[0].attr(PendingHandshakes.EVICTED).get());
        pending.leave(ch[1]); // authenticated: no longer counts
        pending.admit(ch[3]);
        assertTrue(ch[1].isOpen() && ch[2].isOpen() && ch[3].isOpen());
        assertEquals(2, pending.size());
        ch[3].close();
        assertEquals(1, pending.size());
        for (EmbeddedChannel c : ch) {
            c.finishAndReleaseAll();
        }
    }
}
