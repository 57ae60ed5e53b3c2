package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;

/**
 * {@link TransportSecurity#ENCRYPT}: AES-256-GCM over the frame, the record header as
 * additional data, a 96-bit nonce from the implicit sequence number, a 128-bit tag.
 *
 * <p>Allocation: this class reuses its {@link Cipher}, key and byte arrays, and works in place
 * in the record's buffer. The JDK's GCM does not allow a per-record re-key without garbage:
 * {@code Cipher.init} needs a new {@link GCMParameterSpec} and builds fresh GHASH/counter state
 * (about 1 KB on JDK 17), and on direct buffers it copies the bytes through temporary arrays
 * (a few KB per record); in-place work on a direct buffer needs one extra {@link ByteBuffer}
 * view of it. Measured in {@code RecordLayerBenchmark} with {@code -prof gc}.
 */
final class GcmRecordProtection extends RecordProtection {
    private static final int TAG_BITS = WireFormat.RECORD_TAG_BYTES * 8;

    private final Cipher cipher;
    private final byte[] iv = new byte[IV_BYTES];
    private final byte[] nonce = new byte[IV_BYTES];
    private final byte[] header = new byte[WireFormat.RECORD_HEADER_BYTES];
    private SecretKeySpec key;

    GcmRecordProtection(byte[] trafficSecret, long recordsPerKey, long bytesPerKey) {
        super(trafficSecret, recordsPerKey, bytesPerKey);
        try {
            cipher = Cipher.getInstance("AES/GCM/NoPadding");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES/GCM unavailable", e); // every JDK has it
        }
    }

    @Override
    void installKey(byte[] key, byte[] iv) {
        this.key = new SecretKeySpec(key, "AES");
        System.arraycopy(iv, 0, this.iv, 0, IV_BYTES);
    }

    @Override
    void sealRecord(ByteBuf record, int headerIndex, int frameLength, long sequence) throws GeneralSecurityException {
        start(Cipher.ENCRYPT_MODE, record, headerIndex, sequence);
        int frameIndex = headerIndex + WireFormat.RECORD_HEADER_BYTES;
        if (record.hasArray()) {
            byte[] a = record.array();
            int offset = record.arrayOffset() + frameIndex;
            cipher.doFinal(a, offset, frameLength, a, offset);
        } else {
            ByteBuffer in = record.nioBuffer(frameIndex, frameLength);
            cipher.doFinal(in, record.internalNioBuffer(frameIndex, frameLength + WireFormat.RECORD_TAG_BYTES));
        }
    }

    @Override
    boolean openRecord(ByteBuf record, int headerIndex, int frameLength, long sequence) throws GeneralSecurityException {
        start(Cipher.DECRYPT_MODE, record, headerIndex, sequence);
        int frameIndex = headerIndex + WireFormat.RECORD_HEADER_BYTES;
        int sealedLength = frameLength + WireFormat.RECORD_TAG_BYTES;
        try {
            if (record.hasArray()) {
                byte[] a = record.array();
                int offset = record.arrayOffset() + frameIndex;
                cipher.doFinal(a, offset, sealedLength, a, offset);
            } else {
                ByteBuffer in = record.nioBuffer(frameIndex, sealedLength);
                cipher.doFinal(in, record.internalNioBuffer(frameIndex, frameLength));
            }
            return true;
        } catch (AEADBadTagException e) {
            return false;
        }
    }

    private void start(int mode, ByteBuf record, int headerIndex, long sequence) throws GeneralSecurityException {
        nonce(iv, sequence, nonce);
        cipher.init(mode, key, new GCMParameterSpec(TAG_BITS, nonce));
        record.getBytes(headerIndex, header);
        cipher.updateAAD(header);
    }
}
