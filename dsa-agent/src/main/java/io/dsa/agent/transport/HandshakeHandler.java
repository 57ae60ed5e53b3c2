package io.dsa.agent.transport;

import io.dsa.DsaException;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One side of the handshake that opens every connection: mutual authentication with the cluster
 * secret, an ephemeral X25519 key agreement, and agreement on the {@link TransportSecurity}.
 *
 * <pre>
 * acceptor                                                        dialer
 *    |-- CHALLENGE{version, security, nonceA} ----------------------->|
 *    |<- HELLO{version, vmName, nodeId, security, nonceB, shareB,     |
 *    |         mac = HMAC(helloKey(secret), TH(CHALLENGE, HELLO))} ---|
 *    |   acceptor checks version, vm, security (refuses a mismatch naming both), mac;
 *    |   only then makes its key share and agrees (no public-key work for strangers)
 *    |-- WELCOME{nodeId, shareA,                                      |
 *    |           mac = HMAC(welcomeKey(secret, X25519), TH(all three))} ->|
 *    |   or REFUSE{reason}, then close                                |
 *    |== records sealed with the session keys, both ways =============|
 * </pre>
 *
 * {@link HandshakeCrypto} has the key schedule. Nonces are 32 random bytes; MACs are compared in
 * constant time; the transcript hash TH covers every byte of the handshake frames, so a relay
 * that changes anything (a nonce, a key share, the security mode to downgrade it, a node id)
 * makes a MAC fail. Until this handler succeeds the decoder accepts only handshake frames of at
 * most {@value WireFormat#MAX_HANDSHAKE_FRAME_BYTES} bytes. On success it installs the record
 * layer ({@link RecordEncoder}, {@link RecordDecoder}) for the rest of the connection's life,
 * replaces the handshake decoder with it and a message {@link FrameDecoder}, and replaces itself
 * with a {@link ConnectionHandler}. On failure or after {@link TransportConfig#handshakeTimeoutMs()}
 * it closes the channel with the reason: an acceptor reports it to {@link PendingHandshakes}
 * (rate-limited log), a dialer logs it and fails its connect future. Runs on the channel's event
 * loop only.
 */
final class HandshakeHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(HandshakeHandler.class);
    static final String AUTHENTICATION_FAILED = "authentication failed";

    private final boolean acceptor;
    private final TransportConfig config;
    private final InboundHandler inbound;
    /** Completed when a dialled connection authenticates or fails; null for accepted ones. */
    private final CompletableFuture<Connection> connectFuture;
    /** The acceptor's pending-handshake limits and log; null for a dialer (and some tests). */
    private final PendingHandshakes pending;
    /** The peer as the user named it (dialer) or as accepted, for messages. */
    private String peer;

    private HandshakeState state = HandshakeState.NEW;
    private ChallengeMessage challenge;
    private HelloMessage hello;
    /** Dialer: its ephemeral key pair, between HELLO and WELCOME. */
    private KeyPair keyShare;
    private ScheduledFuture<?> timeout;

    private HandshakeHandler(boolean acceptor, TransportConfig config, InboundHandler inbound,
                             CompletableFuture<Connection> connectFuture, PendingHandshakes pending, String peer) {
        this.acceptor = acceptor;
        this.config = config;
        this.inbound = inbound;
        this.connectFuture = connectFuture;
        this.pending = pending;
        this.peer = peer;
    }

    /** @return the handler for an accepted channel, admitted by {@code pending} (null: failures are logged one by one) */
    static HandshakeHandler forAcceptor(TransportConfig config, InboundHandler inbound, PendingHandshakes pending) {
        return new HandshakeHandler(true, config, inbound, null, pending, null);
    }

    /** @return the handler for an accepted channel, logging every failure */
    static HandshakeHandler forAcceptor(TransportConfig config, InboundHandler inbound) {
        return forAcceptor(config, inbound, null);
    }

    /** @return the handler for a dialled channel, completing {@code connectFuture} */
    static HandshakeHandler forDialer(TransportConfig config, InboundHandler inbound,
                                      CompletableFuture<Connection> connectFuture, String peer) {
        return new HandshakeHandler(false, config, inbound, connectFuture, null, peer);
    }

    HandshakeState state() { return state; }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (peer == null) {
            peer = format(ctx.channel().remoteAddress());
        }
        timeout = ctx.executor().schedule(() -> onTimeout(ctx), config.handshakeTimeoutMs(), TimeUnit.MILLISECONDS);
        if (acceptor) {
            challenge = new ChallengeMessage(WireFormat.VERSION, config.security(), HandshakeCrypto.randomNonce());
            transitionTo(HandshakeState.AWAIT_HELLO, "accepted");
            ctx.writeAndFlush(challenge).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
        } else {
            transitionTo(HandshakeState.AWAIT_CHALLENGE, "connected");
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        switch (state) {
            case AWAIT_HELLO -> {
                if (msg instanceof HelloMessage m) {
                    onHello(ctx, m);
                } else {
                    fail(ctx, "expected HELLO, got " + MessageType.of(msg), false);
                }
            }
            case AWAIT_CHALLENGE -> {
                if (msg instanceof ChallengeMessage m) {
                    onChallenge(ctx, m);
                } else if (msg instanceof RefuseMessage refuse) {
                    onRefuse(ctx, refuse);
                } else {
                    fail(ctx, "expected CHALLENGE, got " + MessageType.of(msg), false);
                }
            }
            case AWAIT_WELCOME -> {
                if (msg instanceof WelcomeMessage m) {
                    onWelcome(ctx, m);
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

    private void onHello(ChannelHandlerContext ctx, HelloMessage m) {
        if (m.version() != WireFormat.VERSION) {
            refuse(ctx, "protocol version " + m.version() + " not supported, expected " + WireFormat.VERSION);
            return;
        }
        if (!config.vmName().equals(m.vmName())) {
            refuse(ctx, "vm name '" + m.vmName() + "' does not match '" + config.vmName() + "'");
            return;
        }
        if (m.security() != config.security()) {
            refuse(ctx, securityMismatch(m.security(), config.security()));
            return;
        }
        if (!isSized(m.nonce(), WireFormat.NONCE_BYTES) || !isSized(m.keyShare(), WireFormat.KEY_SHARE_BYTES)
                || !HandshakeCrypto.macMatches(HandshakeCrypto.helloMac(config.secretNoCopy(),
                        HandshakeCrypto.transcript(challenge, m.withMac(null))), m.mac())) {
            refuse(ctx, AUTHENTICATION_FAILED);
            return;
        }
        hello = m;
        // The peer proved the secret on our fresh nonce: only now spend a key pair and an agreement on it.
        KeyPair share = HandshakeCrypto.newKeyShare();
        byte[] shared;
        try {
            shared = HandshakeCrypto.agree(share.getPrivate(), m.keyShare());
        } catch (GeneralSecurityException e) {
            refuse(ctx, "unusable key share: " + e.getMessage());
            return;
        }
        WelcomeMessage unsignedWelcome = new WelcomeMessage(config.nodeId(), HandshakeCrypto.publicBytes(share), null);
        byte[] transcript = HandshakeCrypto.transcript(challenge, hello, unsignedWelcome);
        HandshakeCrypto.Secrets secrets = HandshakeCrypto.derive(config.secretNoCopy(), shared, transcript);
        Arrays.fill(shared, (byte) 0);
        ctx.writeAndFlush(unsignedWelcome.withMac(HandshakeCrypto.welcomeMac(secrets, transcript)))
                .addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
        authenticated(ctx, m.nodeId(), secrets.acceptorToDialer(), secrets.dialerToAcceptor());
        secrets.erase();
    }

    private void onChallenge(ChannelHandlerContext ctx, ChallengeMessage m) {
        if (m.version() != WireFormat.VERSION) {
            fail(ctx, "acceptor speaks protocol version " + m.version() + ", expected " + WireFormat.VERSION, false);
            return;
        }
        if (!isSized(m.nonce(), WireFormat.NONCE_BYTES)) {
            fail(ctx, "malformed CHALLENGE nonce", false);
            return;
        }
        // A different security mode is not refused here: the acceptor refuses it, naming both, for both logs.
        challenge = m;
        keyShare = HandshakeCrypto.newKeyShare();
        HelloMessage unsignedHello = new HelloMessage(WireFormat.VERSION, config.vmName(), config.nodeId(), config.security(),
                HandshakeCrypto.randomNonce(), HandshakeCrypto.publicBytes(keyShare), null);
        hello = unsignedHello.withMac(HandshakeCrypto.helloMac(config.secretNoCopy(),
                HandshakeCrypto.transcript(challenge, unsignedHello)));
        transitionTo(HandshakeState.AWAIT_WELCOME, "challenged");
        ctx.writeAndFlush(hello).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
    }

    private void onWelcome(ChannelHandlerContext ctx, WelcomeMessage m) {
        byte[] shared;
        try {
            shared = HandshakeCrypto.agree(keyShare.getPrivate(), m.keyShare());
        } catch (GeneralSecurityException e) {
            fail(ctx, "acceptor sent an unusable key share: " + e.getMessage(), false);
            return;
        } finally {
            keyShare = null;
        }
        byte[] transcript = HandshakeCrypto.transcript(challenge, hello, m.withMac(null));
        HandshakeCrypto.Secrets secrets = HandshakeCrypto.derive(config.secretNoCopy(), shared, transcript);
        Arrays.fill(shared, (byte) 0);
        if (!HandshakeCrypto.macMatches(HandshakeCrypto.welcomeMac(secrets, transcript), m.mac())) {
            secrets.erase();
            fail(ctx, "acceptor " + AUTHENTICATION_FAILED, false);
            return;
        }
        if (challenge.security() != config.security()) { // covered by the MAC: only a faulty acceptor gets here
            secrets.erase();
            fail(ctx, securityMismatch(config.security(), challenge.security()), false);
            return;
        }
        authenticated(ctx, m.nodeId(), secrets.dialerToAcceptor(), secrets.acceptorToDialer());
        secrets.erase();
    }

    private void onRefuse(ChannelHandlerContext ctx, RefuseMessage refuse) {
        fail(ctx, String.valueOf(refuse.reason()), true);
    }

    private void onTimeout(ChannelHandlerContext ctx) {
        if (!state.isTerminal()) {
            cancelTimeout();
            String reason = "timed out after " + config.handshakeTimeoutMs() + " ms in " + state;
            transitionTo(HandshakeState.FAILED, reason);
            report(ctx, HandshakeLog.Outcome.TIMED_OUT, reason, false);
            ctx.close();
        }
    }

    private void authenticated(ChannelHandlerContext ctx, int peerNodeId, byte[] sendSecret, byte[] receiveSecret) {
        cancelTimeout();
        transitionTo(HandshakeState.AUTHENTICATED, "peer is node " + peerNodeId + ", " + config.security());
        if (pending != null) {
            pending.leave(ctx.channel());
        }
        // Every write from here on is sealed; the last handshake frame has gone out above.
        // (behind the transport's byte counter, if any, which counts what the socket carries)
        RecordEncoder records = new RecordEncoder(RecordProtection.create(config.security(), sendSecret));
        if (ctx.pipeline().get(Transport.BYTE_COUNTER) != null) {
            ctx.pipeline().addAfter(Transport.BYTE_COUNTER, Transport.RECORD_ENCODER, records);
        } else {
            ctx.pipeline().addFirst(Transport.RECORD_ENCODER, records);
        }
        OutboundScheduler scheduler = new OutboundScheduler();
        ctx.pipeline().addBefore(ctx.name(), Transport.SCHEDULER, scheduler);
        NettyConnection connection = new NettyConnection(ctx.channel(), peerNodeId, peer,
                new FrameEncoder(config.maxFrameBytes(), config.chunkBytes()), scheduler, config.sharedRingBytes());
        ConnectionHandler handler = new ConnectionHandler(connection, inbound, config.sharedRingBytes() > 0);
        // The failure detector, at the socket end: it sees every read and every write.
        ctx.pipeline().addFirst(Transport.HEARTBEAT_HANDLER, new HeartbeatHandler(connection, config.failureTimeoutMs()));
        // Order matters: the message handler and the frame decoder must be in place before the
        // handshake decoder goes, because it hands the bytes that arrived behind the handshake
        // frame to its replacement, the record decoder.
        ctx.pipeline().replace(this, Transport.CONNECTION_HANDLER, handler);
        handler.connected(ctx.pipeline().context(handler));
        if (connectFuture != null) {
            connectFuture.complete(connection);
        }
        ctx.pipeline().addAfter(Transport.HANDSHAKE_DECODER, Transport.FRAME_DECODER,
                new FrameDecoder(config.maxFrameBytes(), false, inbound));
        ctx.pipeline().replace(Transport.HANDSHAKE_DECODER, Transport.RECORD_DECODER,
                new RecordDecoder(RecordProtection.create(config.security(), receiveSecret), config.maxFrameBytes()));
    }

    /** Acceptor: tells the dialer why, then closes. */
    private void refuse(ChannelHandlerContext ctx, String reason) {
        cancelTimeout();
        transitionTo(HandshakeState.FAILED, reason);
        report(ctx, HandshakeLog.Outcome.REFUSED, reason, false);
        ctx.writeAndFlush(new RefuseMessage(reason)).addListener(ChannelFutureListener.CLOSE);
    }

    private void fail(ChannelHandlerContext ctx, String reason, boolean refused) {
        cancelTimeout();
        transitionTo(HandshakeState.FAILED, reason);
        report(ctx, HandshakeLog.Outcome.FAILED, reason, refused);
        ctx.close();
    }

    /** Logs why the handshake ended (an acceptor through the rate-limited log) and fails the dialer's future. */
    private void report(ChannelHandlerContext ctx, HandshakeLog.Outcome outcome, String reason, boolean refused) {
        String what = "handshake with " + peer + (refused ? " refused: " : " failed: ") + reason;
        if (pending != null) {
            pending.ended(ctx.channel(), outcome, peer, reason);
        } else if (acceptor && outcome == HandshakeLog.Outcome.REFUSED) {
            LOG.warn("refused handshake from {}: {}", peer, reason);
        } else {
            LOG.warn("closing connection: {}", what);
        }
        if (connectFuture != null) {
            connectFuture.completeExceptionally(new DsaException(what));
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancelTimeout();
        if (!state.isTerminal()) {
            String evicted = ctx.channel().attr(PendingHandshakes.EVICTED).get();
            Throwable reason = ctx.channel().attr(FrameDecoder.CLOSE_REASON).get();
            String why = evicted != null ? evicted : reason != null ? reason.getMessage() : "connection closed by peer";
            transitionTo(HandshakeState.FAILED, why);
            report(ctx, evicted != null ? HandshakeLog.Outcome.EVICTED : HandshakeLog.Outcome.FAILED, why, false);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!state.isTerminal()) {
            // A reset or a broken pipe says what happened in its message; anything else by its type too.
            fail(ctx, cause instanceof java.io.IOException ? "connection lost: " + cause.getMessage() : cause.toString(), false);
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

    /** @return the refusal when the dialer's security differs from the acceptor's: both are named */
    static String securityMismatch(TransportSecurity dialer, TransportSecurity acceptor) {
        return "transport security " + dialer + " (dialer) does not match " + acceptor
                + " (acceptor): both ends need the same --transport-security";
    }

    private static boolean isSized(byte[] bytes, int length) {
        return bytes != null && bytes.length == length;
    }

    static String format(SocketAddress address) {
        if (address instanceof InetSocketAddress inet) {
            String host = inet.getAddress() != null ? inet.getAddress().getHostAddress() : inet.getHostString();
            return host + ":" + inet.getPort();
        }
        return String.valueOf(address);
    }
}
