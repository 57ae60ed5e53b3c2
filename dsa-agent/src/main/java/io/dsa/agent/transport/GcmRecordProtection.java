package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;

/**
 * {@link TransportSecurity#ENCRYPT}: AES-256-GCM over the frame, the record header as
 * additional data, a 96-bit nonce from the implicit sequence number, a 128-bit tag
 * ({@link RecordGcm}).
 *
 * <p>Allocation: works in place in the record's buffer; what remains is the JDK's per-record
 * {@code Cipher.init} ({@link RecordGcm}), and on direct buffers the JDK copies the bytes through
 * temporary arrays (a few KB per record) and in-place work needs one extra {@link ByteBuffer}
 * view of it. Measured in {@code RecordLayerBenchmark} with {@code -prof gc}.
 */
final class GcmRecordProtection extends RecordProtection {
    private final RecordGcm gcm = new RecordGcm();

    GcmRecordProtection(byte[] trafficSecret, long recordsPerKey, long bytesPerKey) {
        super(trafficSecret, recordsPerKey, bytesPerKey);
    }

    @Override
    void installKey(byte[] key, byte[] iv) {
        gcm.install(key, iv);
    }

    @Override
    void sealRecord(ByteBuf record, int headerIndex, int frameLength, long sequence) throws GeneralSecurityException {
        GcmWarmUp.recordOf(frameLength);
        Cipher cipher = gcm.start(Cipher.ENCRYPT_MODE, record, headerIndex, sequence);
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
        GcmWarmUp.recordOf(frameLength);
        Cipher cipher = gcm.start(Cipher.DECRYPT_MODE, record, headerIndex, sequence);
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
}
