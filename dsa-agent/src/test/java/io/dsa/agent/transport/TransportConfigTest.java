package io.dsa.agent.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class TransportConfigTest {
    private static final byte[] SECRET = "sixteen-bytes-at-least".getBytes(StandardCharsets.UTF_8);

    private static TransportConfig.Builder valid() {
        return TransportConfig.builder().vmName("vm").nodeId(0).secret(SECRET);
    }

    @Test
    void defaultsAreTheNamedConstants() {
        TransportConfig c = valid().build();
        assertEquals(TransportConfig.DEFAULT_BIND_HOST, c.bindHost());
        assertEquals(TransportConfig.DEFAULT_PORT, c.port());
        assertEquals(64 << 20, c.maxFrameBytes());
        assertEquals(TransportConfig.DEFAULT_HANDSHAKE_TIMEOUT_MS, c.handshakeTimeoutMs());
        assertEquals(TransportConfig.DEFAULT_CONNECT_TIMEOUT_MS, c.connectTimeoutMs());
        assertEquals(TransportSecurity.ENCRYPT, c.security());
        assertEquals(1024, c.maxPendingHandshakes());
        assertEquals(256, c.maxPendingHandshakesPerSource());
        assertTrue(c.preferNativeTransport());
        assertArrayEquals(SECRET, c.secret());
        assertFalse(c.toString().contains("sixteen"), "toString must not show the secret");
    }

    @Test
    void secretIsCopied() {
        byte[] secret = SECRET.clone();
        TransportConfig c = valid().secret(secret).build();
        secret[0] = 'X';
        c.secret()[1] = 'Y';
        assertArrayEquals(SECRET, c.secret());
    }

    @Test
    void invalidSettingsNameTheValue() {
        assertMessage("cluster secret has 4 bytes, at least 16 required", valid().secret(new byte[4]));
        assertMessage("cluster secret has no bytes, at least 16 required", valid().secret(null));
        assertMessage("port 70000 out of range [0, 65535]", valid().port(70_000));
        assertMessage("node id -1 invalid: expected >= 0 (is it set?)", TransportConfig.builder().vmName("vm").secret(SECRET));
        assertMessage("vm name '' has 0 UTF-8 bytes, expected [1, 255]", valid().vmName(""));
        assertMessage("max frame bytes 10 too small, expected >= 1024", valid().maxFrameBytes(10));
        assertMessage("handshake timeout 0 ms invalid, expected > 0", valid().handshakeTimeoutMs(0));
        assertMessage("max pending handshakes 0 invalid, expected > 0", valid().maxPendingHandshakes(0));
        assertMessage("max pending handshakes per source -1 invalid, expected > 0", valid().maxPendingHandshakesPerSource(-1));
        assertEquals("transport security is required (ENCRYPT or MAC)",
                assertThrows(NullPointerException.class, () -> valid().security(null).build()).getMessage());
        assertThrows(NullPointerException.class, () -> valid().vmName(null).build());
    }

    private static void assertMessage(String expected, TransportConfig.Builder builder) {
        assertEquals(expected, assertThrows(IllegalArgumentException.class, builder::build).getMessage());
    }
}
