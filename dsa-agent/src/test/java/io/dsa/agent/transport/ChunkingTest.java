package io.dsa.agent.transport;

import io.dsa.agent.wire.DiffMessage;
import io.dsa.agent.wire.HostJobMessage;
import io.dsa.agent.wire.LockMessage;
import io.dsa.agent.wire.HostReplyMessage;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static io.dsa.agent.transport.ChannelChecks.closeReason;
import static io.dsa.agent.transport.ChannelChecks.drain;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Chunked messages without sockets: the encoder's chunk frames, reassembly by the frame decoder
 * (fed whole and byte by byte, straight into the array the receiver names), and every malformed
 * chunk sequence refused with its reason. Every buffer is released (paranoid leak detection).
 */
@Timeout(30)
class ChunkingTest {
    private static final int MAX_FRAME_BYTES = 8192;
    private static final int CHUNK_BYTES = 1024;

    private final FrameEncoder encoder = new FrameEncoder(MAX_FRAME_BYTES, CHUNK_BYTES);

    static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** @return the frames of {@code message} as the sender would write them (each taken from the message) */
    private List<ByteBuf> frames(Object message) {
        OutboundMessage m = encoder.encode(PooledByteBufAllocator.DEFAULT, message);
        List<ByteBuf> frames = new ArrayList<>();
        while (!m.done()) frames.add(m.takeFrame());
        return frames;
    }

    private static ByteBuf concat(List<ByteBuf> frames) {
        ByteBuf all = Unpooled.buffer();
        for (ByteBuf f : frames) {
            all.writeBytes(f);
            f.release();
        }
        return all;
    }

    private static EmbeddedChannel receiver(PartitionBuffers buffers) {
        return new EmbeddedChannel(new FrameDecoder(MAX_FRAME_BYTES, false, buffers));
    }


    @Test
    void aPartitionLargerThanTheFrameLimitTravelsInChunksStraightIntoTheNamedArray() {
        byte[] data = random(5 * MAX_FRAME_BYTES + 7, 1);
        CoherenceMessage sent = new CoherenceMessage(CoherenceOp.DATA_S, 3, 9, 0, 1, 1, data);
        List<ByteBuf> frames = frames(sent);
        assertEquals((data.length + CHUNK_BYTES - 1) / CHUNK_BYTES, frames.size());
        for (ByteBuf f : frames) {
            assertTrue(RecordEncoder.hasRecordRoom(f), "sealed in place");
            assertTrue(f.getInt(f.readerIndex()) <= MAX_FRAME_BYTES, "frame within the limit");
            assertEquals(MessageType.CHUNK.code(), f.getUnsignedByte(f.readerIndex() + 5));
        }
        byte[] slot = new byte[data.length];
        List<String> asked = new ArrayList<>();
        EmbeddedChannel r = receiver((arrayId, partition, bytes) -> {
            asked.add(arrayId + ":" + partition + ":" + bytes);
            return slot;
        });
        ByteBuf all = concat(frames);
        while (all.isReadable()) {
            assertTrue(drain(r).isEmpty(), "nothing before the last chunk");
            r.writeInbound(all.readRetainedSlice(1));
        }
        all.release();
        List<Object> got = drain(r);
        assertEquals(1, got.size());
        CoherenceMessage m = (CoherenceMessage) got.get(0);
        assertSame(slot, m.data(), "decoded into the receiver's own array");
        assertArrayEquals(data, m.data());
        assertEquals(new CoherenceMessage(CoherenceOp.DATA_S, 3, 9, 0, 1, 1, null).toString().replace("]", " " + data.length + "B]"),
                m.toString());
        assertEquals(List.of("3:9:" + data.length), asked, "asked once, at the first chunk");
        assertTrue(r.isOpen());
        assertFalse(r.finish());
    }

    @Test
    void aPartitionOfOneChunkTravelsInOneFrameAndTheNextSizeInTwoChunks() {
        assertEquals(1, countAndRelease(frames(new CoherenceMessage(CoherenceOp.DATA_M, 1, 1, 0, 1, 1, new byte[CHUNK_BYTES]))));
        List<ByteBuf> two = frames(new CoherenceMessage(CoherenceOp.DATA_M, 1, 1, 0, 1, 1, random(CHUNK_BYTES + 1, 2)));
        assertEquals(2, two.size());
        EmbeddedChannel r = receiver(PartitionBuffers.ALLOCATE);
        r.writeInbound(concat(two));
        assertArrayEquals(random(CHUNK_BYTES + 1, 2), ((CoherenceMessage) r.readInbound()).data());
        assertFalse(r.finish());
    }

    private static int countAndRelease(List<ByteBuf> frames) {
        frames.forEach(ByteBuf::release);
        return frames.size();
    }

    @Test
    void otherLargeMessagesAreChunkedAndReassembled() {
        List<Object> messages = List.of(
                new HostJobMessage(7, "vm", 1, 2, 1, "127.0.0.1:1", "X", List.of("a"), List.of(), random(3 * MAX_FRAME_BYTES, 3), 0, 0),
                new HostReplyMessage(5, true, "", List.of(), random(CHUNK_BYTES * 4, 4)),
                new LockMessage(1, LockMessage.GRANT, 2, 3));
        EmbeddedChannel r = receiver(PartitionBuffers.ALLOCATE);
        for (Object sent : messages) {
            List<ByteBuf> frames = frames(sent);
            assertEquals(sent instanceof LockMessage, frames.size() == 1, sent.getClass().getSimpleName());
            ByteBuf all = concat(frames);
            while (all.isReadable()) r.writeInbound(all.readRetainedSlice(Math.min(all.readableBytes(), 333)));
            all.release();
            assertEquals(Messages.canonical(sent), Messages.canonical(r.readInbound()));
        }
        assertNull(r.readInbound());
        assertFalse(r.finish());
    }

    /**
     * A diff larger than a chunk is written by its codec straight into its chunk frames: their
     * bodies, one after another, are byte for byte the body of the diff encoded whole (as the
     * receiver reassembles it), for scattered and packed values, and each frame is exactly its
     * chunk (no byte written past it).
     */
    @Test
    void aDiffLargerThanAChunkIsWrittenStraightIntoItsChunksWithTheBytesOfItsWholeBody() {
        byte[] partition = random(8 * 1024, 12);
        long[] runs = {DiffMessage.run(0, 300), DiffMessage.run(301, 400), DiffMessage.run(1000, 24)};
        byte[] packed = new byte[(300 + 400 + 24) * 8];
        int v = 0;
        for (long run : runs) {
            System.arraycopy(partition, DiffMessage.first(run) * 8, packed, v, DiffMessage.count(run) * 8);
            v += DiffMessage.count(run) * 8;
        }
        for (DiffMessage sent : List.of(new DiffMessage(9, 2, 1, DiffMessage.WRITE, runs, partition, 8),
                new DiffMessage(10, 2, 1, runs, packed))) {
            ByteBuf whole = Unpooled.buffer();
            WireFormat.writeFrame(MessageType.DIFF, sent, whole);
            whole.skipBytes(WireFormat.PREFIX_BYTES);
            List<ByteBuf> frames = frames(sent);
            assertTrue(frames.size() > 5, "in " + frames.size() + " chunks");
            ByteBuf bodies = Unpooled.buffer();
            for (ByteBuf f : frames) {
                int length = f.getInt(f.readerIndex());
                assertEquals(f.readableBytes() - WireFormat.LENGTH_FIELD_BYTES, length, "a frame's length field covers it exactly");
                f.skipBytes(WireFormat.PREFIX_BYTES);
                WireFormat.ChunkHeader h = WireFormat.readChunkHeader(f);
                assertEquals(bodies.readableBytes(), h.offset(), "chunk offset");
                assertEquals(whole.readableBytes(), h.total(), "chunk total");
                bodies.writeBytes(f);
                f.release();
            }
            assertEquals(whole, bodies, "the chunks' bodies are the whole diff's body");
            whole.release();
            bodies.release();
        }
    }

    /**
     * A diff larger than a chunk (its values scattered over the writer's buffer) is reassembled
     * from its chunks kept as they arrived, not copied into a growing buffer: each chunk's buffer
     * is held until the message is decoded and released then; when the connection ends inside
     * such a message, the chunks held so far are released with it.
     */
    @Test
    void aChunkedDiffIsDecodedFromItsChunksWhichAreReleasedOnceItIs() {
        byte[] partition = random(8 * 1024, 11);
        long[] runs = {DiffMessage.run(0, 300), DiffMessage.run(301, 400), DiffMessage.run(1000, 24)};
        DiffMessage sent = new DiffMessage(9, 2, 1, DiffMessage.WRITE, runs, partition, 8);
        List<ByteBuf> frames = frames(sent);
        assertTrue(frames.size() > 5, "in " + frames.size() + " chunks");
        EmbeddedChannel r = receiver(PartitionBuffers.ALLOCATE);
        List<ByteBuf> fed = new ArrayList<>();
        for (ByteBuf f : frames) {
            fed.add(f);
            f.retain(); // ours, to see when the decoder lets go of its reference
            r.writeInbound(f);
        }
        DiffMessage got = (DiffMessage) r.readInbound();
        assertArrayEquals(runs, got.runs());
        assertFalse(got.scattered());
        int v = 0;
        for (long run : runs) {
            for (int i = 0; i < DiffMessage.count(run) * 8; i++, v++) {
                assertEquals(partition[DiffMessage.first(run) * 8 + i], got.values()[v], "value byte " + v);
            }
        }
        assertEquals(v, got.values().length);
        for (ByteBuf f : fed) {
            assertEquals(1, f.refCnt(), "the decoder released its reference to every chunk once the diff was decoded");
            f.release();
        }
        assertNull(r.readInbound());
        assertFalse(r.finish());

        List<ByteBuf> again = frames(sent);
        EmbeddedChannel cut = receiver(PartitionBuffers.ALLOCATE);
        List<ByteBuf> held = new ArrayList<>();
        for (ByteBuf f : again.subList(0, 3)) {
            held.add(f);
            f.retain();
            cut.writeInbound(f);
        }
        for (ByteBuf f : again.subList(3, again.size())) f.release();
        cut.close();
        assertTrue(closeReason(cut).startsWith("connection ended inside a chunked DIFF message"), closeReason(cut));
        for (ByteBuf f : held) {
            assertEquals(1, f.refCnt(), "a chunk held for a message that never completed is released when the connection ends");
            f.release();
        }
        assertFalse(cut.finish());
    }

    @Test
    void smallFramesBetweenChunksAreDeliveredInTheirPlace() {
        List<ByteBuf> bulk = frames(new CoherenceMessage(CoherenceOp.DATA_S, 1, 4, 0, 1, 1, random(3 * CHUNK_BYTES, 5)));
        List<ByteBuf> stream = new ArrayList<>();
        stream.add(bulk.get(0));
        stream.addAll(frames(new CoherenceMessage(CoherenceOp.INV, 1, 5, 0, 1, 2, null))); // another partition
        stream.add(bulk.get(1));
        stream.add(bulk.get(2));
        stream.addAll(frames(new LockMessage(1, LockMessage.GRANT, 2, 3)));   // not about a partition: after the transfer
        EmbeddedChannel r = receiver(PartitionBuffers.ALLOCATE);
        r.writeInbound(concat(stream));
        List<Object> got = drain(r);
        assertEquals(3, got.size());
        assertEquals(CoherenceOp.INV, ((CoherenceMessage) got.get(0)).op());
        assertArrayEquals(random(3 * CHUNK_BYTES, 5), ((CoherenceMessage) got.get(1)).data());
        assertEquals(new LockMessage(1, LockMessage.GRANT, 2, 3), got.get(2));
        assertFalse(r.finish());

        // a message not about a partition between the chunks overtook data sent before it: refused
        List<ByteBuf> again = frames(new CoherenceMessage(CoherenceOp.DATA_S, 1, 4, 0, 1, 1, random(3 * CHUNK_BYTES, 5)));
        List<ByteBuf> overtaking = new ArrayList<>();
        overtaking.add(again.get(0));
        overtaking.addAll(frames(new LockMessage(1, LockMessage.GRANT, 2, 3)));
        overtaking.add(again.get(1));
        overtaking.add(again.get(2));
        EmbeddedChannel refusing = receiver(PartitionBuffers.ALLOCATE);
        refusing.writeInbound(concat(overtaking));
        assertFalse(refusing.isOpen(), "the connection closes");
        refusing.finishAndReleaseAll();
    }

    /**
     * A heartbeat goes out at the socket end, past the sender's queue, when nothing was written for
     * a while, as when a transfer waits for a full socket: it may come between two chunks (before
     * the merge of the failure detector with chunked transfers it closed the connection there).
     */
    @Test
    void aHeartbeatBetweenChunksIsDeliveredAndTheTransferCompletes() {
        List<ByteBuf> bulk = frames(new CoherenceMessage(CoherenceOp.DATA_S, 1, 4, 0, 1, 1, random(3 * CHUNK_BYTES, 6)));
        List<ByteBuf> stream = new ArrayList<>();
        stream.add(bulk.get(0));
        stream.addAll(frames(new HeartbeatMessage(1000)));
        stream.add(bulk.get(1));
        stream.add(bulk.get(2));
        EmbeddedChannel r = receiver(PartitionBuffers.ALLOCATE);
        r.writeInbound(concat(stream));
        assertTrue(r.isOpen(), "still open");
        List<Object> got = drain(r);
        assertEquals(new HeartbeatMessage(1000), got.get(0));
        assertArrayEquals(random(3 * CHUNK_BYTES, 6), ((CoherenceMessage) got.get(got.size() - 1)).data());
        assertFalse(r.finish());
    }

    // ---- malformed chunk sequences: each closes the connection with one reason

    /** A chunk of array 1 partition 2 (COHERENCE, total = head + 3000 data bytes) or of another type with no ids. */
    private static ByteBuf chunk(MessageType inner, int arrayId, int partition, long total, long offset, int piece) {
        ByteBuf f = Unpooled.buffer();
        WireFormat.writeChunkStart(f, inner, arrayId, partition, total, offset, piece);
        f.writeZero(piece);
        return f;
    }

    private static final long TOTAL = WireFormat.COHERENCE_HEAD_BYTES + 3000L;

    /** @return the first chunk of a DATA_S of array 1 partition 2 with 3000 data bytes, carrying {@code dataBytes} of them */
    private static ByteBuf firstChunk(int arrayInHead, int dataCountInHead, int dataBytes) {
        ByteBuf f = Unpooled.buffer();
        WireFormat.writeChunkStart(f, MessageType.COHERENCE, 1, 2, TOTAL, 0, WireFormat.COHERENCE_HEAD_BYTES + dataBytes);
        f.writeByte(CoherenceOp.DATA_S.code()).writeInt(arrayInHead).writeInt(2).writeInt(0).writeInt(1).writeInt(1)
                .writeInt(dataCountInHead);
        f.writeZero(dataBytes);
        return f;
    }

    private static void assertRefused(String reason, ByteBuf... frames) {
        EmbeddedChannel r = receiver(PartitionBuffers.ALLOCATE);
        for (ByteBuf f : frames) {
            r.writeInbound(f);
        }
        drain(r);
        assertFalse(r.isOpen(), "closed");
        assertEquals(reason, closeReason(r));
        for (ByteBuf f : frames) assertEquals(0, f.refCnt(), "released");
        assertFalse(r.finish());
    }

    @Test
    void chunksOutOfSequenceAreRefused() {
        assertRefused("malformed CHUNK frame: first chunk of a COHERENCE message of array 1 partition 2 at offset 1025, expected 0",
                chunk(MessageType.COHERENCE, 1, 2, TOTAL, 1025, 100));
        assertRefused("malformed CHUNK frame: chunk at offset 1100 of a COHERENCE message of array 1 partition 2 whose next byte is 1025: gap",
                firstChunk(1, 3000, 1000), chunk(MessageType.COHERENCE, 1, 2, TOTAL, 1100, 100));
        assertRefused("malformed CHUNK frame: chunk at offset 1000 of a COHERENCE message of array 1 partition 2 whose next byte is 1025: overlap",
                firstChunk(1, 3000, 1000), chunk(MessageType.COHERENCE, 1, 2, TOTAL, 1000, 100));
        assertRefused("malformed CHUNK frame: chunk [1025, 3026) of a COHERENCE message of array 1 partition 2 ends past its total of 3025 bytes",
                firstChunk(1, 3000, 1000), chunk(MessageType.COHERENCE, 1, 2, TOTAL, 1025, 2001));
        assertRefused("malformed CHUNK frame: empty chunk at offset 1025 of a COHERENCE message of array 1 partition 2",
                firstChunk(1, 3000, 1000), chunk(MessageType.COHERENCE, 1, 2, TOTAL, 1025, 0));
    }

    @Test
    void interleavedChunkedMessagesAreRefused() {
        assertRefused("malformed CHUNK frame: chunk of a COHERENCE message of array 1 partition 3 of 3025 bytes while a COHERENCE"
                        + " message of array 1 partition 2 of 3025 bytes is at 1025: chunked messages are not interleaved",
                firstChunk(1, 3000, 1000), chunk(MessageType.COHERENCE, 1, 3, TOTAL, 1025, 100));
        assertRefused("malformed CHUNK frame: chunk of a COHERENCE message of array 1 partition 2 of 4025 bytes while a COHERENCE"
                        + " message of array 1 partition 2 of 3025 bytes is at 1025: chunked messages are not interleaved",
                firstChunk(1, 3000, 1000), chunk(MessageType.COHERENCE, 1, 2, TOTAL + 1000, 1025, 100));
        assertRefused("malformed CHUNK frame: chunk of a TRANSFER message of 5000 bytes while a COHERENCE message of array 1"
                        + " partition 2 of 3025 bytes is at 1025: chunked messages are not interleaved",
                firstChunk(1, 3000, 1000), chunk(MessageType.TRANSFER, -1, -1, 5000, 0, 100));
    }

    @Test
    void chunkHeadersThatDisagreeWithTheirMessageAreRefused() {
        assertRefused("malformed CHUNK frame: chunked COHERENCE message of array 7 partition 2 in chunks of array 1 partition 2",
                firstChunk(7, 3000, 10));
        assertRefused("malformed CHUNK frame: chunked COHERENCE message of array 1 partition 2 of 3025 bytes has a data count of 2999,"
                + " expected 3000", firstChunk(1, 2999, 10));
        assertRefused("malformed CHUNK frame: first chunk of a COHERENCE message of array 1 partition 2 has 24 bytes, expected at"
                + " least the 25 of its head", chunk(MessageType.COHERENCE, 1, 2, TOTAL, 0, 24));
        assertRefused("malformed CHUNK frame: chunk of a TRANSFER message names array 1 partition -1, expected -1 for both",
                chunk(MessageType.TRANSFER, 1, -1, 5000, 0, 100));
        assertRefused("malformed CHUNK frame: chunk of message type code 33 (CHUNK), expected a message type after the handshake",
                chunk(MessageType.CHUNK, -1, -1, 5000, 0, 100));
        assertRefused("malformed CHUNK frame: chunk of message type code 2 (HELLO), expected a message type after the handshake",
                chunk(MessageType.HELLO, -1, -1, 5000, 0, 100));
        assertRefused("malformed CHUNK frame: chunked TRANSFER message of 2147483648 bytes out of range [1, 2147483639]",
                chunk(MessageType.TRANSFER, -1, -1, 1L << 31, 0, 100));
        assertRefused("malformed CHUNK frame: chunk at offset -1 of a TRANSFER message of 5000 bytes, expected [0, 5000)",
                chunk(MessageType.TRANSFER, -1, -1, 5000, -1, 100));
        ByteBuf unknown = chunk(MessageType.TRANSFER, -1, -1, 5000, 0, 100);
        unknown.setByte(WireFormat.PREFIX_BYTES, 200);
        assertRefused("malformed CHUNK frame: chunk of message type code 200 (unknown), expected a message type after the handshake",
                unknown);
    }

    @Test
    void aChunkedMessageThatDoesNotDecodeIsRefused() {
        // a TRANSFER whose body says its agent id has 10,000 bytes but the body has 3,000
        ByteBuf f = Unpooled.buffer();
        WireFormat.writeChunkStart(f, MessageType.TRANSFER, -1, -1, 3000, 0, 3000);
        f.writeLong(1).writeInt(2).writeInt(10_000).writeZero(3000 - 16);
        assertRefused("malformed CHUNK frame: agentId count 10000 needs at least 10000 bytes, 2984 left in frame", f);
    }

    @Test
    void aFrameThatOvertakesTheChunkedMessageItMustFollowIsRefused() {
        assertRefused("malformed COHERENCE frame: COHERENCE message inside a chunked COHERENCE message of array 1 partition 2 (at 1025"
                        + " of 3025 bytes) that it must not overtake",
                firstChunk(1, 3000, 1000), frame(new CoherenceMessage(CoherenceOp.INV, 1, 2, 0, 1, 3, null)));
        assertRefused("malformed LOCK frame: LOCK message inside a chunked TRANSFER message (at 100 of 5000 bytes) that it must not"
                        + " overtake",
                chunk(MessageType.TRANSFER, -1, -1, 5000, 0, 100), frame(new LockMessage(1, LockMessage.GRANT, 2, 3)));
    }

    private ByteBuf frame(Object message) {
        List<ByteBuf> frames = frames(message);
        assertEquals(1, frames.size());
        return frames.get(0);
    }

    @Test
    void aConnectionEndingInsideAChunkedMessageSaysSo() {
        EmbeddedChannel r = receiver(PartitionBuffers.ALLOCATE);
        r.writeInbound(chunk(MessageType.TRANSFER, -1, -1, 5000, 0, 100));
        r.close();
        assertEquals("connection ended inside a chunked TRANSFER message (100 of 5000 bytes)", closeReason(r));
        assertFalse(r.finish());
    }

    @Test
    void theFramesOfAChunkedMessageNotTakenAreReleasedWithIt() {
        OutboundMessage m = encoder.encode(PooledByteBufAllocator.DEFAULT,
                new CoherenceMessage(CoherenceOp.OWNER_RELEASE, 1, 1, 1, 0, 2, new byte[10 * CHUNK_BYTES]));
        assertEquals(10, m.framesLeft());
        ByteBuf first = m.takeFrame();
        m.release(); // the paranoid leak detector reports any of the other nine left unreleased
        assertTrue(m.done());
        assertEquals(0, m.framesLeft());
        assertEquals(1, first.refCnt(), "a frame taken belongs to the taker");
        first.release();
    }
}
