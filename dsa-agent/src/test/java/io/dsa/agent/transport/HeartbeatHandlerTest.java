package io.dsa.agent.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.wire.ReportMessage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.concurrent.TimeUnit;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The failure detector of one connection, on an embedded channel whose clock the test advances. */
@Timeout(10)
class HeartbeatHandlerTest {
    private static final long TIMEOUT_MS = 3_000;

    private static EmbeddedChannel channel() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.freezeTime();   // only advanceMs moves the clock
        NettyConnection c = new NettyConnection(ch, 2, "127.0.0.3:4567");
        ch.pipeline().addLast(Transport.HEARTBEAT_HANDLER, new HeartbeatHandler(c, TIMEOUT_MS));
        ch.pipeline().addLast(Transport.FRAME_ENCODER, new FrameEncoder(1 << 20));
        ch.pipeline().addLast(Transport.CONNECTION_HANDLER, new ConnectionHandler(c, new RecordingHandler()));
        return ch;
    }

    private static void advanceMs(EmbeddedChannel ch, long ms) {
        ch.advanceTimeBy(ms, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
    }

    @Test
    void aConnectionIdleForWritesSendsOneHeartbeatFramePerThirdOfTheTimeout() {
        EmbeddedChannel ch = channel();
        advanceMs(ch, TIMEOUT_MS / 3 - 1);
        assertNull(ch.readOutbound(), "not yet");
        advanceMs(ch, 1);
        ByteBuf frame = ch.readOutbound();
        assertEquals("000000020205", ByteBufUtil.hexDump(frame), "length 2, version 2, type 5 (HEARTBEAT), no body");
        frame.release();
        assertNull(ch.readOutbound(), "one at a time");
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {1}));   // the peer is alive
        ch.releaseInbound();
        assertTrue(ch.isOpen());
        assertFalse(ch.finish());
    }

    @Test
    void aConnectionThatWritesSendsNoHeartbeat() {
        EmbeddedChannel ch = channel();
        for (int i = 0; i < 5; i++) {
            ch.writeOutbound(new ReportMessage(0, "busy " + i));
            ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {1}));
            ch.releaseInbound();
            ByteBuf report = ch.readOutbound();
            assertEquals(MessageType.REPORT.code(), report.getUnsignedByte(report.readerIndex() + WireFormat.LENGTH_FIELD_BYTES + 1));
            report.release();
            advanceMs(ch, TIMEOUT_MS / 3);
            assertNull(ch.readOutbound(), "no heartbeat while messages go out");
        }
        assertTrue(ch.isOpen(), "the peer was heard within every timeout");
        assertFalse(ch.finish());
    }

    @Test
    void heartbeatsFromThePeerReachNoHandler() {
        RecordingHandler inbound = new RecordingHandler();
        EmbeddedChannel ch = new EmbeddedChannel();
        NettyConnection c = new NettyConnection(ch, 2, "127.0.0.3:4567");
        ch.pipeline().addLast(new ConnectionHandler(c, inbound));
        ch.writeInbound(HeartbeatMessage.INSTANCE);
        ReportMessage report = new ReportMessage(1, "still here");
        ch.writeInbound(report);
        assertEquals(1, inbound.messages.size());
        assertSame(report, inbound.messages.poll().message());
        assertFalse(ch.finish());
    }

    @Test
    void aPeerSilentForTheTimeoutIsClosedWithAReasonNamingItWhereItIsAndTheBound() {
        EmbeddedChannel ch = channel();
        advanceMs(ch, TIMEOUT_MS - 500);
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {1}));   // heard: the deadline moves on
        ch.releaseInbound();
        advanceMs(ch, TIMEOUT_MS - 1);
        assertTrue(ch.isOpen(), "silent for less than the timeout");
        advanceMs(ch, 1);
        assertFalse(ch.isOpen());
        assertEquals("nothing heard from node 2 at 127.0.0.3:4567 for 3000 ms (the failure timeout): it died, hangs or was"
                + " stopped, or the network to it drops packets", ch.attr(FrameDecoder.CLOSE_REASON).get().getMessage());
        for (Object o; (o = ch.readOutbound()) != null; ) io.netty.util.ReferenceCountUtil.release(o);   // heartbeats
        assertFalse(ch.finish());
    }

    @Test
    void heartbeatsGoOutAfterAThirdOfTheTimeout() {
        assertEquals(1_000, HeartbeatHandler.heartbeatIntervalMs(3_000));
        assertEquals(33, HeartbeatHandler.heartbeatIntervalMs(100));
    }
}
