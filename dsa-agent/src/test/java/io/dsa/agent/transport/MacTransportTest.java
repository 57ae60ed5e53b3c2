package io.dsa.agent.transport;

/** Every loopback test again with {@link TransportSecurity#MAC}: frames in clear, each one authenticated. */
class MacTransportTest extends TransportTest {
    @Override
    TransportSecurity security() { return TransportSecurity.MAC; }
}
