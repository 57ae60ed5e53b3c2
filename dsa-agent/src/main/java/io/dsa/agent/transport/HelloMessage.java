package io.dsa.agent.transport;

/**
 * Handshake, dialer to acceptor: who the dialer is, its transport security, its nonce, its
 * ephemeral X25519 key share, and a MAC over the transcript so far keyed from the cluster secret
 * ({@link HandshakeCrypto#helloMac}).
 */
record HelloMessage(int version, String vmName, int nodeId, TransportSecurity security, byte[] nonce, byte[] keyShare,
                    byte[] mac) {
    /** @return this HELLO carrying {@code mac}; null leaves it out, as the transcript hashes it */
    HelloMessage withMac(byte[] mac) {
        return new HelloMessage(version, vmName, nodeId, security, nonce, keyShare, mac);
    }
}
