package io.dsa.agent.transport;

/** Every refusal test again with {@link TransportSecurity#MAC}: frames in clear, each one authenticated. */
class MacTransportRefusalTest extends TransportRefusalTest {
    @Override
    TransportSecurity security() { return TransportSecurity.MAC; }
}
