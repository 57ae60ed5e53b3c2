package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import javax.crypto.KeyAgreement;
import javax.crypto.Mac;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;

/**
 * The cryptography of the handshake ({@link HandshakeHandler}): nonces, ephemeral X25519 key
 * shares, the transcript hash and the HKDF-SHA256 key schedule. A pre-shared key (the cluster
 * secret) plus ephemeral Diffie-Hellman, the shape of TLS 1.3's {@code psk_dhe_ke} and of
 * Noise's {@code NNpsk0}:
 *
 * <pre>
 * early         = HKDF-Extract(salt = 0^32, ikm = clusterSecret)
 * helloKey      = HKDF-Expand(early, "dsa2 hello mac", 32)
 * HELLO.mac     = HMAC(helloKey, TH(CHALLENGE, HELLO without mac))
 * handshake     = HKDF-Extract(salt = clusterSecret, ikm = X25519(acceptor share, dialer share))
 * welcomeKey    = HKDF-Expand(handshake, "dsa2 welcome mac", 32)
 * WELCOME.mac   = HMAC(welcomeKey, TH(CHALLENGE, HELLO, WELCOME without mac))
 * secret d->a   = HKDF-Expand(handshake, "dsa2 dialer to acceptor" | TH(CHALLENGE, HELLO, WELCOME without mac), 32)
 * secret a->d   = HKDF-Expand(handshake, "dsa2 acceptor to dialer" | TH(...same...), 32)
 * TH(m...)      = SHA-256("dsa-handshake-v2" | each message's whole frame as WireFormat writes it)
 * </pre>
 *
 * The direction secrets are the first traffic secrets of the record layer
 * ({@link RecordProtection}), which derives keys from them and ratchets them forward. Whoever
 * learns the cluster secret later still lacks the ephemeral private keys, which live only for
 * one handshake: recorded traffic stays sealed (forward secrecy). Stateless and thread-safe.
 */
final class HandshakeCrypto {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final byte[] TRANSCRIPT_LABEL = "dsa-handshake-v2".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    /** DER prefix of an X.509 SubjectPublicKeyInfo holding an X25519 key; the raw key follows. */
    private static final byte[] X25519_SPKI_PREFIX = {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x6e, 0x03, 0x21, 0x00};

    /** The handshake's outcome: the key of the WELCOME MAC and the first traffic secret of each direction. */
    record Secrets(byte[] welcomeKey, byte[] dialerToAcceptor, byte[] acceptorToDialer) {
        /** Overwrites the key material (the record layer keeps what it derives from it). */
        void erase() {
            Arrays.fill(welcomeKey, (byte) 0);
            Arrays.fill(dialerToAcceptor, (byte) 0);
            Arrays.fill(acceptorToDialer, (byte) 0);
        }
    }

    private HandshakeCrypto() {}

    /** @return {@value WireFormat#NONCE_BYTES} fresh random bytes */
    static byte[] randomNonce() {
        byte[] nonce = new byte[WireFormat.NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        return nonce;
    }

    /** @return a fresh ephemeral X25519 key pair (about 0.2 ms of CPU: made only for authenticated peers) */
    static KeyPair newKeyShare() {
        try {
            return KeyPairGenerator.getInstance("X25519").generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("X25519 unavailable", e); // every JDK since 11 has it
        }
    }

    /** @return the raw {@value WireFormat#KEY_SHARE_BYTES}-byte public key of {@code share} */
    static byte[] publicBytes(KeyPair share) {
        byte[] encoded = share.getPublic().getEncoded();
        return Arrays.copyOfRange(encoded, encoded.length - WireFormat.KEY_SHARE_BYTES, encoded.length);
    }

    /**
     * X25519 of our private key and the peer's raw public key.
     *
     * @throws GeneralSecurityException when the peer's key is malformed or of small order (an
     *         all-zero result, which the JDK refuses)
     */
    static byte[] agree(PrivateKey mine, byte[] peerPublic) throws GeneralSecurityException {
        if (peerPublic == null || peerPublic.length != WireFormat.KEY_SHARE_BYTES) {
            throw new GeneralSecurityException("key share of " + (peerPublic == null ? "no" : peerPublic.length)
                    + " bytes, expected " + WireFormat.KEY_SHARE_BYTES);
        }
        byte[] spki = Arrays.copyOf(X25519_SPKI_PREFIX, X25519_SPKI_PREFIX.length + WireFormat.KEY_SHARE_BYTES);
        System.arraycopy(peerPublic, 0, spki, X25519_SPKI_PREFIX.length, WireFormat.KEY_SHARE_BYTES);
        KeyAgreement agreement = KeyAgreement.getInstance("XDH");
        agreement.init(mine);
        agreement.doPhase(KeyFactory.getInstance("XDH").generatePublic(new X509EncodedKeySpec(spki)), true);
        return agreement.generateSecret();
    }

    /** @return the transcript hash of {@code messages}, each hashed as its whole frame */
    static byte[] transcript(Object... messages) {
        MessageDigest sha256;
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
        sha256.update(TRANSCRIPT_LABEL);
        ByteBuf frame = Unpooled.buffer(WireFormat.MAX_HANDSHAKE_FRAME_BYTES);
        try {
            for (Object m : messages) {
                frame.clear();
                WireFormat.writeFrame(MessageType.of(m), m, frame);
                sha256.update(frame.nioBuffer());
            }
        } finally {
            frame.release();
        }
        return sha256.digest();
    }

    /** @return the HELLO's MAC over {@code transcript}: proves the cluster secret, checked before any key agreement */
    static byte[] helloMac(byte[] clusterSecret, byte[] transcript) {
        byte[] early = Hkdf.extract(null, clusterSecret);
        byte[] helloKey = Hkdf.expand(early, Hkdf.info("dsa2 hello mac", new byte[0]), Hkdf.HASH_BYTES);
        Arrays.fill(early, (byte) 0);
        byte[] mac = mac(helloKey, transcript);
        Arrays.fill(helloKey, (byte) 0);
        return mac;
    }

    /** @return the session's secrets from the cluster secret, the X25519 result and the transcript up to WELCOME */
    static Secrets derive(byte[] clusterSecret, byte[] sharedSecret, byte[] transcript) {
        byte[] handshake = Hkdf.extract(clusterSecret, sharedSecret);
        Secrets secrets = new Secrets(
                Hkdf.expand(handshake, Hkdf.info("dsa2 welcome mac", new byte[0]), Hkdf.HASH_BYTES),
                Hkdf.expand(handshake, Hkdf.info("dsa2 dialer to acceptor", transcript), Hkdf.HASH_BYTES),
                Hkdf.expand(handshake, Hkdf.info("dsa2 acceptor to dialer", transcript), Hkdf.HASH_BYTES));
        Arrays.fill(handshake, (byte) 0);
        return secrets;
    }

    /** @return the WELCOME's MAC over {@code transcript}: proves the cluster secret and the same key agreement */
    static byte[] welcomeMac(Secrets secrets, byte[] transcript) {
        return mac(secrets.welcomeKey(), transcript);
    }

    /** @return whether {@code got} equals {@code expected}, in time independent of where they differ */
    static boolean macMatches(byte[] expected, byte[] got) {
        return got != null && MessageDigest.isEqual(expected, got);
    }

    private static byte[] mac(byte[] key, byte[] transcript) {
        Mac mac = Hkdf.hmac(key);
        return mac.doFinal(transcript);
    }
}
