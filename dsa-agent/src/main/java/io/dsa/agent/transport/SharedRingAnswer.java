package io.dsa.agent.transport;

/**
 * The answer to a {@link SharedRingOffer}: whether the peer mapped the ring (it then decodes
 * {@link MessageType#SHARED} frames from it, and the offering side may send them from now on), or
 * why not (another machine, another file system namespace, no such file). Never reaches the
 * {@link InboundHandler}.
 *
 * @param accepted whether the ring is in use
 * @param reason why not, or empty when accepted
 */
record SharedRingAnswer(boolean accepted, String reason) {}
