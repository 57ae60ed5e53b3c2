package io.dsa.agent.transport;

import io.dsa.DsaException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.EncoderException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.channels.ClosedChannelException;

/**
 * A {@link Connection} over an authenticated Netty channel. Thread-safe.
 *
 * <p>No message is dropped silently: a message that cannot be encoded (e.g. its frame exceeds
 * the limit) fails {@link #send} with a {@link DsaException}, before anything is written; a frame
 * whose write fails after that closes the connection with the failure as its reason (the stream
 * lost a message, so nothing after it could be trusted to arrive in order), and both ends see
 * {@code onDisconnected}. Only writes to a connection already closed are dropped: its close has
 * been or will be reported.
 */
final class NettyConnection implements Connection {
    private static final Logger LOG = LoggerFactory.getLogger(NettyConnection.class);

    /** One shared listener, so a send allocates nothing of ours. */
    private static final ChannelFutureListener CLOSE_ON_WRITE_FAILURE = future -> {
        if (!future.isSuccess()) {
            Throwable cause = future.cause();
            if (cause instanceof ClosedChannelException) {
                LOG.debug("write to closed connection {} dropped", future.channel().remoteAddress());
            } else {
                LOG.warn("write to {} failed, closing the connection: {}", future.channel().remoteAddress(), cause.toString());
                future.channel().attr(FrameDecoder.CLOSE_REASON)
                        .setIfAbsent(new DsaException("write to " + future.channel().remoteAddress() + " failed: " + cause, cause));
                future.channel().close();
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
        FrameEncoder encoder = encoder();
        if (encoder == null) {   // the pipeline is gone with the channel, whose close is (or will be) reported
            LOG.debug("{} to closed connection {} dropped", type, remoteAddress);
            return;
        }
        // Encoded now, on the caller's thread: the partition bytes of a coherence message may be the
        // sender's own array, lent until this returns, and a message that cannot be sent fails its sender.
        ByteBuf frame;
        try {
            frame = encoder.encodeNow(channel.alloc(), message);
        } catch (RuntimeException e) {
            throw new DsaException("cannot send " + type + " to node " + peerNodeId + " at " + remoteAddress + ": "
                    + (e instanceof EncoderException && e.getMessage() != null ? e.getMessage() : e.toString()), e);
        }
        channel.writeAndFlush(frame).addListener(CLOSE_ON_WRITE_FAILURE);
    }

    /** @return the channel's frame encoder, or null when the channel closed before the first send */
    private FrameEncoder encoder() {
        FrameEncoder e = encoder;
        if (e == null) {
            e = channel.pipeline().get(FrameEncoder.class);
            if (e == null && channel.isOpen()) throw new IllegalStateException("connection to " + remoteAddress + " has no frame encoder");
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
