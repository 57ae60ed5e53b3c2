package io.dsa.agent.transport;

/** Handshake, acceptor to dialer: refused, with the reason; the acceptor closes right after. */
record RefuseMessage(String reason) {}
