package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.security.GeneralSecurityException;

/**
 * {@link TransportSecurity#MAC}: the frame travels in clear, followed by
 * {@code HMAC-SHA256(key, sequence | header | frame)} truncated to 128 bits.
 *
 * <p>Chosen over AES-GMAC (measured in {@code RecordLayerBenchmark}, see docs/security.md): on
 * JDK 17 a GMAC needs a {@code Cipher.init} per record (fresh GHASH state, about 1 KB) and buffers
 * all its additional data, so it copies the whole frame into garbage on every record; HMAC reuses
 * one {@link Mac} per direction, reads the frame where it is (direct buffers go through the
 * digest's own reused scratch array) and allocates only the 32-byte result that
 * {@code Mac.doFinal(byte[], int)} makes internally.
 */
final class HmacRecordProtection extends RecordProtection {
    private static final String HMAC = "HmacSHA256";

    private final Mac mac;
    private final byte[] sequenceBytes = new byte[Long.BYTES];
    private final byte[] tag = new byte[Hkdf.HASH_BYTES];

    HmacRecordProtection(byte[] trafficSecret, long recordsPerKey, long bytesPerKey) {
        super(trafficSecret, recordsPerKey, bytesPerKey);
        try {
            mac = Mac.getInstance(HMAC);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(HMAC + " unavailable", e); // every JDK has it
        }
    }

    @Override
    void installKey(byte[] key, byte[] iv) throws GeneralSecurityException {
        mac.init(new SecretKeySpec(key, HMAC)); // the IV is not needed: the sequence number is MACed
    }

    @Override
    void sealRecord(ByteBuf record, int headerIndex, int frameLength, long sequence) throws GeneralSecurityException {
        computeTag(record, headerIndex, frameLength, sequence);
        record.setBytes(headerIndex + WireFormat.RECORD_HEADER_BYTES + frameLength, tag, 0, WireFormat.RECORD_TAG_BYTES);
    }

    @Override
    boolean openRecord(ByteBuf record, int headerIndex, int frameLength, long sequence) throws GeneralSecurityException {
        computeTag(record, headerIndex, frameLength, sequence);
        int tagIndex = headerIndex + WireFormat.RECORD_HEADER_BYTES + frameLength;
        int difference = 0;
        for (int i = 0; i < WireFormat.RECORD_TAG_BYTES; i++) {
            difference |= tag[i] ^ record.getByte(tagIndex + i); // constant time: no early exit
        }
        return difference == 0;
    }

    private void computeTag(ByteBuf record, int headerIndex, int frameLength, long sequence) throws GeneralSecurityException {
        for (int i = 0; i < Long.BYTES; i++) {
            sequenceBytes[i] = (byte) (sequence >>> (8 * (Long.BYTES - 1 - i)));
        }
        mac.update(sequenceBytes);
        mac.update(record.internalNioBuffer(headerIndex, WireFormat.RECORD_HEADER_BYTES + frameLength));
        mac.doFinal(tag, 0);
    }
}
