package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;

import java.security.GeneralSecurityException;
import java.util.Arrays;

/**
 * One direction of a connection's record layer: the sender's instance seals records, the
 * receiver's opens them, both in place in the record's buffer ({@link WireFormat} shows the
 * record). Records are numbered from 0 per key; the number is never sent: it is implicit in the
 * order of the byte stream, so a record that is replayed, reordered, dropped or injected fails
 * to open.
 *
 * <p>Keys come from a traffic secret ({@link HandshakeCrypto} makes the first one per
 * direction): {@code key = HKDF-Expand(secret, "dsa2 key", 32)}, {@code iv =
 * HKDF-Expand(secret, "dsa2 iv", 12)}. After {@value #RECORDS_PER_KEY} records or
 * {@value #BYTES_PER_KEY} frame bytes under one key, whichever comes first, both ends move to
 * {@code secret' = HKDF-Expand(secret, "dsa2 key update", 32)} at the same record, without a
 * message (both count the same records and bytes), and forget the old secret. So a sequence
 * number never exceeds {@value #RECORDS_PER_KEY} and never wraps, and no key protects more than
 * {@value #BYTES_PER_KEY} bytes (AES-GCM stays far inside its confidentiality bound, about
 * 2^-64 of advantage per key).
 *
 * <p>Not thread-safe: each instance belongs to one channel and runs on its event loop.
 */
abstract class RecordProtection {
    /** Records sealed under one key before both ends update it. */
    static final long RECORDS_PER_KEY = 1L << 24;
    /** Frame bytes sealed under one key before both ends update it: 4 GiB. */
    static final long BYTES_PER_KEY = 1L << 32;
    /** Bytes of the per-key IV that sequence numbers are mixed into. */
    static final int IV_BYTES = 12;

    private final long recordsPerKey;
    private final long bytesPerKey;
    private byte[] trafficSecret;
    private long keyUpdates;
    private long sequence;
    private long bytesUnderKey;

    RecordProtection(byte[] trafficSecret, long recordsPerKey, long bytesPerKey) {
        if (trafficSecret.length != Hkdf.HASH_BYTES) {
            throw new IllegalArgumentException("traffic secret of " + trafficSecret.length + " bytes, expected " + Hkdf.HASH_BYTES);
        }
        if (recordsPerKey < 1 || bytesPerKey < 1) {
            throw new IllegalArgumentException("key limits " + recordsPerKey + " records, " + bytesPerKey + " bytes: expected >= 1");
        }
        this.trafficSecret = trafficSecret.clone();
        this.recordsPerKey = recordsPerKey;
        this.bytesPerKey = bytesPerKey;
    }

    /** @return the protection of one direction in mode {@code security}, with the standard key limits */
    static RecordProtection create(TransportSecurity security, byte[] trafficSecret) {
        return create(security, trafficSecret, RECORDS_PER_KEY, BYTES_PER_KEY);
    }

    /** @return the protection of one direction, keys updated after {@code recordsPerKey} records or {@code bytesPerKey} bytes */
    static RecordProtection create(TransportSecurity security, byte[] trafficSecret, long recordsPerKey, long bytesPerKey) {
        RecordProtection p = switch (security) {
            case ENCRYPT -> new GcmRecordProtection(trafficSecret, recordsPerKey, bytesPerKey);
            case MAC -> new MacRecordProtection(trafficSecret, recordsPerKey, bytesPerKey);
        };
        p.installCurrentKey();
        return p;
    }

    /** @return the number of the next record under the current key */
    final long sequence() { return sequence; }

    /** @return how many times the key was updated on this connection */
    final long keyUpdates() { return keyUpdates; }

    /**
     * Seals one record in place: at {@code headerIndex} its 4-byte header (already written), then
     * {@code frameLength} frame bytes, then {@link WireFormat#RECORD_TAG_BYTES} bytes (inside the
     * buffer's writer index) that receive the tag.
     */
    final void seal(ByteBuf record, int headerIndex, int frameLength) {
        try {
            sealRecord(record, headerIndex, frameLength, sequence);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot seal record " + sequence + ": " + e, e); // a JDK fault, not input
        }
        advance(frameLength);
    }

    /**
     * Opens one record in place (laid out as for {@link #seal}): checks its tag and, when
     * encrypted, decrypts its frame bytes where they are.
     *
     * @return whether the record is authentic; if not, the connection must not read on
     */
    final boolean open(ByteBuf record, int headerIndex, int frameLength) {
        boolean authentic;
        try {
            authentic = openRecord(record, headerIndex, frameLength, sequence);
        } catch (GeneralSecurityException e) {
            authentic = false;
        }
        if (authentic) {
            advance(frameLength);
        }
        return authentic;
    }

    /** Puts {@code key} and {@code iv} in place for the records that follow. */
    abstract void installKey(byte[] key, byte[] iv) throws GeneralSecurityException;

    abstract void sealRecord(ByteBuf record, int headerIndex, int frameLength, long sequence) throws GeneralSecurityException;

    abstract boolean openRecord(ByteBuf record, int headerIndex, int frameLength, long sequence) throws GeneralSecurityException;

    /** Writes the record nonce into {@code nonce}: the IV with the sequence number XORed into its last 8 bytes (TLS 1.3's way). */
    static void nonce(byte[] iv, long sequence, byte[] nonce) {
        System.arraycopy(iv, 0, nonce, 0, IV_BYTES);
        for (int i = 0; i < Long.BYTES; i++) {
            nonce[IV_BYTES - 1 - i] ^= (byte) (sequence >>> (8 * i));
        }
    }

    private void advance(int frameLength) {
        sequence++;
        bytesUnderKey += frameLength;
        if (sequence >= recordsPerKey || bytesUnderKey >= bytesPerKey) {
            byte[] next = Hkdf.expand(trafficSecret, Hkdf.info("dsa2 key update", new byte[0]), Hkdf.HASH_BYTES);
            Arrays.fill(trafficSecret, (byte) 0);
            trafficSecret = next;
            keyUpdates++;
            sequence = 0;
            bytesUnderKey = 0;
            installCurrentKey();
        }
    }

    private void installCurrentKey() {
        byte[] key = Hkdf.expand(trafficSecret, Hkdf.info("dsa2 key", new byte[0]), Hkdf.HASH_BYTES);
        byte[] iv = Hkdf.expand(trafficSecret, Hkdf.info("dsa2 iv", new byte[0]), IV_BYTES);
        try {
            installKey(key, iv);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot install a record key: " + e, e); // a JDK fault
        } finally {
            Arrays.fill(key, (byte) 0);
        }
    }
}
