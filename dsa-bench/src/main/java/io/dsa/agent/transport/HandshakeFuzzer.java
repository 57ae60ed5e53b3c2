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
 * Fuzz target: a whole unauthenticated connection (frame decoder, encoder and handshake handler,
 * as {@link Transport} sets them up) fed arbitrary bytes by a peer that does not know the secret.
 * Input: byte 0 picks the side (bit 0: acceptor or dialer), how the stream is cut into reads
 * (bits 1-6: 0 for one read, else reads of that many bytes) and whether the handshake timeout then
 * fires (bit 7); the rest is what the peer sends.
 *
 * <p>Asserts: the connection never authenticates and no message reaches the node; nothing is
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
        if (ch.isOpen() == state.isTerminal()) {
            throw new AssertionError("channel " + (ch.isOpen() ? "open" : "closed") + " in handshake state " + state);
        }
        if (connected != null && (connected.isDone() == ch.isOpen() || connected.isDone() && !connected.isCompletedExceptionally())) {
            throw new AssertionError("dialer's connect future " + connected + " with the channel " + (ch.isOpen() ? "open" : "closed"));
        }
    }

    /**
     * @return what a peer sends in a real handshake with the wrong secret: HELLOs and WELCOMEs with
     *         bad MACs, a CHALLENGE, a REFUSE, messages glued behind them; for both sides, whole and cut
     */
    public static List<byte[]> seeds() {
        byte[] nonce = new byte[WireFormat.NONCE_BYTES];   // fixed, so the checked-in seeds are reproducible
        java.util.Arrays.fill(nonce, (byte) 0x3c);
        byte[] wrongSecret = "not-the-cluster-secret-at-all!!!".getBytes(StandardCharsets.US_ASCII);
        byte[] hello = WireFuzzing.frame(new HelloMessage(WireFormat.VERSION, VM, 3, nonce,
                HandshakeHandler.helloMac(wrongSecret, nonce, nonce, VM, 3)));
        byte[] challenge = WireFuzzing.frame(new ChallengeMessage(WireFormat.VERSION, nonce));
        byte[] welcome = WireFuzzing.frame(new WelcomeMessage(0, HandshakeHandler.welcomeMac(wrongSecret, nonce, nonce, VM, 0)));
        byte[] refuse = WireFuzzing.frame(new RefuseMessage(HandshakeHandler.AUTHENTICATION_FAILED));
        byte[] join = WireFuzzing.frame(new io.dsa.agent.wire.JoinMessage(3, "127.0.0.1", 4567));
        List<byte[]> seeds = new ArrayList<>();
        for (int control : new int[] {0, 1, 2, 0x0f, 0x80, 0x81}) {
            boolean acceptor = (control & 1) == 0;
            seeds.add(WireFuzzing.prefixed(control, acceptor ? concat(hello, join) : concat(challenge, welcome, join)));
            seeds.add(WireFuzzing.prefixed(control, acceptor ? concat(join) : concat(challenge, refuse)));
        }
        return seeds;
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
