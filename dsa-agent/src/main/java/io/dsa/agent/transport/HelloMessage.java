package io.dsa.agent.transport;

/**
 * Handshake, dialer to acceptor: who the dialer is, its nonce, and
 * {@code HMAC(secret, "dsa-hello" | nonceA | nonceB | vmName | nodeId)}.
 */
record HelloMessage(int version, String vmName, int nodeId, byte[] nonce, byte[] mac) {}
