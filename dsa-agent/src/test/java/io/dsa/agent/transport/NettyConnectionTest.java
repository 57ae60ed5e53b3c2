package io.dsa.agent.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.agent.wire.ReportMessage;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** No message is dropped silently: a send that cannot happen fails its sender or closes the connection with the reason. */
@Timeout(10)
class NettyConnectionTest {
    /** Before: NettyConnection logged "COHERENCE frame of 80000027 bytes exceeds the limit" as a WARN and returned. */
    @Test
    void aFrameOverTheLimitFailsTheSendNamingItAndWritesNothing() {
        EmbeddedChannel ch = new EmbeddedChannel(new FrameEncoder(1024));
        NettyConnection c = new NettyConnection(ch, 1, "peer:1");
        DsaException e = assertThrows(DsaException.class,
                () -> c.send(new CoherenceMessage(CoherenceOp.DATA_S, 3, 0, 0, 1, 1, new byte[2000])));
        assertEquals("cannot send COHERENCE to node 1 at peer:1: COHERENCE frame of " + FrameSizes.coherenceFrameBytes(2000)
                + " bytes exceeds the limit of 1024 bytes", e.getMessage());
        assertThrows(DsaException.class, () -> c.send(new ReportMessage(0, "x".repeat(2000))));
        assertNull(ch.readOutbound(), "nothing written");
        assertTrue(ch.isOpen(), "the connection stays usable: the sender fails the job");

        c.send(new ReportMessage(0, "fits"));
        ByteBuf frame = ch.readOutbound();
        assertNotNull(frame);
        frame.release();
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
        }, new FrameEncoder(1 << 20));
        NettyConnection c = new NettyConnection(ch, 1, "peer:1");
        c.send(new ReportMessage(0, "lost in a broken pipe"));
        assertFalse(ch.isOpen());
        Throwable reason = ch.attr(FrameDecoder.CLOSE_REASON).get();
        assertEquals("write to " + ch.remoteAddress() + " failed: java.io.IOException: Broken pipe", reason.getMessage());
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
