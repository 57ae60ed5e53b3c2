package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the bytes a transport's channels read from and write to their sockets (handshake,
 * records and frames alike), first in every pipeline. One instance is shared by the channels of
 * one {@link Transport}; it runs on their event loops and allocates nothing.
 */
@ChannelHandler.Sharable
final class ByteCounter extends ChannelDuplexHandler {
    private final LongAdder in = new LongAdder();
    private final LongAdder out = new LongAdder();

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf b) in.add(b.readableBytes());
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof ByteBuf b) out.add(b.readableBytes());
        ctx.write(msg, promise);
    }

    /** @return bytes read from the sockets so far */
    long bytesIn() { return in.sum(); }

    /** @return bytes handed to the sockets so far (written or queued to be) */
    long bytesOut() { return out.sum(); }
}
