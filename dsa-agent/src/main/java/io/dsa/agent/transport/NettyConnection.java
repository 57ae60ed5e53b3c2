package io.dsa.agent.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
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
        channel.writeAndFlush(message).addListener(LOG_WRITE_FAILURE);
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
