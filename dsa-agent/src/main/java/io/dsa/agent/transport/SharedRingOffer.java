package io.dsa.agent.transport;

/**
 * A node offers its peer on the same machine a {@link SharedRing} for the large bodies it will
 * send on this connection: the ring's file, its capacity and the token written in it. Sent sealed
 * once the connection has sent {@link SharedRing#offerAfter} bytes of bodies of at least
 * {@value SharedRing#MIN_BODY_BYTES} bytes on its socket; answered by a {@link SharedRingAnswer}.
 * Never reaches the {@link InboundHandler}.
 *
 * @param path the ring file's absolute path
 * @param capacity the ring's data bytes, in {@code [SharedRing.MIN_CAPACITY, SharedRing.MAX_CAPACITY]}
 * @param token the {@value SharedRing#TOKEN_BYTES} random bytes at the file's start
 */
record SharedRingOffer(String path, long capacity, byte[] token) {}
