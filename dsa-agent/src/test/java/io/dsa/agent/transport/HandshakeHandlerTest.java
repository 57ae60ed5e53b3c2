package io.dsa.agent.transport;

import io.dsa.DsaException;
import io.dsa.agent.wire.JoinMessage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.MockTicker;
import io.netty.util.concurrent.Ticker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The handshake state machine on embedded channels: no sockets, manual clock, and frames that
 * arrive glued together (the handshake's last frame and the first messages in one read).
 */
@Timeout(10)
class HandshakeHandlerTest {
    private static final byte[] SECRET = "0123456789abcdef-cluster-secret".getBytes(StandardCharsets.UTF_8);
    private static final String VM = "vm";

    private static TransportConfig config(int nodeId) {
        return TransportConfig.builder().vmName(VM).nodeId(nodeId).secret(SECRET).handshakeTimeoutMs(100).build();
    }

    /** The channels' clock: moves only when a test advances it, however slow the machine is. */
    private final MockTicker ticker = Ticker.newMockTicker();

    private EmbeddedChannel channel(TransportConfig config, HandshakeHandler handler) {
        return EmbeddedChannel.builder()
                .ticker(ticker)
                .handlers(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        Transport.initPipeline(ch, config, handler);
                    }
                })
                .build();
    }

    @Test
    void dialerAuthenticatesAndDecodesMessagesGluedBehindWelcome() throws Exception {
        RecordingHandler recorder = new RecordingHandler();
        CompletableFuture<Connection> connected = new CompletableFuture<>();
        EmbeddedChannel ch = channel(config(3), HandshakeHandler.forDialer(config(3), recorder, connected, "peer:1"));

        byte[] nonceA = HandshakeHandler.randomNonce();
        ch.writeInbound(frames(new ChallengeMessage(WireFormat.VERSION, nonceA)));
        HelloMessage hello = (HelloMessage) readOutbound(ch);
        assertEquals(WireFormat.VERSION, hello.version());
        assertEquals(VM, hello.vmName());
        assertEquals(3, hello.nodeId());
        assertArrayEquals(HandshakeHandler.helloMac(SECRET, nonceA, hello.nonce(), VM, 3), hello.mac());
        assertFalse(connected.isDone());

        byte[] welcomeMac = HandshakeHandler.welcomeMac(SECRET, hello.nonce(), nonceA, VM, 0);
        ch.writeInbound(frames(new WelcomeMessage(0, welcomeMac), new JoinMessage(0, "h", 1), new JoinMessage(0, "h", 2)));

        Connection c = connected.getNow(null);
        assertNotNull(c);
        assertEquals(0, c.peerNodeId());
        assertEquals("peer:1", c.remoteAddress());
        assertEquals(c, recorder.connected.poll());
        assertEquals(new JoinMessage(0, "h", 1), recorder.messages.poll().message());
        assertEquals(new JoinMessage(0, "h", 2), recorder.messages.poll().message());
        assertNull(ch.pipeline().get(Transport.HANDSHAKE_HANDLER));
        assertNotNull(ch.pipeline().get(Transport.CONNECTION_HANDLER));

        ch.close();
        assertEquals(c, recorder.disconnected.poll());
        assertFalse(ch.finish());
    }

    @Test
    void acceptorAuthenticatesAndDecodesMessagesGluedBehindHello() throws Exception {
        RecordingHandler recorder = new RecordingHandler();
        EmbeddedChannel ch = channel(config(0), HandshakeHandler.forAcceptor(config(0), recorder));

        ChallengeMessage challenge = (ChallengeMessage) readOutbound(ch);
        assertEquals(WireFormat.VERSION, challenge.version());
        byte[] nonceB = HandshakeHandler.randomNonce();
        byte[] mac = HandshakeHandler.helloMac(SECRET, challenge.nonce(), nonceB, VM, 5);
        ch.writeInbound(frames(new HelloMessage(WireFormat.VERSION, VM, 5, nonceB, mac), new JoinMessage(5, "h", 9)));

        WelcomeMessage welcome = (WelcomeMessage) readOutbound(ch);
        assertEquals(0, welcome.nodeId());
        assertArrayEquals(HandshakeHandler.welcomeMac(SECRET, nonceB, challenge.nonce(), VM, 0), welcome.mac());
        Connection c = recorder.connected.poll();
        assertEquals(5, c.peerNodeId());
        assertEquals(new JoinMessage(5, "h", 9), recorder.messages.poll().message());

        c.send(new JoinMessage(0, "me", 7));
        assertEquals(new JoinMessage(0, "me", 7), readMessage(ch));
        assertFalse(ch.finish());
    }

    @Test
    void acceptorRefusesABadMacWithoutDecodingWhatFollows() throws Exception {
        RecordingHandler recorder = new RecordingHandler();
        EmbeddedChannel ch = channel(config(0), HandshakeHandler.forAcceptor(config(0), recorder));
        readOutbound(ch);
        byte[] nonceB = HandshakeHandler.randomNonce();
        ch.writeInbound(frames(new HelloMessage(WireFormat.VERSION, VM, 5, nonceB, new byte[32]), new JoinMessage(5, "h", 9)));
        assertEquals(new RefuseMessage(HandshakeHandler.AUTHENTICATION_FAILED), readOutbound(ch));
        assertFalse(ch.isOpen());
        assertTrue(recorder.connected.isEmpty());
        assertTrue(recorder.messages.isEmpty());
        assertTrue(recorder.disconnected.isEmpty());
        assertFalse(ch.finish());
    }

    @Test
    void acceptorRefusesAShortMac() throws Exception {
        EmbeddedChannel ch = channel(config(0), HandshakeHandler.forAcceptor(config(0), new RecordingHandler()));
        readOutbound(ch);
        ch.writeInbound(frames(new HelloMessage(WireFormat.VERSION, VM, 5, HandshakeHandler.randomNonce(), new byte[3])));
        assertEquals(new RefuseMessage(HandshakeHandler.AUTHENTICATION_FAILED), readOutbound(ch));
        assertFalse(ch.isOpen());
        assertFalse(ch.finish());
    }

    @Test
    void acceptorClosesOnAnOutOfOrderHandshakeMessage() throws Exception {
        EmbeddedChannel ch = channel(config(0), HandshakeHandler.forAcceptor(config(0), new RecordingHandler()));
        readOutbound(ch);
        ch.writeInbound(frames(new WelcomeMessage(1, new byte[32])));
        assertFalse(ch.isOpen());
        assertFalse(ch.finish());
    }

    @Test
    void acceptorClosesASilentPeerAfterTheTimeout() throws Exception {
        EmbeddedChannel ch = channel(config(0), HandshakeHandler.forAcceptor(config(0), new RecordingHandler()));
        readOutbound(ch);
        ticker.advance(99, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertTrue(ch.isOpen());
        ticker.advance(2, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertFalse(ch.isOpen());
        assertFalse(ch.finish());
    }

    @Test
    void dialerFailsTheFutureWithTheRefusalReason() throws Exception {
        CompletableFuture<Connection> connected = new CompletableFuture<>();
        EmbeddedChannel ch = channel(config(3), HandshakeHandler.forDialer(config(3), new RecordingHandler(), connected, "10.0.0.1:4567"));
        ch.writeInbound(frames(new ChallengeMessage(WireFormat.VERSION, HandshakeHandler.randomNonce())));
        readOutbound(ch);
        ch.writeInbound(frames(new RefuseMessage(HandshakeHandler.AUTHENTICATION_FAILED)));
        ExecutionException e = assertThrows(ExecutionException.class, connected::get);
        assertInstanceOf(DsaException.class, e.getCause());
        assertEquals("handshake with 10.0.0.1:4567 refused: authentication failed", e.getCause().getMessage());
        assertFalse(ch.isOpen());
        assertFalse(ch.finish());
    }

    @Test
    void dialerRejectsAnAcceptorWithAnotherProtocolVersion() throws Exception {
        CompletableFuture<Connection> connected = new CompletableFuture<>();
        EmbeddedChannel ch = channel(config(3), HandshakeHandler.forDialer(config(3), new RecordingHandler(), connected, "p:1"));
        ch.writeInbound(frames(new ChallengeMessage(2, HandshakeHandler.randomNonce())));
        assertNull(ch.readOutbound(), "no HELLO to an acceptor of another version");
        assertTrue(assertThrows(ExecutionException.class, connected::get).getCause().getMessage()
                .contains("acceptor speaks protocol version 2, expected 1"));
        assertFalse(ch.finish());
    }

    @Test
    void dialerFailsWhenThePeerClosesMidHandshake() throws Exception {
        CompletableFuture<Connection> connected = new CompletableFuture<>();
        EmbeddedChannel ch = channel(config(3), HandshakeHandler.forDialer(config(3), new RecordingHandler(), connected, "p:1"));
        ch.close();
        assertTrue(assertThrows(ExecutionException.class, connected::get).getCause().getMessage()
                .endsWith("failed: connection closed by peer"));
        assertFalse(ch.finish());
    }

    // ---- helpers

    private static ByteBuf frames(Object... messages) {
        ByteBuf out = Unpooled.buffer();
        for (Object m : messages) {
            WireFormat.writeFrame(MessageType.of(m), m, out);
        }
        return out;
    }

    /** Reads and decodes one outbound handshake frame, releasing it. */
    private static Object readOutbound(EmbeddedChannel ch) {
        return decode(ch, true);
    }

    private static Object readMessage(EmbeddedChannel ch) {
        return decode(ch, false);
    }

    private static Object decode(EmbeddedChannel ch, boolean handshake) {
        ByteBuf frame = ch.readOutbound();
        assertNotNull(frame, "nothing written");
        EmbeddedChannel decoder = new EmbeddedChannel(new FrameDecoder(1 << 20, handshake));
        assertTrue(decoder.writeInbound(frame));
        Object m = decoder.readInbound();
        assertFalse(decoder.finish());
        return m;
    }
}
