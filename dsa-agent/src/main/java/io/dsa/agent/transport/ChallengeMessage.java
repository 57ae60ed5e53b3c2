package io.dsa.agent.transport;

/** Handshake, acceptor to dialer: the acceptor's protocol version and its fresh nonce. */
record ChallengeMessage(int version, byte[] nonce) {}
