package io.dsa.agent.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.agent.wire.ReportMessage;
import io.dsa.agent.wire.ViewMessage;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** No message is dropped silently: a send that cannot happen fails its sender or closes the connection with the reason. */
@Timeout(10)
class NettyConnectionTest {
    /** A connection on an embedded channel whose pipeline is the real one's tail: scheduler, then connection handler. */
    private static NettyConnection connect(EmbeddedChannel ch, FrameEncoder encoder, List<Throwable> disconnects) {
        OutboundScheduler scheduler = new OutboundScheduler();
        ch.pipeline().addLast(scheduler);
        NettyConnection c = new NettyConnection(ch, 1, "peer:1", encoder, scheduler);
        ch.pipeline().addLast(new ConnectionHandler(c, new InboundHandler() {
            @Override
            public void onMessage(Connection connection, Object message) {}

            @Override
            public void onDisconnected(Connection connection, Throwable cause) { disconnects.add(cause); }
        }));
        return c;
    }

    /**
     * Before chunking: NettyConnection logged "COHERENCE frame of 80000027 bytes exceeds the limit"
     * as a WARN and returned. Now a partition larger than a frame travels in chunks, and a message
     * that cannot be encoded fails its sender, naming it, with nothing written.
     */
    @Test
    void aPartitionOverTheFrameLimitTravelsInChunksAndAMessageThatCannotBeEncodedFailsTheSend() {
        EmbeddedChannel ch = new EmbeddedChannel();
        List<Throwable> disconnects = new ArrayList<>();
        NettyConnection c = connect(ch, new FrameEncoder(1024, 512), disconnects);
        c.send(new CoherenceMessage(CoherenceOp.DATA_S, 3, 0, 0, 1, 1, new byte[2000]));
        ch.runPendingTasks();
        int frames = 0;
        for (ByteBuf f; (f = ch.readOutbound()) != null; frames++) {
            assertTrue(f.readableBytes() <= 1024 + WireFormat.RECORD_OVERHEAD_BYTES, f.readableBytes() + " bytes");
            f.release();
        }
        assertEquals(4, frames, "2000 bytes in chunks of 512");

        List<String> unreadable = new java.util.AbstractList<>() {
            @Override
            public String get(int index) { throw new IllegalStateException("address " + index + " is unreadable"); }

            @Override
            public int size() { return 1; }
        };
        DsaException e = assertThrows(DsaException.class, () -> c.send(new ViewMessage(2, unreadable)));
        assertTrue(e.getMessage().startsWith("cannot send VIEW to node 1 at peer:1: "), e.getMessage());
        assertTrue(e.getMessage().contains("address 0 is unreadable"), e.getMessage());
        ch.runPendingTasks();
        assertNull(ch.readOutbound(), "nothing written");
        assertTrue(ch.isOpen(), "the connection stays usable: the sender fails the job");
        assertTrue(disconnects.isEmpty());
        assertFalse(ch.finish());
    }

    @Test
    void aWriteThatFailsAfterEncodingClosesTheConnectionWithTheReason() {
        EmbeddedChannel ch = new EmbeddedChannel(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                ReferenceCountUtil.release(msg);
                promise.setFailure(new IOException("Broken pipe"));
            }
        });
        List<Throwable> disconnects = new ArrayList<>();
        NettyConnection c = connect(ch, new FrameEncoder(1 << 20), disconnects);
        c.send(new ReportMessage(0, "lost in a broken pipe"));
        ch.runPendingTasks();
        assertFalse(ch.isOpen());
        assertEquals(1, disconnects.size(), disconnects.toString());
        assertEquals("java.io.IOException: Broken pipe", String.valueOf(disconnects.get(0)));
        assertFalse(ch.finish());
    }

    @Test
    void theCoherenceFrameSizeIsTheEncodersLengthField() {
        ByteBuf frame = io.netty.buffer.Unpooled.buffer();
        WireFormat.writeFrame(MessageType.COHERENCE, new CoherenceMessage(CoherenceOp.DATA_M, 1, 2, 3, 4, 5, new byte[100]), frame);
        assertEquals(FrameSizes.coherenceFrameBytes(100), frame.getInt(0));
        assertEquals(127, FrameSizes.coherenceFrameBytes(100), "27 bytes of header, as in the issue's 80000027-byte frame");
        frame.release();
    }
}
