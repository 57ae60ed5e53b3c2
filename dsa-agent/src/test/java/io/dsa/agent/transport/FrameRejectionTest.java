package io.dsa.agent.transport;

import io.dsa.agent.wire.LockMessage;
import io.dsa.coherence.CoherenceOp;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Malformed input without sockets: every frame the decoder must refuse closes the channel with a
 * reason and releases what it was given, and a good frame before a bad one is still delivered.
 */
@Timeout(10)
class FrameRejectionTest {
    private static final int MAX_FRAME_BYTES = 64 * 1024;


    @Test
    void lengthBelowHeaderCloses() {
        assertRejected(false, b -> b.writeInt(1).writeByte(1));
    }

    @Test
    void negativeLengthCloses() {
        assertRejected(false, b -> b.writeInt(-5).writeByte(1).writeByte(10));
    }

    @Test
    void oversizeFrameClosesBeforeItArrives() {
        assertRejected(false, b -> b.writeInt(MAX_FRAME_BYTES + 1).writeByte(1).writeByte(10));
    }

    @Test
    void oversizeHandshakeFrameCloses() {
        assertRejected(true, b -> b.writeInt(WireFormat.MAX_HANDSHAKE_FRAME_BYTES + 1));
    }

    @Test
    void wrongVersionCloses() {
        assertRejected(false, b -> frame(b, WireFormat.VERSION + 1, MessageType.JOIN.code(), body -> body.writeInt(1).writeInt(-1).writeInt(2)));
    }

    @Test
    void unknownTypeCloses() {
        assertRejected(false, b -> frame(b, WireFormat.VERSION, 99, body -> body.writeInt(1)));
    }

    @Test
    void truncatedBodyCloses() {
        assertRejected(false, b -> frame(b, WireFormat.VERSION, MessageType.JOIN.code(), body -> body.writeInt(1)));
    }

    @Test
    void stringLongerThanFrameCloses() {
        assertRejected(false, b -> frame(b, WireFormat.VERSION, MessageType.JOIN.code(),
                body -> body.writeInt(1).writeInt(1000).writeBytes(new byte[8])));
    }

    @Test
    void negativeArrayCountCloses() {
        assertRejected(false, b -> frame(b, WireFormat.VERSION, MessageType.BARRIER_RELEASE.code(),
                body -> body.writeInt(1).writeLong(2).writeInt(-2)));
    }

    @Test
    void negativeStringLengthCloses() {
        assertRejected(false, b -> frame(b, WireFormat.VERSION, MessageType.REPORT.code(), body -> body.writeInt(1).writeInt(-7)));
    }

    @Test
    void forgedHugeCountClosesWithoutAllocating() {
        assertRejected(false, b -> frame(b, WireFormat.VERSION, MessageType.BARRIER_RELEASE.code(),
                body -> body.writeInt(1).writeLong(2).writeInt(Integer.MAX_VALUE)));
        assertRejected(false, b -> frame(b, WireFormat.VERSION, MessageType.VIEW.code(),
                body -> body.writeInt(1).writeInt(1 << 30)));
    }

    @Test
    void trailingBytesClose() {
        assertRejected(false, b -> frame(b, WireFormat.VERSION, MessageType.LOCK.code(),
                body -> body.writeInt(1).writeInt(2).writeInt(3).writeLong(4).writeByte(0)));
    }

    @Test
    void unknownCoherenceOpCloses() {
        int unused = 31;   // in the codes' range [1, 32), assigned to no op
        org.junit.jupiter.api.Assertions.assertNull(CoherenceOp.fromCode(unused));
        assertRejected(false, b -> frame(b, WireFormat.VERSION, MessageType.COHERENCE.code(),
                body -> body.writeByte(unused).writeInt(1).writeInt(2).writeInt(3).writeInt(4).writeInt(5).writeInt(-1)));
    }

    @Test
    void dataOnCoherenceOpWithoutDataCloses() {
        assertRejected(false, b -> frame(b, WireFormat.VERSION, MessageType.COHERENCE.code(),
                body -> body.writeByte(CoherenceOp.INV.code()).writeInt(1).writeInt(2).writeInt(3).writeInt(4)
                        .writeInt(5).writeInt(1).writeByte(7)));
    }

    @Test
    void badBooleanCloses() {
        assertRejected(false, b -> frame(b, WireFormat.VERSION, MessageType.VAR_RESULT.code(),
                body -> body.writeLong(1).writeLong(2).writeByte(2)));
    }

    @Test
    void messageBeforeHandshakeCloses() {
        assertRejected(true, b -> frame(b, WireFormat.VERSION, MessageType.LOCK.code(),
                body -> body.writeInt(1).writeInt(2).writeInt(3).writeLong(4)));
    }

    @Test
    void aHeartbeatAskingForAnIntervalOutOfRangeCloses() {
        assertRejected(false, b -> frame(b, WireFormat.VERSION, MessageType.HEARTBEAT.code(), body -> body.writeInt(0)));
        assertRejected(false, b -> frame(b, WireFormat.VERSION, MessageType.HEARTBEAT.code(),
                body -> body.writeInt(HeartbeatMessage.MAX_INTERVAL_MS + 1)));
        assertRejected(false, b -> frame(b, WireFormat.VERSION, MessageType.HEARTBEAT.code(), body -> { }));
    }

    @Test
    void aNodeRequestCarryingAStepThatIsNotAHostStepCloses() {
        assertRejected(false, b -> frame(b, WireFormat.VERSION, MessageType.NODE_REQUEST.code(), body -> {
            WireFields.writeString("vm", body);
            body.writeInt(0).writeByte(MessageType.RETIRE.code()).writeLong(1);
        }));
        assertRejected(false, b -> frame(b, WireFormat.VERSION, MessageType.NODE_REQUEST.code(), body -> {
            WireFields.writeString("vm", body);
            body.writeInt(0).writeByte(250).writeLong(1);
        }));
        assertRejected(false, b -> frame(b, WireFormat.VERSION, MessageType.NODE_REQUEST.code(), body -> {
            body.writeInt(-1).writeInt(0).writeByte(MessageType.HOLD_BARRIER.code()).writeLong(1);
        }));
    }

    @Test
    void aStatusRowWithAnAbsentColumnCloses() {
        assertRejected(false, b -> frame(b, WireFormat.VERSION, MessageType.HOST_STATUS.code(), body -> {
            body.writeLong(1).writeInt(1);
            WireFields.writeString("vm", body);
            body.writeInt(0).writeInt(-1); // host absent
            for (int i = 0; i < 3; i++) WireFields.writeString("x", body);
            body.writeInt(0).writeInt(0).writeInt(0);
        }));
        assertRejected(false, b -> frame(b, WireFormat.VERSION, MessageType.HOST_STATUS.code(),
                body -> body.writeLong(1).writeInt(1_000_000)));
    }

    @Test
    void elementsOfAnUnknownTypeOrNegativeIndexClose() {
        assertRejected(false, b -> frame(b, WireFormat.VERSION, MessageType.ELEMENTS.code(),
                body -> body.writeLong(1).writeLong(0).writeByte(4).writeInt(0)));
        assertRejected(false, b -> frame(b, WireFormat.VERSION, MessageType.ELEMENTS.code(),
                body -> body.writeLong(1).writeLong(-1).writeByte(0).writeInt(0)));
        assertRejected(false, b -> frame(b, WireFormat.VERSION, MessageType.ELEMENTS.code(),
                body -> body.writeLong(1).writeLong(0).writeByte(0).writeInt(-1)));
    }

    @Test
    void handshakeMessageAfterHandshakeCloses() {
        assertRejected(false, b -> frame(b, WireFormat.VERSION, MessageType.REFUSE.code(), body -> WireFields.writeString("x", body)));
    }

    @Test
    void goodFrameBeforeBadOneIsDeliveredThenChannelCloses() {
        EmbeddedChannel decoder = new EmbeddedChannel(new FrameDecoder(MAX_FRAME_BYTES, false));
        ByteBuf in = FrameCodecTest.encode(new LockMessage(1, LockMessage.ACQUIRE, 2, 3));
        in.writeInt(-1).writeInt(0);
        decoder.writeInbound(in);
        assertEquals(new LockMessage(1, LockMessage.ACQUIRE, 2, 3), decoder.readInbound());
        assertFalse(decoder.isOpen());
        assertNotNull(decoder.attr(FrameDecoder.CLOSE_REASON).get());
        assertFalse(decoder.finish());
    }

    // ---- helpers

    private static void assertRejected(boolean handshakePhase, Consumer<ByteBuf> writer) {
        int max = handshakePhase ? WireFormat.MAX_HANDSHAKE_FRAME_BYTES : MAX_FRAME_BYTES;
        EmbeddedChannel decoder = new EmbeddedChannel(new FrameDecoder(max, handshakePhase));
        ByteBuf in = Unpooled.buffer();
        writer.accept(in);
        decoder.writeInbound(in);
        assertNull(decoder.readInbound());
        assertFalse(decoder.isOpen(), "channel should be closed");
        assertNotNull(decoder.attr(FrameDecoder.CLOSE_REASON).get());
        assertEquals(0, in.refCnt());
        assertFalse(decoder.finish());
    }

    private static void frame(ByteBuf out, int version, int type, Consumer<ByteBuf> body) {
        int start = out.writerIndex();
        out.writeInt(0).writeByte(version).writeByte(type);
        body.accept(out);
        out.setInt(start, out.writerIndex() - start - 4);
    }
}
