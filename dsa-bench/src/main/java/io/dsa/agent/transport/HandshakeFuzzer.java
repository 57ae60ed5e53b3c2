package io.dsa.agent.transport;

import io.dsa.bench.fuzz.FuzzChecks;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.MockTicker;
import io.netty.util.concurrent.Ticker;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Fuzz target: a whole unauthenticated connection (frame decoder, encoder and the version-2
 * handshake handler, as {@link Transport} sets them up) fed arbitrary bytes by a peer that does
 * not know the secret: as acceptor (it sends a CHALLENGE, then reads a HELLO) or as dialer (it
 * reads a CHALLENGE, answers with a HELLO and an X25519 key share, then reads a WELCOME).
 * Input: byte 0 picks the side (bit 0: acceptor or dialer), how the stream is cut into reads
 * (bits 1-6: 0 for one read, else reads of that many bytes) and whether the handshake timeout then
 * fires (bit 7); the rest is what the peer sends.
 *
 * <p>Asserts: the connection never authenticates, never installs the record layer, and no message
 * reaches the node; nothing is
 * thrown out of the pipeline; a closed connection has failed the handshake and an open one is
 * still waiting; a dialer's connect future fails exactly when the connection closes; every buffer
 * is released; the allocation bound holds.
 */
public final class HandshakeFuzzer {
    private static final byte[] SECRET = "fuzz-cluster-secret-0123456789ab".getBytes(StandardCharsets.US_ASCII);
    private static final String VM = "dsa";
    private static final long TIMEOUT_MS = 1_000;
    private static final TransportConfig CONFIG = TransportConfig.builder().vmName(VM).nodeId(0).secret(SECRET)
            .handshakeTimeoutMs(TIMEOUT_MS).build();

    private HandshakeFuzzer() {}

    /** Jazzer's entry point. */
    public static void fuzzerTestOneInput(byte[] input) {
        if (input.length == 0) return;
        int control = input[0] & 0xff;
        boolean acceptor = (control & 1) == 0;
        boolean timeOut = (control & 0x80) != 0;
        FuzzChecks.runBounded("handshake", input.length, () -> {
            FrameDecoderFuzzer.Reads reads = new FrameDecoderFuzzer.Reads(input, (control >>> 1) & 0x3f);
            Refusing node = new Refusing();
            CompletableFuture<Connection> connected = acceptor ? null : new CompletableFuture<>();
            HandshakeHandler handler = acceptor ? HandshakeHandler.forAcceptor(CONFIG, node)
                    : HandshakeHandler.forDialer(CONFIG, node, connected, "fuzz:1");
            MockTicker ticker = Ticker.newMockTicker();
            EmbeddedChannel ch = EmbeddedChannel.builder().register(false).ticker(ticker)
                    .handlers(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel c) {
                            Transport.initPipeline(c, CONFIG, handler);
                        }
                    }).build();
            ch.config().setAllocator(reads.alloc);
            return () -> {
                FrameDecoderFuzzer.register(ch);   // the acceptor's CHALLENGE is part of what is measured
                reads.feed(ch);
                if (timeOut && ch.isOpen()) {
                    ticker.advance(TIMEOUT_MS, TimeUnit.MILLISECONDS);
                    ch.runScheduledPendingTasks();
                    ch.checkException();
                }
                check(handler.state(), ch, node, connected);
                ch.finishAndReleaseAll();
                reads.alloc.checkAllReleased("handshake");
            };
        });
    }

    private static void check(HandshakeState state, EmbeddedChannel ch, Refusing node, CompletableFuture<Connection> connected) {
        if (node.touched != null) throw new AssertionError("a peer without the secret reached the node: " + node.touched);
        if (state == HandshakeState.AUTHENTICATED) throw new AssertionError("a peer without the secret authenticated");
        if (ch.pipeline().get(Transport.RECORD_DECODER) != null || ch.pipeline().get(Transport.RECORD_ENCODER) != null) {
            throw new AssertionError("the record layer was installed for a peer without the secret: " + ch.pipeline().names());
        }
        if (ch.isOpen() == state.isTerminal()) {
            throw new AssertionError("channel " + (ch.isOpen() ? "open" : "closed") + " in handshake state " + state);
        }
        if (connected != null && (connected.isDone() == ch.isOpen() || connected.isDone() && !connected.isCompletedExceptionally())) {
            throw new AssertionError("dialer's connect future " + connected + " with the channel " + (ch.isOpen() ? "open" : "closed"));
        }
    }

    /**
     * @return what a peer sends in a real version-2 handshake with the wrong secret: to an acceptor,
     *         HELLOs with bad MACs (its own security mode and the other), a version-1 HELLO, a
     *         message before the handshake; to a dialer, a CHALLENGE and a WELCOME with a bad MAC,
     *         a WELCOME with a small-order key share, a REFUSE, a CHALLENGE of the other mode;
     *         whole and cut, with and without the timeout
     */
    public static List<byte[]> seeds() {
        byte[] nonce = filled(WireFormat.NONCE_BYTES, 0x3c);   // fixed, so the checked-in seeds are reproducible
        byte[] share = filled(WireFormat.KEY_SHARE_BYTES, 0x09);
        byte[] wrongSecret = "not-the-cluster-secret-at-all!!!".getBytes(StandardCharsets.US_ASCII);
        List<byte[]> toAcceptor = new ArrayList<>();
        List<byte[]> toDialer = new ArrayList<>();
        byte[] join = WireFuzzing.frame(new io.dsa.agent.wire.JoinMessage(3, "127.0.0.1", 4567));
        for (TransportSecurity security : TransportSecurity.values()) {
            ChallengeMessage challenge = new ChallengeMessage(WireFormat.VERSION, security, nonce);
            HelloMessage unsignedHello = new HelloMessage(WireFormat.VERSION, VM, 3, security, nonce, share, null);
            byte[] hello = WireFuzzing.frame(unsignedHello.withMac(
                    HandshakeCrypto.helloMac(wrongSecret, HandshakeCrypto.transcript(challenge, unsignedHello))));
            toAcceptor.add(concat(hello, join));
            WelcomeMessage unsignedWelcome = new WelcomeMessage(0, share, null);
            byte[] transcript = HandshakeCrypto.transcript(challenge, unsignedHello, unsignedWelcome);
            HandshakeCrypto.Secrets secrets = HandshakeCrypto.derive(wrongSecret, filled(32, 0x11), transcript);
            byte[] welcome = WireFuzzing.frame(unsignedWelcome.withMac(HandshakeCrypto.welcomeMac(secrets, transcript)));
            toDialer.add(concat(WireFuzzing.frame(challenge), welcome, join));
        }
        byte[] versionOne = WireFuzzing.frame(new HelloMessage(1, VM, 3, TransportSecurity.ENCRYPT, nonce, share, nonce));
        versionOne[WireFormat.LENGTH_FIELD_BYTES] = 1;   // a build of protocol version 1 writes 1 in the frame too
        toAcceptor.add(versionOne);
        toAcceptor.add(join);
        byte[] challenge = WireFuzzing.frame(new ChallengeMessage(WireFormat.VERSION, TransportSecurity.ENCRYPT, nonce));
        toDialer.add(concat(challenge, WireFuzzing.frame(new WelcomeMessage(0, new byte[WireFormat.KEY_SHARE_BYTES], nonce))));
        toDialer.add(concat(challenge, WireFuzzing.frame(new RefuseMessage(HandshakeHandler.AUTHENTICATION_FAILED))));
        List<byte[]> seeds = new ArrayList<>();
        for (int control : new int[] {0, 1, 2, 0x0f, 0x80, 0x81}) {
            for (byte[] stream : (control & 1) == 0 ? toAcceptor : toDialer) seeds.add(WireFuzzing.prefixed(control, stream));
        }
        return seeds;
    }

    private static byte[] filled(int length, int value) {
        byte[] b = new byte[length];
        java.util.Arrays.fill(b, (byte) value);
        return b;
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) out.writeBytes(p);
        return out.toByteArray();
    }

    /** The node behind the connection: records anything that reaches it. */
    private static final class Refusing implements InboundHandler {
        Object touched;

        @Override
        public void onConnected(Connection connection) { touched = "onConnected(" + connection + ")"; }

        @Override
        public void onMessage(Connection connection, Object message) { touched = message; }
    }
}
