package io.dsa.agent.transport;

/**
 * Handshake, acceptor to dialer: accepted; the acceptor's node id and
 * {@code HMAC(secret, "dsa-welcome" | nonceB | nonceA | vmName | nodeId)} proving it knows the secret too.
 */
record WelcomeMessage(int nodeId, byte[] mac) {}
