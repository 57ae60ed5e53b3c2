package io.dsa.agent.transport;

/**
 * How an authenticated connection protects its frames after the handshake (the record layer,
 * see {@link WireFormat}). Both ends of a connection must be configured with the same value: the
 * handshake carries each side's choice inside its authenticated transcript and refuses a
 * mismatch, naming both, so an on-path relay cannot downgrade a connection. The code of each
 * value is its wire form (u8): it never changes while the value's protection stays the same, and a
 * protection that changes gets a new code, so builds that would not understand each other's records
 * refuse each other in the handshake ({@link #RETIRED_MAC_CODE}).
 */
public enum TransportSecurity {
    /**
     * The default: every frame is encrypted and authenticated with AES-256-GCM under per-direction
     * session keys, so a relay can neither read nor change, inject, replay, reorder or cut frames.
     */
    ENCRYPT(1),
    /**
     * For trusted networks only, never the default: every frame is authenticated with a 128-bit
     * tag bound to its sequence number (HMAC-SHA256 for frames under 4 KiB, the AES-256-GCM tag
     * for larger ones) but travels in clear, so a relay can read the traffic but can neither
     * change, inject, replay, reorder nor cut frames. Code 3 since the GCM tag; code 2 was this
     * mode with HMAC-SHA256 on every frame.
     */
    MAC(3);

    /** The code of {@link #MAC} in builds that tagged every frame with HMAC-SHA256; refused since. */
    static final int RETIRED_MAC_CODE = 2;

    private final int code;

    TransportSecurity(int code) {
        if (code <= 0 || code > 255) {
            throw new IllegalArgumentException("transport security code " + code + " out of range [1, 255]");
        }
        this.code = code;
    }

    /** @return the wire code, in {@code [1, 255]} */
    int code() { return code; }

    /** @return the value with wire code {@code code}, or {@code null} if none */
    static TransportSecurity fromCode(int code) {
        for (TransportSecurity s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        return null;
    }
}
