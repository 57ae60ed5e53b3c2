package io.dsa.agent.transport;

import io.dsa.coherence.CoherenceMessage;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.EncoderException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.channels.ClosedChannelException;

/** A {@link Connection} over an authenticated Netty channel. Thread-safe. */
final class NettyConnection implements Connection {
    private static final Logger LOG = LoggerFactory.getLogger(NettyConnection.class);

    /** One shared listener, so a send allocates nothing of ours. */
    private static final ChannelFutureListener LOG_WRITE_FAILURE = future -> {
        if (!future.isSuccess()) {
            Throwable cause = future.cause();
            if (cause instanceof ClosedChannelException) {
                LOG.debug("write to closed connection {} dropped", future.channel().remoteAddress());
            } else {
                LOG.warn("write to {} failed: {}", future.channel().remoteAddress(), cause.toString());
            }
        }
    };

    private final Channel channel;
    private final int peerNodeId;
    private final String remoteAddress;
    /** The channel's frame encoder, looked up on first use (racy but idempotent). */
    private FrameEncoder encoder;

    NettyConnection(Channel channel, int peerNodeId, String remoteAddress) {
        this.channel = channel;
        this.peerNodeId = peerNodeId;
        this.remoteAddress = remoteAddress;
    }

    @Override
    public int peerNodeId() { return peerNodeId; }

    @Override
    public void send(Object message) {
        MessageType type = MessageType.of(message);
        if (type == null || type.handshake()) {
            throw new IllegalArgumentException("cannot send "
                    + (message == null ? "null" : message.getClass().getName())
                    + ": expected a WireMessage record or a CoherenceMessage");
        }
        if (message instanceof CoherenceMessage m && m.data() != null) {
            // the partition bytes may be the sender's own array, lent until this returns: encode them now
            ByteBuf frame;
            try {
                frame = encoder().encodeNow(channel.alloc(), message);
            } catch (EncoderException e) {
                LOG.warn("write to {} failed: {}", remoteAddress, e.toString());
                return;
            }
            channel.writeAndFlush(frame).addListener(LOG_WRITE_FAILURE);
            return;
        }
        channel.writeAndFlush(message).addListener(LOG_WRITE_FAILURE);
    }

    private FrameEncoder encoder() {
        FrameEncoder e = encoder;
        if (e == null) {
            e = channel.pipeline().get(FrameEncoder.class);
            if (e == null) throw new IllegalStateException("connection to " + remoteAddress + " has no frame encoder");
            encoder = e;
        }
        return e;
    }

    @Override
    public void executeOnIoThread(Runnable task) { channel.eventLoop().execute(task); }

    @Override
    public boolean isOpen() { return channel.isActive(); }

    @Override
    public void close() { channel.close(); }

    @Override
    public String remoteAddress() { return remoteAddress; }

    @Override
    public String toString() { return "Connection[node " + peerNodeId + " at " + remoteAddress + "]"; }
}
