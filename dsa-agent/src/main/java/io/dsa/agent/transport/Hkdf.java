package io.dsa.agent.transport;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;

/**
 * HKDF with HMAC-SHA256 (RFC 5869) on {@link javax.crypto.Mac}: the key schedule of the handshake
 * and of the record layer's key updates. Stateless and thread-safe; allocates its results.
 */
final class Hkdf {
    /** Output length of HMAC-SHA256, in bytes: the length of a pseudorandom key. */
    static final int HASH_BYTES = 32;
    /** Longest output of one expand, in bytes (RFC 5869: 255 blocks). */
    static final int MAX_OUTPUT_BYTES = 255 * HASH_BYTES;

    private static final String HMAC = "HmacSHA256";

    private Hkdf() {}

    /**
     * HKDF-Extract: {@code HMAC(salt, ikm)}.
     *
     * @param salt the salt; null or empty stands for {@value #HASH_BYTES} zero bytes
     * @param ikm the input keying material
     * @return the {@value #HASH_BYTES}-byte pseudorandom key
     */
    static byte[] extract(byte[] salt, byte[] ikm) {
        Mac mac = hmac(salt == null || salt.length == 0 ? new byte[HASH_BYTES] : salt);
        return mac.doFinal(ikm);
    }

    /**
     * HKDF-Expand: {@code T(1) | T(2) | ...} with {@code T(i) = HMAC(prk, T(i-1) | info | i)},
     * truncated to {@code length} bytes.
     *
     * @param prk a pseudorandom key, at least {@value #HASH_BYTES} bytes
     * @param info context and label; may be empty
     * @param length output bytes, in {@code [1, MAX_OUTPUT_BYTES]}
     * @throws IllegalArgumentException for a length out of range or a short key
     */
    static byte[] expand(byte[] prk, byte[] info, int length) {
        if (length < 1 || length > MAX_OUTPUT_BYTES) {
            throw new IllegalArgumentException("HKDF output length " + length + " out of range [1, " + MAX_OUTPUT_BYTES + "]");
        }
        if (prk.length < HASH_BYTES) {
            throw new IllegalArgumentException("HKDF key of " + prk.length + " bytes, expected at least " + HASH_BYTES);
        }
        Mac mac = hmac(prk);
        byte[] out = new byte[length];
        byte[] block = new byte[0];
        for (int i = 1, done = 0; done < length; i++) {
            mac.update(block);
            mac.update(info);
            mac.update((byte) i);
            block = mac.doFinal();
            int n = Math.min(HASH_BYTES, length - done);
            System.arraycopy(block, 0, out, done, n);
            done += n;
        }
        return out;
    }

    /** @return {@code info} for {@link #expand}: the ASCII label followed by the context bytes */
    static byte[] info(String label, byte[] context) {
        byte[] l = label.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] info = new byte[l.length + context.length];
        System.arraycopy(l, 0, info, 0, l.length);
        System.arraycopy(context, 0, info, l.length, context.length);
        return info;
    }

    /** @return an HMAC-SHA256 keyed with {@code key} */
    static Mac hmac(byte[] key) {
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(new SecretKeySpec(key, HMAC));
            return mac;
        } catch (InvalidKeyException e) {
            throw new IllegalArgumentException("HMAC key rejected: " + e.getMessage(), e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(HMAC + " unavailable", e); // every JDK has it
        }
    }
}
