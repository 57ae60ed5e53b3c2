package io.dsa.agent.transport;

/** Handshake, acceptor to dialer: the acceptor's protocol version, its transport security and its fresh nonce. */
record ChallengeMessage(int version, TransportSecurity security, byte[] nonce) {}
