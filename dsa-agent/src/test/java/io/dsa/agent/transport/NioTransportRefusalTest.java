package io.dsa.agent.transport;

/** Every refusal test again on the NIO transport, the fallback when native epoll is missing. */
class NioTransportRefusalTest extends TransportRefusalTest {
    @Override
    boolean nativeTransport() { return false; }
}
