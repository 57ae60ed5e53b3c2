package io.dsa.agent.transport;

/**
 * A frame that says "this end is alive": sent on an authenticated connection right after the
 * handshake and then whenever the connection has written nothing for the heartbeat interval
 * ({@link HeartbeatHandler}). It travels sealed like any other frame, so a relay cannot forge it.
 * Never reaches the {@link InboundHandler}.
 *
 * @param intervalMs the longest time between the frames the sender wants from the peer, in
 *        milliseconds: a third of its own failure timeout. Each end sends at the shorter of its own
 *        interval and the peer's, so two ends configured with different timeouts never take each
 *        other for lost while idle. In {@code [MIN_INTERVAL_MS, MAX_INTERVAL_MS]}.
 */
record HeartbeatMessage(int intervalMs) {
    /** Shortest interval a peer may ask for: a third of the smallest failure timeout. */
    static final int MIN_INTERVAL_MS = (int) (TransportConfig.MIN_FAILURE_TIMEOUT_MS / 3);
    /** Longest interval: a third of the largest failure timeout. */
    static final int MAX_INTERVAL_MS = (int) (TransportConfig.MAX_FAILURE_TIMEOUT_MS / 3);
}
