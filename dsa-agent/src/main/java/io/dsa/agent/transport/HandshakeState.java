package io.dsa.agent.transport;

/** States of one side of the connection handshake ({@link HandshakeHandler}). */
enum HandshakeState {
    /** Channel not active yet. */
    NEW,
    /** Dialer: connected, waiting for the acceptor's CHALLENGE. */
    AWAIT_CHALLENGE,
    /** Acceptor: CHALLENGE sent, waiting for the dialer's HELLO. */
    AWAIT_HELLO,
    /** Dialer: HELLO sent, waiting for WELCOME or REFUSE. */
    AWAIT_WELCOME,
    /** Both sides proved the secret; the message pipeline is in place. Terminal. */
    AUTHENTICATED,
    /** Refused, timed out or closed; the channel is closing. Terminal. */
    FAILED;

    boolean isTerminal() { return this == AUTHENTICATED || this == FAILED; }
}
