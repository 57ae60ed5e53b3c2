package io.dsa.agent.transport;

import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static io.dsa.agent.transport.ChannelChecks.closeReason;
import static io.dsa.agent.transport.ChannelChecks.drain;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link TransportSecurity#MAC}'s two tags ({@link MacRecordProtection}): HMAC-SHA256 for frames
 * under {@value MacRecordProtection#GCM_TAG_MIN_FRAME_BYTES} bytes, the AES-256-GCM tag for larger
 * ones. The tags are pinned against the JDK's own primitives, every byte of a bulk record is
 * tampered with, and records of every size around the switch and the scratch steps round-trip in
 * heap and direct buffers, across key updates. {@code RecordLayerTest} runs the mode's other cases
 * (replay, reorder, drop, injection, truncation) on the channel.
 */
@Timeout(60)
class MacRecordProtectionTest {
    private static final byte[] SECRET = new byte[Hkdf.HASH_BYTES];
    private static final int GCM = MacRecordProtection.GCM_TAG_MIN_FRAME_BYTES;

    static {
        new Random(5).nextBytes(SECRET);
    }

    private static RecordProtection mac() {
        return RecordProtection.create(TransportSecurity.MAC, SECRET);
    }

    /** @return a record of a frame of {@code frameLength} random bytes (seed {@code seed}), its tag not yet written */
    private static ByteBuf record(int frameLength, long seed, boolean direct) {
        byte[] frame = new byte[frameLength];
        new Random(seed).nextBytes(frame);
        int capacity = frameLength + WireFormat.RECORD_OVERHEAD_BYTES;
        ByteBuf record = direct ? Unpooled.directBuffer(capacity) : Unpooled.buffer(capacity);
        return record.writeInt(frameLength + WireFormat.RECORD_TAG_BYTES).writeBytes(frame).writeZero(WireFormat.RECORD_TAG_BYTES);
    }

    private static byte[] bytes(ByteBuf b) {
        byte[] out = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), out);
        return out;
    }

    private static byte[] expand(byte[] prk, String label, int length) {
        return Hkdf.expand(prk, Hkdf.info(label, new byte[0]), length);
    }

    /** @return the tag record {@code sequence} must carry, computed from the JDK's HMAC and GCM as docs/security.md says */
    private static byte[] expectedTag(byte[] record, long sequence) throws Exception {
        byte[] key = expand(SECRET, "dsa2 key", 32);
        int frameLength = record.length - WireFormat.RECORD_OVERHEAD_BYTES;
        byte[] headerAndFrame = Arrays.copyOf(record, WireFormat.RECORD_HEADER_BYTES + frameLength);
        if (frameLength < GCM) {
            Mac hmac = Mac.getInstance("HmacSHA256");
            hmac.init(new SecretKeySpec(expand(key, "dsa3 mac hmac key", 32), "HmacSHA256"));
            hmac.update(new byte[] {0, 0, 0, 0, 0, 0, 0, (byte) sequence});
            return Arrays.copyOf(hmac.doFinal(headerAndFrame), WireFormat.RECORD_TAG_BYTES);
        }
        byte[] nonce = new byte[RecordProtection.IV_BYTES];
        RecordProtection.nonce(expand(SECRET, "dsa2 iv", RecordProtection.IV_BYTES), sequence, nonce);
        Cipher gcm = Cipher.getInstance("AES/GCM/NoPadding");
        gcm.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(expand(key, "dsa3 mac gcm key", 32), "AES"), new GCMParameterSpec(128, nonce));
        gcm.updateAAD(headerAndFrame, 0, WireFormat.RECORD_HEADER_BYTES);
        byte[] sealed = gcm.doFinal(headerAndFrame, WireFormat.RECORD_HEADER_BYTES, frameLength);
        return Arrays.copyOfRange(sealed, frameLength, frameLength + WireFormat.RECORD_TAG_BYTES);
    }

    @Test
    void smallFramesCarryTheirHmacAndLargeOnesTheGcmTagOfTheirBytes() throws Exception {
        int[] lengths = {6, GCM - 1, GCM, GCM + 1, 16 << 10, (16 << 10) + 1, 40_000, (128 << 10) + 30};
        for (boolean direct : new boolean[] {false, true}) {
            RecordProtection sender = mac();
            for (int i = 0; i < lengths.length; i++) {
                ByteBuf record = record(lengths[i], i, direct);
                byte[] frameBefore = Arrays.copyOfRange(bytes(record), 0, WireFormat.RECORD_HEADER_BYTES + lengths[i]);
                sender.seal(record, 0, lengths[i]);
                byte[] sealed = bytes(record);
                String what = lengths[i] + " bytes, " + (direct ? "direct" : "heap");
                assertArrayEquals(frameBefore, Arrays.copyOf(sealed, frameBefore.length), what + ": the frame stays in clear");
                assertArrayEquals(expectedTag(sealed, i), Arrays.copyOfRange(sealed, frameBefore.length, sealed.length), what);
                record.release();
            }
        }
    }

    @Test
    void everyFlippedByteOfALargeRecordFailsToOpen() {
        int frameLength = (16 << 10) + 17; // two scratch steps
        ByteBuf record = record(frameLength, 1, false);
        mac().seal(record, 0, frameLength);
        byte[] sealed = bytes(record);
        record.release();
        // a fresh receiver each time: after a failure the connection closes, and the JDK's GCM refuses
        // to compute the same nonce twice in a row, so a used receiver would fail for that reason
        for (int i = 0; i < sealed.length; i++) {
            byte[] tampered = sealed.clone();
            tampered[i] ^= (byte) (1 << (i % 8));
            assertFalse(mac().open(Unpooled.wrappedBuffer(tampered), 0, frameLength), "byte " + i + " was flipped and the record still opened");
        }
        assertTrue(mac().open(Unpooled.wrappedBuffer(sealed), 0, frameLength), "the untouched record opens");
    }

    @Test
    void everyFlippedByteOfALargeRecordClosesTheConnectionAndNothingAfterItIsDecoded() {
        EmbeddedChannel s = new EmbeddedChannel(new RecordEncoder(mac()), new FrameEncoder(1 << 20));
        List<byte[]> records = new ArrayList<>();
        for (Object m : List.of(new CoherenceMessage(CoherenceOp.DATA_S, 1, 2, 0, 3, 3, new byte[GCM + 100]),
                new CoherenceMessage(CoherenceOp.DATA_S, 1, 3, 0, 3, 3, new byte[GCM + 100]))) {
            assertTrue(s.writeOutbound(m));
            ByteBuf r = s.readOutbound();
            records.add(bytes(r));
            r.release();
        }
        assertFalse(s.finish());
        byte[] first = records.get(0);
        for (int i = 0; i < first.length; i++) {
            byte[] tampered = first.clone();
            tampered[i] ^= (byte) (0x80 >>> (i % 8));
            EmbeddedChannel r = new EmbeddedChannel(new RecordDecoder(mac(), 1 << 20), new FrameDecoder(1 << 20, false));
            r.writeInbound(Unpooled.wrappedBuffer(tampered, records.get(1)));
            r.close(); // a longer forged length waits for bytes that never come: the end tells
            assertTrue(drain(r).isEmpty(), "byte " + i + " delivered something");
            String reason = closeReason(r);
            assertTrue(reason.startsWith("record 0 ") || reason.startsWith("connection ended inside record 0 "), "byte " + i + ": " + reason);
            assertFalse(r.finish());
        }
    }

    @Test
    void aLargeRecordOpensOnlyAtItsOwnSequenceNumber() {
        RecordProtection sender = mac();
        ByteBuf first = record(GCM * 2, 1, false);
        ByteBuf second = record(GCM * 2, 1, false); // the same bytes: only the sequence number tells them apart
        sender.seal(first, 0, GCM * 2);
        sender.seal(second, 0, GCM * 2);
        assertFalse(Arrays.equals(bytes(first), bytes(second)), "the same frame at another sequence number gets another tag");
        assertFalse(mac().open(second, 0, GCM * 2), "record 1 replayed as record 0");
        RecordProtection receiver = mac();
        assertTrue(receiver.open(first, 0, GCM * 2));
        assertFalse(receiver.open(first, 0, GCM * 2), "record 0 replayed as record 1");
        first.release();
        second.release();
    }

    @Test
    void recordsOfEverySizeAroundTheSwitchAndTheStepsRoundTripAcrossKeyUpdates() {
        for (boolean direct : new boolean[] {false, true}) {
            RecordProtection sender = RecordProtection.create(TransportSecurity.MAC, SECRET, 5, 100_000);
            RecordProtection receiver = RecordProtection.create(TransportSecurity.MAC, SECRET, 5, 100_000);
            List<ByteBuf> sealed = new ArrayList<>();
            int[] around = {1, GCM - 1, GCM, GCM + 1, (16 << 10) - 1, 16 << 10, (16 << 10) + 1, 32 << 10, (32 << 10) + 1, (128 << 10) + 30};
            for (int round = 0; round < 4; round++) {
                for (int length : around) {
                    ByteBuf record = record(length, length + round, direct);
                    sender.seal(record, 0, length);
                    sealed.add(record);
                }
            }
            for (ByteBuf record : sealed) {
                int length = record.readableBytes() - WireFormat.RECORD_OVERHEAD_BYTES;
                assertTrue(receiver.open(record, 0, length), length + " bytes at key update " + receiver.keyUpdates());
            }
            assertTrue(sender.keyUpdates() >= 8, "updates " + sender.keyUpdates());
            assertEquals(sender.keyUpdates(), receiver.keyUpdates());
            assertEquals(sender.sequence(), receiver.sequence());
            // the large record sealed first, opened again under a later key at the same sequence number, fails
            ByteBuf early = sealed.get(2);
            while (receiver.sequence() != 2) {
                ByteBuf filler = record(1, 0, false);
                assertTrue(receiver.open(Unpooled.wrappedBuffer(sealOne(sender, filler)), 0, 1));
                filler.release();
            }
            assertFalse(receiver.open(early, 0, GCM), "a record of an earlier key at the same sequence number");
            sealed.forEach(ByteBuf::release);
        }
    }

    private static byte[] sealOne(RecordProtection sender, ByteBuf record) {
        sender.seal(record, 0, record.readableBytes() - WireFormat.RECORD_OVERHEAD_BYTES);
        return bytes(record);
    }
}
