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
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The failure detector of one connection, on an embedded channel whose clock only the test moves. */
@Timeout(10)
class HeartbeatHandlerTest {
    private static final long TIMEOUT_MS = 3_000;
    /** A HEARTBEAT frame asking for 1000 ms: length 6, version 4, type 5, interval 0x3e8. */
    private static final String HEARTBEAT_1000 = "000000060405000003e8";

    private final RecordingHandler inbound = new RecordingHandler();

    /** A channel as the handshake leaves it, its first heartbeat already read. */
    private EmbeddedChannel channel() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.freezeTime();   // only advanceMs moves the clock
        OutboundScheduler scheduler = new OutboundScheduler();
        NettyConnection c = new NettyConnection(ch, 2, "127.0.0.3:4567", new FrameEncoder(1 << 20, 1 << 17), scheduler);
        ch.pipeline().addLast(Transport.HEARTBEAT_HANDLER, new HeartbeatHandler(c, TIMEOUT_MS));
        ch.pipeline().addLast(Transport.FRAME_ENCODER, new FrameEncoder(1 << 20));
        ch.pipeline().addLast(Transport.SCHEDULER, scheduler);
        ch.pipeline().addLast(Transport.CONNECTION_HANDLER, new ConnectionHandler(c, inbound));
        ch.runPendingTasks();
        assertEquals(HEARTBEAT_1000, take(ch), "the first frame after the handshake tells the peer the interval");
        return ch;
    }

    private static String take(EmbeddedChannel ch) {
        ByteBuf frame = ch.readOutbound();
        if (frame == null) return null;
        String hex = ByteBufUtil.hexDump(frame);
        frame.release();
        return hex;
    }

    private static void advanceMs(EmbeddedChannel ch, long ms) {
        ch.advanceTimeBy(ms, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
    }

    private static void heard(EmbeddedChannel ch) {
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {1}));   // any bytes from the peer
        ch.releaseInbound();
    }

    @Test
    void aConnectionIdleForWritesSendsOneHeartbeatPerThirdOfTheTimeout() {
        EmbeddedChannel ch = channel();
        advanceMs(ch, TIMEOUT_MS / 3 - 1);
        assertNull(take(ch), "not yet");
        advanceMs(ch, 1);
        assertEquals(HEARTBEAT_1000, take(ch));
        assertNull(take(ch), "one at a time");
        heard(ch);
        advanceMs(ch, TIMEOUT_MS / 3);
        assertEquals(HEARTBEAT_1000, take(ch));
        assertTrue(ch.isOpen());
        assertFalse(ch.finish());
    }

    @Test
    void aConnectionThatWritesSendsNoHeartbeat() {
        EmbeddedChannel ch = channel();
        for (int i = 0; i < 10; i++) {
            ch.writeOutbound(new ReportMessage(0, "busy " + i));
            heard(ch);
            ByteBuf report = ch.readOutbound();
            assertEquals(MessageType.REPORT.code(), report.getUnsignedByte(report.readerIndex() + WireFormat.LENGTH_FIELD_BYTES + 1));
            report.release();
            advanceMs(ch, TIMEOUT_MS / 6);   // one tick
            assertNull(take(ch), "no heartbeat while messages go out");
        }
        assertTrue(ch.isOpen(), "the peer was heard within every timeout");
        assertFalse(ch.finish());
    }

    /** Before: a launcher with a 1 s timeout took an idle host (3 s timeout: heartbeats every 1 s) for lost. */
    @Test
    void aPeerAskingForAShorterIntervalGetsIt() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(new HeartbeatMessage(200));
        assertEquals(0, inbound.messages.size(), "heartbeats reach no user handler");
        HeartbeatHandler detector = ch.pipeline().get(HeartbeatHandler.class);
        assertEquals(200, detector.intervalMs());
        advanceMs(ch, 200);
        assertEquals(HEARTBEAT_1000, take(ch), "sent after the peer's interval, still asking for this end's own");
        ch.writeInbound(new HeartbeatMessage(2_000));
        assertEquals(200, detector.intervalMs(), "a longer one changes nothing");
        assertFalse(ch.finish());
    }

    @Test
    void heartbeatsFromThePeerReachNoHandlerAndOtherMessagesDo() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(new HeartbeatMessage(1_000));
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
        heard(ch);   // the deadline moves on
        advanceMs(ch, TIMEOUT_MS - 1);
        assertTrue(ch.isOpen(), "silent for less than the timeout");
        advanceMs(ch, 1);
        assertFalse(ch.isOpen());
        assertEquals("nothing heard from node 2 at 127.0.0.3:4567 for 3000 ms (the failure timeout): it died, hangs or was"
                + " stopped, or the network to it drops packets", ch.attr(FrameDecoder.CLOSE_REASON).get().getMessage());
        for (Object o; (o = ch.readOutbound()) != null; ) ReferenceCountUtil.release(o);   // the heartbeats meanwhile
        assertFalse(ch.finish());
    }

    @Test
    void theIntervalIsAThirdOfTheTimeoutWithinTheWireRange() {
        assertEquals(1_000, HeartbeatHandler.heartbeatIntervalMs(3_000));
        assertEquals(33, HeartbeatHandler.heartbeatIntervalMs(100));
        assertEquals(HeartbeatMessage.MAX_INTERVAL_MS, HeartbeatHandler.heartbeatIntervalMs(TransportConfig.MAX_FAILURE_TIMEOUT_MS));
    }
}
