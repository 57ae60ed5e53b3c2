package io.dsa.agent.transport;

import io.dsa.DsaException;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One side of the mutual challenge-response handshake that opens every connection:
 *
 * <pre>
 * acceptor                                              dialer
 *    |-- CHALLENGE{version, nonceA} ---------------------->|
 *    |<- HELLO{version, vmName, nodeId, nonceB,            |
 *    |         HMAC(secret, "dsa-hello"|nonceA|nonceB|vmName|nodeId)}
 *    |-- WELCOME{nodeId, HMAC(secret, "dsa-welcome"|nonceB|nonceA|vmName|nodeId)} ->|
 *    |   or REFUSE{reason}, then close                     |
 * </pre>
 *
 * HMAC is HMAC-SHA256; vmName is written as int32 length + UTF-8, nodeId as int32; nonces are
 * 32 bytes from {@link SecureRandom}; tags are compared in constant time. Until this handler
 * succeeds the decoder accepts only handshake frames of at most
 * {@value WireFormat#MAX_HANDSHAKE_FRAME_BYTES} bytes. On success it replaces itself with a
 * {@link ConnectionHandler} and the handshake decoder with the message decoder; on failure or
 * after {@link TransportConfig#handshakeTimeoutMs()} it logs the reason and closes the channel.
 * Runs on the channel's event loop only.
 */
final class HandshakeHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(HandshakeHandler.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final byte[] HELLO_LABEL = "dsa-hello".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] WELCOME_LABEL = "dsa-welcome".getBytes(StandardCharsets.US_ASCII);
    private static final String HMAC = "HmacSHA256";
    static final String AUTHENTICATION_FAILED = "authentication failed";

    private final boolean acceptor;
    private final TransportConfig config;
    private final InboundHandler inbound;
    /** Completed when a dialled connection authenticates or fails; null for accepted ones. */
    private final CompletableFuture<Connection> connectFuture;
    /** The peer as the user named it (dialer) or as accepted, for messages. */
    private String peer;

    private HandshakeState state = HandshakeState.NEW;
    private byte[] nonceA;
    private byte[] nonceB;
    private ScheduledFuture<?> timeout;

    private HandshakeHandler(boolean acceptor, TransportConfig config, InboundHandler inbound,
                             CompletableFuture<Connection> connectFuture, String peer) {
        this.acceptor = acceptor;
        this.config = config;
        this.inbound = inbound;
        this.connectFuture = connectFuture;
        this.peer = peer;
    }

    /** @return the handler for an accepted channel */
    static HandshakeHandler forAcceptor(TransportConfig config, InboundHandler inbound) {
        return new HandshakeHandler(true, config, inbound, null, null);
    }

    /** @return the handler for a dialled channel, completing {@code connectFuture} */
    static HandshakeHandler forDialer(TransportConfig config, InboundHandler inbound,
                                      CompletableFuture<Connection> connectFuture, String peer) {
        return new HandshakeHandler(false, config, inbound, connectFuture, peer);
    }

    HandshakeState state() { return state; }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (peer == null) {
            peer = format(ctx.channel().remoteAddress());
        }
        timeout = ctx.executor().schedule(() -> onTimeout(ctx), config.handshakeTimeoutMs(), TimeUnit.MILLISECONDS);
        if (acceptor) {
            nonceA = randomNonce();
            transitionTo(HandshakeState.AWAIT_HELLO, "accepted");
            ctx.writeAndFlush(new ChallengeMessage(WireFormat.VERSION, nonceA)).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
        } else {
            transitionTo(HandshakeState.AWAIT_CHALLENGE, "connected");
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        switch (state) {
            case AWAIT_HELLO -> {
                if (msg instanceof HelloMessage hello) {
                    onHello(ctx, hello);
                } else {
                    fail(ctx, "expected HELLO, got " + MessageType.of(msg), false);
                }
            }
            case AWAIT_CHALLENGE -> {
                if (msg instanceof ChallengeMessage challenge) {
                    onChallenge(ctx, challenge);
                } else if (msg instanceof RefuseMessage refuse) {
                    onRefuse(ctx, refuse);
                } else {
                    fail(ctx, "expected CHALLENGE, got " + MessageType.of(msg), false);
                }
            }
            case AWAIT_WELCOME -> {
                if (msg instanceof WelcomeMessage welcome) {
                    onWelcome(ctx, welcome);
                } else if (msg instanceof RefuseMessage refuse) {
                    onRefuse(ctx, refuse);
                } else {
                    fail(ctx, "expected WELCOME, got " + MessageType.of(msg), false);
                }
            }
            case NEW, AUTHENTICATED, FAILED -> {
                // Closing (or not yet active): nothing more is read from this peer.
            }
        }
    }

    private void onHello(ChannelHandlerContext ctx, HelloMessage hello) {
        if (hello.version() != WireFormat.VERSION) {
            refuse(ctx, "protocol version " + hello.version() + " not supported, expected " + WireFormat.VERSION);
            return;
        }
        if (!config.vmName().equals(hello.vmName())) {
            refuse(ctx, "vm name '" + hello.vmName() + "' does not match '" + config.vmName() + "'");
            return;
        }
        if (!isNonce(hello.nonce()) || !isNonce(hello.mac())
                || !MessageDigest.isEqual(hello.mac(), helloMac(config.secretNoCopy(), nonceA, hello.nonce(),
                hello.vmName(), hello.nodeId()))) {
            refuse(ctx, AUTHENTICATION_FAILED);
            return;
        }
        nonceB = hello.nonce();
        byte[] mac = welcomeMac(config.secretNoCopy(), nonceB, nonceA, config.vmName(), config.nodeId());
        ctx.writeAndFlush(new WelcomeMessage(config.nodeId(), mac)).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
        authenticated(ctx, hello.nodeId());
    }

    private void onChallenge(ChannelHandlerContext ctx, ChallengeMessage challenge) {
        if (challenge.version() != WireFormat.VERSION) {
            fail(ctx, "acceptor speaks protocol version " + challenge.version() + ", expected " + WireFormat.VERSION, false);
            return;
        }
        if (!isNonce(challenge.nonce())) {
            fail(ctx, "malformed CHALLENGE nonce", false);
            return;
        }
        nonceA = challenge.nonce();
        nonceB = randomNonce();
        byte[] mac = helloMac(config.secretNoCopy(), nonceA, nonceB, config.vmName(), config.nodeId());
        transitionTo(HandshakeState.AWAIT_WELCOME, "challenged");
        ctx.writeAndFlush(new HelloMessage(WireFormat.VERSION, config.vmName(), config.nodeId(), nonceB, mac))
                .addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
    }

    private void onWelcome(ChannelHandlerContext ctx, WelcomeMessage welcome) {
        if (!isNonce(welcome.mac()) || !MessageDigest.isEqual(welcome.mac(),
                welcomeMac(config.secretNoCopy(), nonceB, nonceA, config.vmName(), welcome.nodeId()))) {
            fail(ctx, "acceptor " + AUTHENTICATION_FAILED, false);
            return;
        }
        authenticated(ctx, welcome.nodeId());
    }

    private void onRefuse(ChannelHandlerContext ctx, RefuseMessage refuse) {
        fail(ctx, String.valueOf(refuse.reason()), true);
    }

    private void onTimeout(ChannelHandlerContext ctx) {
        if (!state.isTerminal()) {
            fail(ctx, "timed out after " + config.handshakeTimeoutMs() + " ms in " + state, false);
        }
    }

    private void authenticated(ChannelHandlerContext ctx, int peerNodeId) {
        cancelTimeout();
        transitionTo(HandshakeState.AUTHENTICATED, "peer is node " + peerNodeId);
        NettyConnection connection = new NettyConnection(ctx.channel(), peerNodeId, peer);
        ConnectionHandler handler = new ConnectionHandler(connection, inbound);
        // Order matters: the message handler must be in place before the decoder swap forwards
        // bytes that arrived behind the handshake frame.
        ctx.pipeline().replace(this, Transport.CONNECTION_HANDLER, handler);
        handler.connected(ctx.pipeline().context(handler));
        if (connectFuture != null) {
            connectFuture.complete(connection);
        }
        ctx.pipeline().replace(Transport.DECODER, Transport.DECODER, new FrameDecoder(config.maxFrameBytes(), false));
    }

    /** Acceptor: tells the dialer why, then closes. */
    private void refuse(ChannelHandlerContext ctx, String reason) {
        cancelTimeout();
        transitionTo(HandshakeState.FAILED, reason);
        LOG.warn("refused handshake from {}: {}", peer, reason);
        ctx.writeAndFlush(new RefuseMessage(reason)).addListener(ChannelFutureListener.CLOSE);
    }

    private void fail(ChannelHandlerContext ctx, String reason, boolean refused) {
        cancelTimeout();
        transitionTo(HandshakeState.FAILED, reason);
        String what = "handshake with " + peer + (refused ? " refused: " : " failed: ") + reason;
        LOG.warn("closing connection: {}", what);
        if (connectFuture != null) {
            connectFuture.completeExceptionally(new DsaException(what));
        }
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancelTimeout();
        if (!state.isTerminal()) {
            Throwable reason = ctx.channel().attr(FrameDecoder.CLOSE_REASON).get();
            String why = reason != null ? reason.getMessage() : "connection closed by peer";
            transitionTo(HandshakeState.FAILED, why);
            if (reason == null) {
                LOG.warn("handshake with {} failed: {}", peer, why);
            } // else the decoder has logged it
            if (connectFuture != null) {
                connectFuture.completeExceptionally(new DsaException("handshake with " + peer + " failed: " + why));
            }
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!state.isTerminal()) {
            fail(ctx, cause.toString(), false);
        } else {
            ctx.close();
        }
    }

    private void transitionTo(HandshakeState next, String reason) {
        assert next != state && !state.isTerminal() : state + " -> " + next;
        LOG.debug("handshake {} {}: {} -> {} ({})", acceptor ? "from" : "to", peer, state, next, reason);
        state = next;
    }

    private void cancelTimeout() {
        if (timeout != null) {
            timeout.cancel(false);
            timeout = null;
        }
    }

    // ---- crypto, package-private for tests that play a hand-crafted peer

    static byte[] randomNonce() {
        byte[] nonce = new byte[WireFormat.NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        return nonce;
    }

    static byte[] helloMac(byte[] secret, byte[] nonceA, byte[] nonceB, String vmName, int nodeId) {
        return mac(secret, HELLO_LABEL, nonceA, nonceB, vmName, nodeId);
    }

    static byte[] welcomeMac(byte[] secret, byte[] nonceB, byte[] nonceA, String vmName, int nodeId) {
        return mac(secret, WELCOME_LABEL, nonceB, nonceA, vmName, nodeId);
    }

    private static byte[] mac(byte[] secret, byte[] label, byte[] first, byte[] second, String vmName, int nodeId) {
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(new SecretKeySpec(secret, HMAC));
            mac.update(label);
            mac.update(first);
            mac.update(second);
            byte[] name = vmName.getBytes(StandardCharsets.UTF_8);
            mac.update(intBytes(name.length));
            mac.update(name);
            mac.update(intBytes(nodeId));
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(HMAC + " unavailable", e); // every JDK has it
        }
    }

    private static byte[] intBytes(int v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }

    private static boolean isNonce(byte[] bytes) {
        return bytes != null && bytes.length == WireFormat.NONCE_BYTES;
    }

    static String format(SocketAddress address) {
        if (address instanceof InetSocketAddress inet) {
            String host = inet.getAddress() != null ? inet.getAddress().getHostAddress() : inet.getHostString();
            return host + ":" + inet.getPort();
        }
        return String.valueOf(address);
    }
}
