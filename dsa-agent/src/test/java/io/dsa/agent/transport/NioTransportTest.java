package io.dsa.agent.transport;

/** Every loopback test again on the NIO transport, the fallback when native epoll is missing. */
class NioTransportTest extends TransportTest {
    @Override
    boolean nativeTransport() { return false; }
}
