package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;

import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.security.GeneralSecurityException;

/**
 * AES-256-GCM started for one record: the key of the current traffic secret, the nonce
 * {@code iv XOR seq} ({@link RecordProtection#nonce}) and the record's 4-byte header as
 * additional data. Shared by both modes: {@link GcmRecordProtection} encrypts the frame with it,
 * {@link MacRecordProtection} keeps only the tag of large frames.
 *
 * <p>Reuses its {@link Cipher}, key and byte arrays. The JDK's GCM cannot be re-keyed per record
 * without garbage: {@code Cipher.init} needs a new {@link GCMParameterSpec} and builds fresh
 * GHASH/counter state (about 1 KB on JDK 17). Not thread-safe: one per direction.
 */
final class RecordGcm {
    private static final int TAG_BITS = WireFormat.RECORD_TAG_BYTES * 8;

    private final Cipher cipher;
    private final byte[] iv = new byte[RecordProtection.IV_BYTES];
    private final byte[] nonce = new byte[RecordProtection.IV_BYTES];
    private final byte[] header = new byte[WireFormat.RECORD_HEADER_BYTES];
    private SecretKeySpec key;

    RecordGcm() {
        try {
            cipher = Cipher.getInstance("AES/GCM/NoPadding");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES/GCM unavailable", e); // every JDK has it
        }
    }

    /** Puts a 32-byte AES key and a 12-byte IV in place for the records that follow. */
    void install(byte[] key, byte[] iv) {
        this.key = new SecretKeySpec(key, "AES");
        System.arraycopy(iv, 0, this.iv, 0, RecordProtection.IV_BYTES);
    }

    /**
     * @param mode {@link Cipher#ENCRYPT_MODE} or {@link Cipher#DECRYPT_MODE}
     * @return the cipher, initialised for record {@code sequence} whose header is at {@code headerIndex}
     *         of {@code record}, its additional data already given
     */
    Cipher start(int mode, ByteBuf record, int headerIndex, long sequence) throws GeneralSecurityException {
        RecordProtection.nonce(iv, sequence, nonce);
        cipher.init(mode, key, new GCMParameterSpec(TAG_BITS, nonce));
        record.getBytes(headerIndex, header);
        cipher.updateAAD(header);
        return cipher;
    }
}
