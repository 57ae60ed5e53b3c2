package io.dsa.agent.transport;

import java.util.concurrent.TimeUnit;

/**
 * The failure detector's decisions for one connection, without Netty, threads or a clock: when
 * the peer has been silent for the failure timeout, and when this end owes the peer a heartbeat.
 * Time is an argument ({@code nowNs}, from any monotonic clock). {@link HeartbeatHandler} drives
 * it from the Netty pipeline; a test network without sockets drives it from its own clock, so the
 * same rules decide there whether a cut-off node is taken for lost (docs/failures.md, "Fault
 * tests on the in-memory network").
 *
 * <p>The rules: every read from the peer (any bytes) moves the read deadline to the read's time
 * plus the failure timeout; the connection is lost once a check finds the deadline passed. This
 * end sends a heartbeat at once and then whenever it wrote nothing for the heartbeat interval: a
 * third of its own timeout, or the shorter interval the peer asked for. The owner ticks at
 * {@link #tickPeriodMs()} and sends one when {@link #heartbeatDue()} says so, so frames are never
 * more than an interval apart.
 *
 * <p>Not thread-safe: one thread at a time (the connection's event loop, or under the owner's lock).
 */
public final class SilenceDetector {
    private final long failureTimeoutMs;
    private final long timeoutNs;
    private final int ownIntervalMs;
    private long intervalMs;
    private long lastReadNs;
    private boolean wrote;

    /**
     * @param failureTimeoutMs how long the peer may stay silent, in milliseconds, in
     *        [{@link TransportConfig#MIN_FAILURE_TIMEOUT_MS}, {@link TransportConfig#MAX_FAILURE_TIMEOUT_MS}]
     * @param nowNs the time the connection was authenticated: the first read deadline counts from it
     * @throws IllegalArgumentException if the timeout is out of that range
     */
    public SilenceDetector(long failureTimeoutMs, long nowNs) {
        if (failureTimeoutMs < TransportConfig.MIN_FAILURE_TIMEOUT_MS || failureTimeoutMs > TransportConfig.MAX_FAILURE_TIMEOUT_MS) {
            throw new IllegalArgumentException("failure timeout " + failureTimeoutMs + " ms out of range ["
                    + TransportConfig.MIN_FAILURE_TIMEOUT_MS + ", " + TransportConfig.MAX_FAILURE_TIMEOUT_MS + "]");
        }
        this.failureTimeoutMs = failureTimeoutMs;
        this.timeoutNs = TimeUnit.MILLISECONDS.toNanos(failureTimeoutMs);
        this.ownIntervalMs = (int) heartbeatIntervalMs(failureTimeoutMs);
        this.intervalMs = ownIntervalMs;
        this.lastReadNs = nowNs;
    }

    /** @return how long a connection may be idle for writes before a heartbeat goes out: a third of the timeout, in ms */
    static long heartbeatIntervalMs(long failureTimeoutMs) {
        return Math.max(HeartbeatMessage.MIN_INTERVAL_MS, Math.min(HeartbeatMessage.MAX_INTERVAL_MS, failureTimeoutMs / 3));
    }

    /** Something (any bytes) was read from the peer at {@code nowNs}: the read deadline moves on. */
    public void onRead(long nowNs) { lastReadNs = nowNs; }

    /** This end wrote a frame: no heartbeat is owed at the next tick. */
    public void onWrite() { wrote = true; }

    /**
     * A tick, every {@link #tickPeriodMs()}.
     *
     * @return whether to send a heartbeat now: nothing was written since the tick before (the
     *         heartbeat then counts as written, for the next tick)
     */
    public boolean heartbeatDue() {
        boolean idle = !wrote;
        wrote = false;
        return idle;
    }

    /**
     * @return nanoseconds until the peer is taken for lost at {@code nowNs}; zero or less: it is
     *         lost now (nothing read for the failure timeout)
     */
    public long nanosLeft(long nowNs) { return lastReadNs + timeoutNs - nowNs; }

    /**
     * The peer's heartbeat asked for {@code peerIntervalMs}.
     *
     * @return whether this end now sends at that shorter interval (the owner reschedules its ticks)
     */
    public boolean onPeerHeartbeat(int peerIntervalMs) {
        if (peerIntervalMs >= intervalMs) return false;
        intervalMs = peerIntervalMs;
        return true;
    }

    /** @return the interval this end asks of the peer in its heartbeats, in milliseconds: a third of its timeout */
    public int ownIntervalMs() { return ownIntervalMs; }

    /** @return the interval this end sends heartbeats at now, in milliseconds */
    public long intervalMs() { return intervalMs; }

    /** @return how often the owner ticks, in milliseconds: half the interval, at least 1 */
    public long tickPeriodMs() { return Math.max(1, intervalMs / 2); }

    /** @return the failure timeout, in milliseconds */
    public long failureTimeoutMs() { return failureTimeoutMs; }

    /** @return the reason a silent connection is closed with: names the peer, where it is, and the bound */
    public String silence(int peerNodeId, String remoteAddress) {
        return "nothing heard from node " + peerNodeId + " at " + remoteAddress + " for " + failureTimeoutMs
                + " ms (the failure timeout): it died, hangs or was stopped, or the network to it drops packets";
    }
}
