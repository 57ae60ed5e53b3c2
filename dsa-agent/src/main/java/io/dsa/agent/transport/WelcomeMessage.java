package io.dsa.agent.transport;

/**
 * Handshake, acceptor to dialer: accepted; the acceptor's node id, its ephemeral X25519 key
 * share, and a MAC over the whole transcript keyed from the cluster secret and the key agreement
 * ({@link HandshakeCrypto#welcomeMac}), proving it holds both.
 */
record WelcomeMessage(int nodeId, byte[] keyShare, byte[] mac) {
    /** @return this WELCOME carrying {@code mac}; null leaves it out, as the transcript hashes it */
    WelcomeMessage withMac(byte[] mac) {
        return new WelcomeMessage(nodeId, keyShare, mac);
    }
}
