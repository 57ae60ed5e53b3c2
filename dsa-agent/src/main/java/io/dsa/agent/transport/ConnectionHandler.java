package io.dsa.agent.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.io.IOException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Last handler of an authenticated channel: hands decoded messages (all but heartbeats and the
 * shared ring's offer and answer, which it handles itself) and the close to the user's
 * {@link InboundHandler}. A handler that throws is logged; it neither closes the connection nor
 * reaches the event loop.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionHandler.class);

    private final NettyConnection connection;
    private final InboundHandler inbound;
    /** Whether this side maps the shared rings its peers offer. */
    private final boolean sharedRings;
    private Throwable cause;
    private boolean disconnected;

    ConnectionHandler(NettyConnection connection, InboundHandler inbound) {
        this(connection, inbound, true);
    }

    /** @param sharedRings whether to map the shared rings the peer offers ({@link TransportConfig#sharedRingBytes()} not 0) */
    ConnectionHandler(NettyConnection connection, InboundHandler inbound, boolean sharedRings) {
        this.connection = connection;
        this.inbound = inbound;
        this.sharedRings = sharedRings;
    }

    /** Tells the user the connection is up; called once, right after the handshake. */
    void connected(ChannelHandlerContext ctx) {
        try {
            inbound.onConnected(connection);
        } catch (RuntimeException | Error e) {
            LOG.error("onConnected for {} threw", connection, e);
        }
        if (!ctx.channel().isActive()) {
            disconnect(); // closed before we got here: channelInactive will not come to us
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HeartbeatMessage h) {   // its bytes moved the read deadline already; its interval may matter
            HeartbeatHandler detector = ctx.pipeline().get(HeartbeatHandler.class);
            if (detector != null) detector.onPeerHeartbeat(h);
            return;
        }
        if (msg instanceof SharedRingOffer offer) {
            answerRing(ctx, offer);
            return;
        }
        if (msg instanceof SharedRingAnswer answer) {
            connection.onRingAnswer(answer);
            return;
        }
        try {
            inbound.onMessage(connection, msg);
        } catch (RuntimeException | Error e) {
            LOG.error("onMessage for {} threw on {}", connection, msg, e);
        }
    }

    // Maps the peer's ring for the frame decoder and says whether it did (never throws: a ring is only faster).
    private void answerRing(ChannelHandlerContext ctx, SharedRingOffer offer) {
        FrameDecoder decoder = ctx.pipeline().get(FrameDecoder.class);
        String refusal = null;
        if (!sharedRings) {
            refusal = "shared rings are off here";
        } else if (decoder == null || decoder.hasSharedRing()) {
            refusal = decoder == null ? "no frame decoder" : "a shared ring is in use already";
        } else {
            try {
                decoder.sharedRing(SharedRing.Reader.open(Path.of(offer.path()), offer.capacity(), offer.token()));
            } catch (IOException | RuntimeException e) {
                refusal = e.toString();
            }
        }
        if (refusal != null) LOG.debug("{}: shared ring refused: {}", connection, refusal);
        try {
            connection.send(new SharedRingAnswer(refusal == null, refusal == null ? "" : refusal));
        } catch (RuntimeException e) {
            LOG.debug("{}: shared ring answer not sent: {}", connection, e.toString());
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable t) {
        if (cause == null) {
            cause = t;
        }
        if (t instanceof java.nio.channels.ClosedChannelException) {
            LOG.debug("write to closed {} dropped", connection);   // its close is (or will be) reported
        } else {
            LOG.warn("closing {}: {}", connection, t.toString());
        }
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        Throwable reason = ctx.channel().attr(FrameDecoder.CLOSE_REASON).get();
        if (cause == null) {
            cause = reason;
        }
        disconnect();
        ctx.fireChannelInactive();
    }

    private void disconnect() {
        if (disconnected) {
            return;
        }
        disconnected = true;
        connection.closed();
        LOG.debug("{} closed{}", connection, cause == null ? "" : ": " + cause);
        try {
            inbound.onDisconnected(connection, cause);
        } catch (RuntimeException | Error e) {
            LOG.error("onDisconnected for {} threw", connection, e);
        }
    }
}
