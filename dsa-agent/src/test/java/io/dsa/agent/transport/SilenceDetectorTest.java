package io.dsa.agent.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The failure detector's rules with time as an argument: the read deadline, the heartbeats owed, the peer's interval. */
@Timeout(10)
class SilenceDetectorTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void thePeerIsLostExactlyATimeoutAfterTheLastRead() {
        SilenceDetector d = new SilenceDetector(3_000, 1_000 * MS);
        assertEquals(3_000 * MS, d.nanosLeft(1_000 * MS));
        d.onRead(2_500 * MS);
        assertEquals(1 * MS, d.nanosLeft(5_499 * MS));
        assertEquals(0, d.nanosLeft(5_500 * MS), "lost at the deadline");
        assertTrue(d.nanosLeft(6_000 * MS) < 0);
        assertEquals("nothing heard from node 2 at 127.0.0.3:4567 for 3000 ms (the failure timeout): it died, hangs or was stopped,"
                + " or the network to it drops packets", d.silence(2, "127.0.0.3:4567"));
    }

    @Test
    void aHeartbeatIsOwedAtATickOnlyWhenNothingWasWrittenSinceTheTickBefore() {
        SilenceDetector d = new SilenceDetector(3_000, 0);
        assertEquals(1_000, d.ownIntervalMs());
        assertEquals(500, d.tickPeriodMs());
        assertTrue(d.heartbeatDue(), "the first tick: nothing written yet");
        d.onWrite();   // the heartbeat itself
        assertFalse(d.heartbeatDue());
        assertTrue(d.heartbeatDue(), "idle for a whole tick period");
        d.onWrite();
        d.onWrite();
        assertFalse(d.heartbeatDue(), "the connection wrote frames of its own");
    }

    @Test
    void thePeersShorterIntervalIsAdoptedAndALongerOneIgnored() {
        SilenceDetector d = new SilenceDetector(3_000, 0);
        assertFalse(d.onPeerHeartbeat(2_000));
        assertEquals(1_000, d.intervalMs());
        assertTrue(d.onPeerHeartbeat(333));
        assertEquals(333, d.intervalMs());
        assertEquals(166, d.tickPeriodMs());
        assertEquals(1_000, d.ownIntervalMs(), "what this end asks of its peer does not change");
    }

    @Test
    void aTimeoutOutOfRangeIsRefusedNamingItAndTheRange() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new SilenceDetector(99, 0));
        assertEquals("failure timeout 99 ms out of range [" + TransportConfig.MIN_FAILURE_TIMEOUT_MS + ", "
                + TransportConfig.MAX_FAILURE_TIMEOUT_MS + "]", e.getMessage());
    }
}
