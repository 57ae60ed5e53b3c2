package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;

import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.security.GeneralSecurityException;
import java.util.Arrays;

/**
 * {@link TransportSecurity#MAC}: the frame travels in clear, followed by a 128-bit tag bound to
 * the record's sequence number, its header and its frame. Which tag depends on the frame's
 * length (which the tag covers, so an attacker cannot switch it):
 * <ul>
 *   <li>frames under {@value #GCM_TAG_MIN_FRAME_BYTES} bytes: {@code HMAC-SHA256(hmacKey, seq |
 *       header | frame)[0..16)}, allocation-free per record but about a third of AES-GCM's speed
 *       on bulk data;</li>
 *   <li>larger frames: the AES-256-GCM tag of the frame ({@link RecordGcm}: nonce
 *       {@code iv XOR seq}, the header as additional data) computed as if it were encrypted, the
 *       ciphertext thrown away in a reused scratch array. The JDK runs GCM with the AES and
 *       CLMUL instructions, so this authenticates at encryption speed.</li>
 * </ul>
 * {@code hmacKey} and {@code gcmKey} are {@code HKDF-Expand(key, "dsa3 mac hmac key" | "dsa3 mac
 * gcm key", 32)} of the direction's record key, so the two algorithms never share a key. Why the
 * GCM tag of a frame sent in clear is a sound MAC, and not GMAC (GCM with the frame as additional
 * data): docs/security.md, "Modes".
 *
 * <p>Allocation per record: none of ours; the JDK's are the 32-byte result of
 * {@code Mac.doFinal(byte[], int)} for an HMAC, and {@code Cipher.init} (about 1 KB) for a GCM tag.
 * Not thread-safe: each instance belongs to one channel and runs on its event loop.
 */
final class MacRecordProtection extends RecordProtection {
    /** Frames of at least this many bytes get a GCM tag, smaller ones an HMAC. */
    static final int GCM_TAG_MIN_FRAME_BYTES = 4 << 10;
    /** Bytes of frame encrypted into the scratch array per step (a multiple of the AES block). */
    private static final int SCRATCH_STEP_BYTES = 16 << 10;
    private static final String HMAC = "HmacSHA256";

    private final Mac mac;
    private final RecordGcm gcm = new RecordGcm();
    private final byte[] sequenceBytes = new byte[Long.BYTES];
    private final byte[] tag = new byte[Hkdf.HASH_BYTES];
    /** Where the GCM ciphertext is thrown away, and its tag lands: a step plus the tag. */
    private final byte[] scratch = new byte[SCRATCH_STEP_BYTES + WireFormat.RECORD_TAG_BYTES];

    MacRecordProtection(byte[] trafficSecret, long recordsPerKey, long bytesPerKey) {
        super(trafficSecret, recordsPerKey, bytesPerKey);
        try {
            mac = Mac.getInstance(HMAC);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(HMAC + " unavailable", e); // every JDK has it
        }
    }

    @Override
    void installKey(byte[] key, byte[] iv) throws GeneralSecurityException {
        byte[] hmacKey = Hkdf.expand(key, Hkdf.info("dsa3 mac hmac key", new byte[0]), Hkdf.HASH_BYTES);
        byte[] gcmKey = Hkdf.expand(key, Hkdf.info("dsa3 mac gcm key", new byte[0]), Hkdf.HASH_BYTES);
        try {
            mac.init(new SecretKeySpec(hmacKey, HMAC));
            gcm.install(gcmKey, iv);
        } finally {
            Arrays.fill(hmacKey, (byte) 0);
            Arrays.fill(gcmKey, (byte) 0);
        }
    }

    @Override
    void sealRecord(ByteBuf record, int headerIndex, int frameLength, long sequence) throws GeneralSecurityException {
        byte[] t = computeTag(record, headerIndex, frameLength, sequence);
        record.setBytes(tagIndex(headerIndex, frameLength), t, tagOffset(frameLength), WireFormat.RECORD_TAG_BYTES);
    }

    @Override
    boolean openRecord(ByteBuf record, int headerIndex, int frameLength, long sequence) throws GeneralSecurityException {
        byte[] t = computeTag(record, headerIndex, frameLength, sequence);
        int at = tagOffset(frameLength);
        int tagIndex = tagIndex(headerIndex, frameLength);
        int difference = 0;
        for (int i = 0; i < WireFormat.RECORD_TAG_BYTES; i++) {
            difference |= t[at + i] ^ record.getByte(tagIndex + i); // constant time: no early exit
        }
        return difference == 0;
    }

    private static int tagIndex(int headerIndex, int frameLength) {
        return headerIndex + WireFormat.RECORD_HEADER_BYTES + frameLength;
    }

    /** @return where in the array {@link #computeTag} returns the tag starts */
    private static int tagOffset(int frameLength) {
        return frameLength < GCM_TAG_MIN_FRAME_BYTES ? 0 : lastStepBytes(frameLength);
    }

    /** @return the frame bytes of the last GCM step, after which the tag lands in the scratch array */
    private static int lastStepBytes(int frameLength) {
        return frameLength - (frameLength - 1) / SCRATCH_STEP_BYTES * SCRATCH_STEP_BYTES;
    }

    /** @return the array holding the record's tag at {@link #tagOffset} */
    private byte[] computeTag(ByteBuf record, int headerIndex, int frameLength, long sequence) throws GeneralSecurityException {
        if (frameLength < GCM_TAG_MIN_FRAME_BYTES) {
            for (int i = 0; i < Long.BYTES; i++) {
                sequenceBytes[i] = (byte) (sequence >>> (8 * (Long.BYTES - 1 - i)));
            }
            mac.update(sequenceBytes);
            mac.update(record.internalNioBuffer(headerIndex, WireFormat.RECORD_HEADER_BYTES + frameLength));
            mac.doFinal(tag, 0);
            return tag;
        }
        GcmWarmUp.recordOf(frameLength);
        Cipher cipher = gcm.start(Cipher.ENCRYPT_MODE, record, headerIndex, sequence);
        int index = headerIndex + WireFormat.RECORD_HEADER_BYTES;
        int end = index + frameLength - lastStepBytes(frameLength);
        if (record.hasArray()) {
            byte[] a = record.array();
            int offset = record.arrayOffset();
            for (; index < end; index += SCRATCH_STEP_BYTES) {
                cipher.update(a, offset + index, SCRATCH_STEP_BYTES, scratch, 0);
            }
            cipher.doFinal(a, offset + index, lastStepBytes(frameLength), scratch, 0);
        } else { // the frame's bytes go through the scratch array, then are encrypted there in place
            for (; index < end; index += SCRATCH_STEP_BYTES) {
                record.getBytes(index, scratch, 0, SCRATCH_STEP_BYTES);
                cipher.update(scratch, 0, SCRATCH_STEP_BYTES, scratch, 0);
            }
            int last = lastStepBytes(frameLength);
            record.getBytes(index, scratch, 0, last);
            cipher.doFinal(scratch, 0, last, scratch, 0);
        }
        return scratch;
    }
}
