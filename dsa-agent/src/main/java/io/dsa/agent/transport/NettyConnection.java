package io.dsa.agent.transport;

import io.dsa.DsaException;
import io.netty.channel.Channel;
import io.netty.handler.codec.EncoderException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Connection} over an authenticated Netty channel. Thread-safe. A send encodes the
 * message on the caller's thread (into chunk frames if it is large) and hands it to the channel's
 * {@link OutboundScheduler}, which writes it on the event loop.
 *
 * <p>No message is dropped silently: a message that cannot be encoded (a frame over the limit
 * that cannot be chunked, an encoder error) fails {@link #send} with a {@link DsaException}
 * before anything is queued; a record that cannot be sealed closes the connection with its
 * reason (the record encoder), which both ends see as {@code onDisconnected}. Only writes to a
 * connection already closed are dropped: its close has been or will be reported.
 */
final class NettyConnection implements Connection {
    private static final Logger LOG = LoggerFactory.getLogger(NettyConnection.class);

    private final Channel channel;
    private final int peerNodeId;
    private final String remoteAddress;
    private final FrameEncoder encoder;
    private final OutboundScheduler scheduler;

    NettyConnection(Channel channel, int peerNodeId, String remoteAddress, FrameEncoder encoder, OutboundScheduler scheduler) {
        this.channel = channel;
        this.peerNodeId = peerNodeId;
        this.remoteAddress = remoteAddress;
        this.encoder = encoder;
        this.scheduler = scheduler;
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
        // Encoded now, on the caller's thread: a coherence message's partition bytes may be the
        // sender's own array, lent until this returns, and a message that cannot be sent fails its sender.
        OutboundMessage encoded;
        try {
            encoded = encoder.encode(channel.alloc(), message);
        } catch (RuntimeException e) {
            throw new DsaException("cannot send " + type + " to node " + peerNodeId + " at " + remoteAddress + ": "
                    + (e instanceof EncoderException && e.getMessage() != null ? e.getMessage() : e.toString()), e);
        }
        scheduler.send(encoded);
    }

    @Override
    public void executeOnIoThread(Runnable task) { channel.eventLoop().execute(task); }

    @Override
    public boolean isOpen() { return channel.isActive(); }

    @Override
    public void close() { channel.close(); }

    @Override
    public String remoteAddress() { return remoteAddress; }

    /** @return the channel, for tests of this package */
    Channel channel() { return channel; }

    /** @return the scheduler, for tests of this package */
    OutboundScheduler scheduler() { return scheduler; }

    @Override
    public String toString() { return "Connection[node " + peerNodeId + " at " + remoteAddress + "]"; }
}
