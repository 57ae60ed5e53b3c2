package io.dsa.agent.transport;

/**
 * A frame that says only "this end is alive": sent on an authenticated connection that has written
 * nothing for a third of the failure timeout ({@link HeartbeatHandler}). It travels sealed like any
 * other frame, so a relay cannot forge it; its body is empty. Never reaches the {@link InboundHandler}.
 */
record HeartbeatMessage() {
    /** The one instance: a heartbeat carries nothing, so sending one allocates no record. */
    static final HeartbeatMessage INSTANCE = new HeartbeatMessage();
}
