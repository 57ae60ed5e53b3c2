package io.dsa.agent.transport;

import io.dsa.agent.wire.HostJobMessage;
import io.dsa.agent.wire.JoinMessage;
import io.dsa.agent.wire.ReportMessage;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static io.dsa.agent.transport.ChannelChecks.closeReason;
import static io.dsa.agent.transport.ChannelChecks.drain;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The record layer without sockets: sealing and opening round trips in both modes, byte-by-byte
 * feeding, and every way a relay can tamper with the stream (flipped bytes, replayed, reordered,
 * dropped, injected or truncated records), each closing the channel with a reason and delivering
 * nothing after it. Every buffer is released (the build runs with paranoid leak detection).
 */
@Timeout(30)
class RecordLayerTest {
    private static final int MAX_FRAME_BYTES = 1 << 20;
    private static final byte[] SECRET = secret(1);

    private static byte[] secret(int seed) {
        byte[] s = new byte[Hkdf.HASH_BYTES];
        new Random(seed).nextBytes(s);
        return s;
    }

    private static EmbeddedChannel sender(RecordProtection protection) {
        return new EmbeddedChannel(new RecordEncoder(protection), new FrameEncoder(MAX_FRAME_BYTES));
    }

    private static EmbeddedChannel sender(TransportSecurity security) {
        return sender(RecordProtection.create(security, SECRET));
    }

    private static EmbeddedChannel receiver(RecordProtection protection) {
        return new EmbeddedChannel(new RecordDecoder(protection, MAX_FRAME_BYTES), new FrameDecoder(MAX_FRAME_BYTES, false));
    }

    private static EmbeddedChannel receiver(TransportSecurity security) {
        return receiver(RecordProtection.create(security, SECRET));
    }

    /** @return the records {@code sender} writes for {@code messages}, each as its own byte array */
    private static List<byte[]> seal(EmbeddedChannel sender, List<?> messages) {
        List<byte[]> records = new ArrayList<>();
        for (Object m : messages) {
            assertTrue(sender.writeOutbound(m));
            ByteBuf record = sender.readOutbound();
            byte[] bytes = new byte[record.readableBytes()];
            record.readBytes(bytes);
            record.release();
            records.add(bytes);
        }
        return records;
    }

    private static List<byte[]> seal(TransportSecurity security, Object... messages) {
        EmbeddedChannel s = sender(security);
        List<byte[]> records = seal(s, List.of(messages));
        assertFalse(s.finish());
        return records;
    }

    private static ByteBuf concat(boolean direct, byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) n += p.length;
        ByteBuf out = direct ? Unpooled.directBuffer(n) : Unpooled.buffer(n);
        for (byte[] p : parts) out.writeBytes(p);
        return out;
    }

    private static void assertCanonical(List<?> expected, List<?> actual) {
        assertEquals(expected.size(), actual.size());
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(Messages.canonical(expected.get(i)), Messages.canonical(actual.get(i)), "message " + i);
        }
    }

    @ParameterizedTest
    @EnumSource(TransportSecurity.class)
    void everyMessageRoundTripsInRecordsFromHeapAndDirectBuffers(TransportSecurity security) {
        List<Object> all = FrameCodecTest.everyMessage();
        for (boolean direct : new boolean[] {false, true}) {
            List<byte[]> records = seal(sender(security), all);
            EmbeddedChannel r = receiver(security);
            ByteBuf in = concat(direct, records.toArray(new byte[0][]));
            r.writeInbound(in);
            assertCanonical(all, drain(r));
            assertTrue(r.isOpen());
            assertEquals(0, in.refCnt());
            assertFalse(r.finish());
        }
    }

    @ParameterizedTest
    @EnumSource(TransportSecurity.class)
    void recordsFedByteByByteOpenExactlyAtTheirLastByte(TransportSecurity security) {
        List<Object> messages = List.of(new JoinMessage(1, "h", 2), new ReportMessage(3, "é"),
                new CoherenceMessage(CoherenceOp.DATA_S, 1, 2, 0, 3, 3, new byte[300]));
        List<byte[]> records = seal(security, messages.toArray());
        EmbeddedChannel r = receiver(security);
        List<Object> received = new ArrayList<>();
        List<ByteBuf> fed = new ArrayList<>();
        for (byte[] record : records) {
            for (int i = 0; i < record.length; i++) {
                ByteBuf one = Unpooled.directBuffer(1).writeByte(record[i]);
                fed.add(one);
                r.writeInbound(one);
                Object m = r.readInbound();
                assertEquals(i == record.length - 1, m != null, "message only at the record's last byte, byte " + i);
                if (m != null) received.add(m);
            }
        }
        assertCanonical(messages, received);
        assertFalse(r.finish());
        assertTrue(fed.stream().allMatch(b -> b.refCnt() == 0), "every buffer fed was released");
    }

    @Test
    void encryptHidesTheFrameAndMacLeavesItReadable() {
        String text = "a partition of secret numbers";
        byte[] plain = text.getBytes(StandardCharsets.UTF_8);
        byte[] encrypted = seal(TransportSecurity.ENCRYPT, new ReportMessage(1, text)).get(0);
        byte[] macOnly = seal(TransportSecurity.MAC, new ReportMessage(1, text)).get(0);
        assertEquals(encrypted.length, macOnly.length);
        assertFalse(contains(encrypted, plain), "ENCRYPT must not show the frame");
        assertTrue(contains(macOnly, plain), "MAC carries the frame in clear");
    }

    @Test
    void recordLayoutIsPinned() {
        // [record length = frame 19 + tag 16][frame: len=15, ver, JOIN, nodeId=1, "h", port=2][tag 16]
        byte[] frame = {0, 0, 0, 15, (byte) WireFormat.VERSION, 10, 0, 0, 0, 1, 0, 0, 0, 1, 'h', 0, 0, 0, 2};
        byte[] record = seal(TransportSecurity.MAC, new JoinMessage(1, "h", 2)).get(0);
        assertEquals(4 + frame.length + 16, record.length);
        assertArrayEquals(new byte[] {0, 0, 0, (byte) (frame.length + 16)}, java.util.Arrays.copyOfRange(record, 0, 4));
        assertArrayEquals(frame, java.util.Arrays.copyOfRange(record, 4, 4 + frame.length));
        byte[] encrypted = seal(TransportSecurity.ENCRYPT, new JoinMessage(1, "h", 2)).get(0);
        assertArrayEquals(java.util.Arrays.copyOfRange(record, 0, 4), java.util.Arrays.copyOfRange(encrypted, 0, 4));
    }

    @ParameterizedTest
    @EnumSource(TransportSecurity.class)
    void everyFlippedBitIsRejectedAndNothingAfterItIsDecoded(TransportSecurity security) {
        List<byte[]> records = seal(security, new JoinMessage(1, "h", 2), new JoinMessage(3, "after", 4));
        byte[] first = records.get(0);
        for (int i = 0; i < first.length; i++) {
            for (int bit = 0; bit < 8; bit += 7) {
                byte[] tampered = first.clone();
                tampered[i] ^= (byte) (1 << bit);
                EmbeddedChannel r = receiver(security);
                r.writeInbound(concat(false, tampered, records.get(1)));
                r.close(); // a longer forged length waits for bytes that never come: the end tells
                assertTrue(drain(r).isEmpty(), "byte " + i + " bit " + bit + " delivered something");
                String reason = closeReason(r);
                assertTrue(reason.startsWith("record 0 ") || reason.startsWith("connection ended inside record 0 "),
                        "byte " + i + ": " + reason);
                assertFalse(r.finish());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(TransportSecurity.class)
    void aReplayedRecordIsRejected(TransportSecurity security) {
        List<byte[]> records = seal(security, new JoinMessage(1, "h", 2), new JoinMessage(3, "h", 4));
        EmbeddedChannel r = receiver(security);
        r.writeInbound(concat(false, records.get(0), records.get(0), records.get(1)));
        assertCanonical(List.of(new JoinMessage(1, "h", 2)), drain(r));
        assertFalse(r.isOpen());
        assertTrue(closeReason(r).startsWith("record 1 of " + (records.get(0).length - 4) + " bytes failed authentication"),
                closeReason(r));
        assertFalse(r.finish());
    }

    @ParameterizedTest
    @EnumSource(TransportSecurity.class)
    void reorderedRecordsAreRejected(TransportSecurity security) {
        List<byte[]> records = seal(security, new JoinMessage(1, "h", 2), new JoinMessage(3, "h", 4));
        EmbeddedChannel r = receiver(security);
        r.writeInbound(concat(false, records.get(1), records.get(0)));
        assertTrue(drain(r).isEmpty());
        assertTrue(closeReason(r).contains("record 0 of ") && closeReason(r).contains("failed authentication"));
        assertFalse(r.finish());
    }

    @ParameterizedTest
    @EnumSource(TransportSecurity.class)
    void aDroppedRecordIsNoticedAtTheNextOne(TransportSecurity security) {
        List<byte[]> records = seal(security, new JoinMessage(1, "h", 2), new JoinMessage(3, "h", 4), new JoinMessage(5, "h", 6));
        EmbeddedChannel r = receiver(security);
        r.writeInbound(concat(false, records.get(0), records.get(2)));
        assertCanonical(List.of(new JoinMessage(1, "h", 2)), drain(r));
        assertTrue(closeReason(r).startsWith("record 1 of "), closeReason(r));
        assertFalse(r.finish());
    }

    @ParameterizedTest
    @EnumSource(TransportSecurity.class)
    void anInjectedRecordIsRejectedAndNothingAfterItIsDecoded(TransportSecurity security) {
        List<byte[]> records = seal(security, new JoinMessage(1, "h", 2), new JoinMessage(3, "h", 4));
        HostJobMessage job = new HostJobMessage(7, "evil", 0, 1, 1, "127.0.0.1:1", "Evil", List.of(), List.of(), new byte[64], 0, 0);
        ByteBuf frame = Unpooled.buffer();
        WireFormat.writeFrame(MessageType.HOST_JOB, job, frame);
        ByteBuf forged = Unpooled.buffer().writeInt(frame.readableBytes() + 16).writeBytes(frame).writeZero(16);
        frame.release();
        byte[] forgedBytes = new byte[forged.readableBytes()];
        forged.readBytes(forgedBytes).release();
        EmbeddedChannel r = receiver(security);
        r.writeInbound(concat(true, records.get(0), forgedBytes, records.get(1)));
        assertCanonical(List.of(new JoinMessage(1, "h", 2)), drain(r));
        assertTrue(closeReason(r).startsWith("record 1 of "), closeReason(r));
        assertFalse(r.finish());
    }

    @ParameterizedTest
    @EnumSource(TransportSecurity.class)
    void aTruncatedRecordIsRejectedWhenTheNextOneArrives(TransportSecurity security) {
        List<byte[]> records = seal(security, new JoinMessage(1, "h", 2), new JoinMessage(3, "h", 4), new JoinMessage(5, "h", 6));
        byte[] cut = java.util.Arrays.copyOf(records.get(1), records.get(1).length - 3);
        EmbeddedChannel r = receiver(security);
        r.writeInbound(concat(false, records.get(0), cut, records.get(2)));
        assertCanonical(List.of(new JoinMessage(1, "h", 2)), drain(r));
        assertTrue(closeReason(r).startsWith("record 1 of "), closeReason(r));
        assertFalse(r.finish());
    }

    @Test
    void aConnectionEndingInsideARecordSaysSo() {
        byte[] record = seal(TransportSecurity.ENCRYPT, new JoinMessage(1, "h", 2)).get(0);
        EmbeddedChannel r = receiver(TransportSecurity.ENCRYPT);
        r.writeInbound(Unpooled.wrappedBuffer(record, 0, 10));
        assertTrue(r.isOpen());
        r.close();
        assertEquals("connection ended inside record 0 (10 of " + record.length + " bytes)", closeReason(r));
        assertFalse(r.finish());
    }

    @Test
    void aRecordLengthOutOfRangeClosesBeforeWaitingForIt() {
        EmbeddedChannel r = receiver(TransportSecurity.ENCRYPT);
        r.writeInbound(Unpooled.buffer().writeInt(5));
        assertEquals("record 0 length 5 out of range [22, " + (4 + MAX_FRAME_BYTES + 16) + "]", closeReason(r));
        EmbeddedChannel big = receiver(TransportSecurity.ENCRYPT);
        big.writeInbound(Unpooled.buffer().writeInt(Integer.MAX_VALUE));
        assertFalse(big.isOpen());
        assertFalse(r.finish());
        assertFalse(big.finish());
    }

    @ParameterizedTest
    @EnumSource(TransportSecurity.class)
    void aRecordHoldingTwoFramesIsRejected(TransportSecurity security) {
        // Only a holder of the keys can make this: a sender that does not keep to one frame per record.
        ByteBuf record = Unpooled.buffer();
        record.writeInt(0);
        WireFormat.writeFrame(MessageType.JOIN, new JoinMessage(1, "h", 2), record);
        WireFormat.writeFrame(MessageType.JOIN, new JoinMessage(3, "h", 4), record);
        int frameLength = record.readableBytes() - 4;
        record.setInt(0, frameLength + 16);
        record.writeZero(16);
        RecordProtection.create(security, SECRET).seal(record, 0, frameLength);
        EmbeddedChannel r = receiver(security);
        r.writeInbound(record);
        assertTrue(drain(r).isEmpty());
        assertEquals("record 0 holds " + frameLength + " frame bytes but a frame of length 15: expected exactly one frame"
                + " per record", closeReason(r));
        assertFalse(r.finish());
    }

    @ParameterizedTest
    @EnumSource(TransportSecurity.class)
    void keysUpdateInStepOnBothEndsAtTheLimits(TransportSecurity security) {
        RecordProtection send = RecordProtection.create(security, SECRET, 3, 2_000);
        RecordProtection receive = RecordProtection.create(security, SECRET, 3, 2_000);
        EmbeddedChannel s = sender(send);
        EmbeddedChannel r = receiver(receive);
        List<Object> messages = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            messages.add(new CoherenceMessage(CoherenceOp.DATA_S, 1, i, 0, 3, 3, new byte[i * 37]));
        }
        List<byte[]> records = seal(s, messages);
        r.writeInbound(concat(true, records.toArray(new byte[0][])));
        assertCanonical(messages, drain(r));
        assertTrue(send.keyUpdates() >= 13, "updates " + send.keyUpdates());
        assertEquals(send.keyUpdates(), receive.keyUpdates());
        assertEquals(send.sequence(), receive.sequence());
        // A record from before an update does not open after it, even at the same sequence number.
        r.writeInbound(Unpooled.wrappedBuffer(records.get(send.keyUpdates() > 0 ? 0 : 1)));
        assertFalse(r.isOpen());
        assertFalse(s.finish());
        assertFalse(r.finish());
    }

    @Test
    void nonceIsTheIvWithTheSequenceXoredIntoItsEnd() {
        byte[] iv = new byte[12];
        java.util.Arrays.fill(iv, (byte) 0xF0);
        byte[] nonce = new byte[12];
        RecordProtection.nonce(iv, 0x0102030405060708L, nonce);
        assertArrayEquals(new byte[] {(byte) 0xF0, (byte) 0xF0, (byte) 0xF0, (byte) 0xF0, (byte) 0xF1, (byte) 0xF2,
                (byte) 0xF3, (byte) 0xF4, (byte) 0xF5, (byte) 0xF6, (byte) 0xF7, (byte) 0xF8}, nonce);
    }

    @Test
    void framesFromTheFrameEncoderAreSealedInTheirOwnBuffer() {
        RecordingAllocator counting = new RecordingAllocator();
        for (TransportSecurity security : TransportSecurity.values()) {
            EmbeddedChannel s = sender(security);
            s.config().setAllocator(counting);
            counting.clear();
            CoherenceMessage m = new CoherenceMessage(CoherenceOp.DATA_S, 1, 2, 0, 3, 3, new byte[8192]);
            assertTrue(s.writeOutbound(m));
            ByteBuf record = s.readOutbound();
            assertEquals(1, counting.count(), security + ": one buffer for frame and record, no copy");
            assertEquals(WireFormat.sizeHint(MessageType.COHERENCE, m) + WireFormat.RECORD_OVERHEAD_BYTES, record.readableBytes());
            record.release();
            assertFalse(s.finish());
        }
    }

    @ParameterizedTest
    @EnumSource(TransportSecurity.class)
    void aFrameWithoutRoomIsCopiedIntoARecordThatOpens(TransportSecurity security) {
        ByteBuf frame = Unpooled.buffer();
        WireFormat.writeFrame(MessageType.JOIN, new JoinMessage(1, "h", 2), frame);
        ByteBuf snug = Unpooled.copiedBuffer(frame);
        frame.release();
        assertFalse(RecordEncoder.hasRecordRoom(snug));
        EmbeddedChannel s = new EmbeddedChannel(new RecordEncoder(RecordProtection.create(security, SECRET)));
        assertTrue(s.writeOutbound(snug));
        assertEquals(0, snug.refCnt());
        EmbeddedChannel r = receiver(security);
        r.writeInbound((ByteBuf) s.readOutbound());
        assertEquals(new JoinMessage(1, "h", 2), r.readInbound());
        assertFalse(s.finish());
        assertFalse(r.finish());
    }

    @ParameterizedTest
    @EnumSource(TransportSecurity.class)
    void aRecordArrivingInPiecesIsGatheredInOneHeapBufferAndEveryBufferIsReleased(TransportSecurity security) {
        CoherenceMessage m = new CoherenceMessage(CoherenceOp.DATA_S, 1, 2, 0, 3, 3, new byte[300_000]);
        byte[] record = seal(security, m).get(0);
        RecordingAllocator alloc = new RecordingAllocator();
        EmbeddedChannel r = receiver(security);
        r.config().setAllocator(alloc);
        List<ByteBuf> fed = new ArrayList<>();
        for (int at = 0; at < record.length; at += 16_384) {
            ByteBuf piece = Unpooled.directBuffer().writeBytes(record, at, Math.min(16_384, record.length - at));
            fed.add(piece);
            r.writeInbound(piece);
        }
        assertEquals(Messages.canonical(m), Messages.canonical(r.readInbound()));
        assertEquals(1, alloc.heapCapacities().size(), "the cumulation is sized for the record once its header arrives");
        assertEquals(record.length, (int) alloc.heapCapacities().get(0));
        assertTrue(r.isOpen());
        assertFalse(r.finish());
        assertTrue(fed.stream().allMatch(b -> b.refCnt() == 0), "every buffer fed was released");
        assertTrue(alloc.allReleased(), "the cumulation was released");
    }

    @Test
    void aForgedRecordLengthHoldsLittleMoreThanWhatArrived() {
        int maxFrameBytes = 64 << 20;
        RecordingAllocator alloc = new RecordingAllocator();
        EmbeddedChannel r = new EmbeddedChannel(new RecordDecoder(RecordProtection.create(TransportSecurity.ENCRYPT, SECRET),
                maxFrameBytes), new FrameDecoder(maxFrameBytes, false));
        r.config().setAllocator(alloc);
        r.writeInbound(Unpooled.buffer().writeInt(maxFrameBytes).writeZero(100)); // in range, but never sent
        assertTrue(r.isOpen());
        assertEquals(104 + RecordDecoder.MAX_AHEAD_BYTES, (int) alloc.heapCapacities().get(0));
        int more = 3 << 20;
        r.writeInbound(Unpooled.buffer(more).writeZero(more));
        int arrived = 104 + more;
        assertEquals(2L * arrived, (long) alloc.heapCapacities().get(alloc.heapCapacities().size() - 1),
                "beyond MAX_AHEAD_BYTES the room ahead is what arrived");
        r.close();
        assertEquals("connection ended inside record 0 (" + arrived + " of " + (4L + maxFrameBytes) + " bytes)", closeReason(r));
        assertFalse(r.finish());
        assertTrue(alloc.allReleased());
    }

    @ParameterizedTest
    @EnumSource(TransportSecurity.class)
    void aFrameStillHeldDownstreamKeepsItsBytesAndIsFreedWithItsLastHolder(TransportSecurity security) {
        List<byte[]> both = seal(security, new JoinMessage(1, "h", 2), new ReportMessage(3, "second"));
        RecordingAllocator alloc = new RecordingAllocator();
        EmbeddedChannel r = new EmbeddedChannel(new RecordDecoder(RecordProtection.create(security, SECRET), MAX_FRAME_BYTES));
        r.config().setAllocator(alloc);
        byte[] second = both.get(1);
        r.writeInbound(concat(false, both.get(0), java.util.Arrays.copyOf(second, 5)));
        ByteBuf first = r.readInbound();
        byte[] firstFrame = new byte[first.readableBytes()];
        first.getBytes(first.readerIndex(), firstFrame);
        r.writeInbound(Unpooled.wrappedBuffer(second, 5, second.length - 5));
        ByteBuf next = r.readInbound();
        assertEquals(both.get(0).length - WireFormat.RECORD_OVERHEAD_BYTES, firstFrame.length);
        byte[] again = new byte[first.readableBytes()];
        first.getBytes(first.readerIndex(), again);
        assertArrayEquals(firstFrame, again, "the frame held downstream was not overwritten");
        assertEquals(second.length - WireFormat.RECORD_OVERHEAD_BYTES, next.readableBytes());
        first.release();
        next.release();
        assertFalse(r.finish());
        assertTrue(alloc.allReleased(), "each cumulation was freed with its last slice");
    }

    @Test
    void theTwoDirectionsAndTheTwoModesUseDifferentKeys() {
        byte[] a = seal(TransportSecurity.ENCRYPT, new JoinMessage(1, "h", 2)).get(0);
        EmbeddedChannel other = sender(RecordProtection.create(TransportSecurity.ENCRYPT, secret(2)));
        byte[] b = seal(other, List.of(new JoinMessage(1, "h", 2))).get(0);
        assertNotEquals(java.util.Arrays.toString(a), java.util.Arrays.toString(b));
        EmbeddedChannel r = receiver(TransportSecurity.MAC);
        r.writeInbound(Unpooled.wrappedBuffer(a));
        assertNull(r.readInbound());
        assertFalse(r.isOpen());
        assertFalse(other.finish());
        assertFalse(r.finish());
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) continue outer;
            }
            return true;
        }
        return false;
    }
}
