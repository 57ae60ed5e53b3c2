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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static io.dsa.agent.transport.HandshakePeer.frames;
import static io.dsa.agent.transport.HandshakePeer.readFrame;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The handshake state machine on embedded channels: no sockets, manual clock, the far end played
 * by hand with the real cryptography ({@link HandshakePeer}), and records that arrive glued to the
 * handshake's last frame.
 */
@Timeout(10)
class HandshakeHandlerTest {
    private static final byte[] SECRET = "0123456789abcdef-cluster-secret".getBytes(StandardCharsets.UTF_8);
    private static final byte[] WRONG = "fedcba9876543210-another-secret".getBytes(StandardCharsets.UTF_8);
    private static final String VM = "vm";

    private static TransportConfig config(int nodeId) {
        return config(nodeId, TransportSecurity.ENCRYPT);
    }

    private static TransportConfig config(int nodeId, TransportSecurity security) {
        return TransportConfig.builder().vmName(VM).nodeId(nodeId).secret(SECRET).security(security).handshakeTimeoutMs(100).build();
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

    private EmbeddedChannel acceptor(TransportConfig config, RecordingHandler recorder) {
        return channel(config, HandshakeHandler.forAcceptor(config, recorder));
    }

    /** What an authenticated end sends first: a heartbeat asking for a third of the default failure timeout. */
    private static final HeartbeatMessage FIRST_HEARTBEAT =
            new HeartbeatMessage((int) (TransportConfig.DEFAULT_FAILURE_TIMEOUT_MS / 3));

    @ParameterizedTest
    @EnumSource(TransportSecurity.class)
    void dialerAuthenticatesAndOpensRecordsGluedBehindWelcome(TransportSecurity security) throws Exception {
        RecordingHandler recorder = new RecordingHandler();
        CompletableFuture<Connection> connected = new CompletableFuture<>();
        EmbeddedChannel ch = channel(config(3, security), HandshakeHandler.forDialer(config(3, security), recorder, connected, "peer:1"));

        HandshakePeer.Answer answer = HandshakePeer.acceptorAnswer(ch, SECRET, security, 0);
        assertFalse(connected.isDone());
        ByteBuf glued = frames(answer.welcome());
        glued.writeBytes(answer.session().records().seal(new JoinMessage(0, "h", 1), new JoinMessage(0, "h", 2)));
        ch.writeInbound(glued);

        Connection c = connected.getNow(null);
        assertNotNull(c);
        assertEquals(0, c.peerNodeId());
        assertEquals("peer:1", c.remoteAddress());
        assertEquals(c, recorder.connected.poll());
        assertEquals(new JoinMessage(0, "h", 1), recorder.messages.poll().message());
        assertEquals(new JoinMessage(0, "h", 2), recorder.messages.poll().message());
        assertNull(ch.pipeline().get(Transport.HANDSHAKE_HANDLER));
        assertNull(ch.pipeline().get(Transport.HANDSHAKE_DECODER));
        assertNotNull(ch.pipeline().get(Transport.CONNECTION_HANDLER));
        assertNotNull(ch.pipeline().get(Transport.RECORD_DECODER));
        assertNotNull(ch.pipeline().get(Transport.RECORD_ENCODER));

        assertEquals(FIRST_HEARTBEAT, answer.session().records().open(ch.readOutbound()), "the first record after the handshake");
        c.send(new JoinMessage(3, "me", 7));
        ch.runPendingTasks();   // a send outside a read batch is written by the event loop's next task
        assertEquals(new JoinMessage(3, "me", 7), answer.session().records().open(ch.readOutbound()));
        ch.close();
        assertEquals(c, recorder.disconnected.poll());
        answer.session().records().finish();
        assertFalse(ch.finish());
    }

    @ParameterizedTest
    @EnumSource(TransportSecurity.class)
    void acceptorAuthenticatesThenSealsAndOpensRecords(TransportSecurity security) throws Exception {
        RecordingHandler recorder = new RecordingHandler();
        EmbeddedChannel ch = acceptor(config(0, security), recorder);

        HandshakePeer.Session session = HandshakePeer.dial(ch, SECRET, VM, 5, security);
        Connection c = recorder.connected.poll();
        assertEquals(5, c.peerNodeId());
        ch.writeInbound(session.records().seal(new JoinMessage(5, "h", 9)));
        assertEquals(new JoinMessage(5, "h", 9), recorder.messages.poll().message());

        assertEquals(FIRST_HEARTBEAT, session.records().open(ch.readOutbound()), "the first record after the handshake");
        c.send(new JoinMessage(0, "me", 7));
        ch.runPendingTasks();
        assertEquals(new JoinMessage(0, "me", 7), session.records().open(ch.readOutbound()));
        session.records().finish();
        assertFalse(ch.finish());
    }

    @Test
    void recordsAreSealedWithKeysOfThisConnectionOnly() throws Exception {
        // Same secret, two connections: the ephemeral key agreement makes their keys unrelated, so a
        // relay cannot splice a record of one connection into another.
        RecordingHandler recorder = new RecordingHandler();
        EmbeddedChannel first = acceptor(config(0), recorder);
        EmbeddedChannel second = acceptor(config(0), recorder);
        HandshakePeer.Session one = HandshakePeer.dial(first, SECRET, VM, 5, TransportSecurity.ENCRYPT);
        HandshakePeer.dial(second, SECRET, VM, 6, TransportSecurity.ENCRYPT);
        assertFalse(java.util.Arrays.equals(one.secrets().dialerToAcceptor(), one.secrets().acceptorToDialer()));

        second.writeInbound(one.records().seal(new JoinMessage(5, "spliced", 1)));
        assertFalse(second.isOpen());
        assertEquals(2, recorder.connected.size());
        assertTrue(recorder.messages.isEmpty());
        String reason = second.attr(FrameDecoder.CLOSE_REASON).get().getMessage();
        assertTrue(reason.startsWith("record 0 of ") && reason.contains(" bytes failed authentication"), reason);
        second.releaseOutbound();   // its first heartbeat
        assertFalse(second.finish());
        first.close();
        first.releaseOutbound();
        assertFalse(first.finish());
    }

    @Test
    void acceptorRefusesABadMacWithoutDecodingWhatFollows() throws Exception {
        RecordingHandler recorder = new RecordingHandler();
        EmbeddedChannel ch = acceptor(config(0), recorder);
        ChallengeMessage challenge = (ChallengeMessage) readFrame(ch);
        HelloMessage hello = HandshakePeer.hello(WRONG, challenge, VM, 5, TransportSecurity.ENCRYPT, HandshakeCrypto.newKeyShare());
        ch.writeInbound(frames(hello, new JoinMessage(5, "h", 9)));
        assertEquals(new RefuseMessage(HandshakeHandler.AUTHENTICATION_FAILED), readFrame(ch));
        assertFalse(ch.isOpen());
        assertTrue(recorder.connected.isEmpty());
        assertTrue(recorder.messages.isEmpty());
        assertTrue(recorder.disconnected.isEmpty());
        assertFalse(ch.finish());
    }

    @Test
    void acceptorRefusesAShortMac() throws Exception {
        EmbeddedChannel ch = acceptor(config(0), new RecordingHandler());
        ChallengeMessage challenge = (ChallengeMessage) readFrame(ch);
        HelloMessage hello = HandshakePeer.hello(SECRET, challenge, VM, 5, TransportSecurity.ENCRYPT, HandshakeCrypto.newKeyShare());
        ch.writeInbound(frames(hello.withMac(new byte[3])));
        assertEquals(new RefuseMessage(HandshakeHandler.AUTHENTICATION_FAILED), readFrame(ch));
        assertFalse(ch.isOpen());
        assertFalse(ch.finish());
    }

    @Test
    void acceptorRefusesAHelloReplayedFromAnotherHandshake() throws Exception {
        EmbeddedChannel first = acceptor(config(0), new RecordingHandler());
        ChallengeMessage challenge = (ChallengeMessage) readFrame(first);
        HelloMessage hello = HandshakePeer.hello(SECRET, challenge, VM, 5, TransportSecurity.ENCRYPT, HandshakeCrypto.newKeyShare());
        first.close();

        EmbeddedChannel second = acceptor(config(0), new RecordingHandler());
        readFrame(second); // a fresh nonce: the old HELLO's MAC does not cover it
        second.writeInbound(frames(hello));
        assertEquals(new RefuseMessage(HandshakeHandler.AUTHENTICATION_FAILED), readFrame(second));
        assertFalse(second.finish());
        assertFalse(first.finish());
    }

    @Test
    void acceptorRefusesAnotherSecurityModeNamingBoth() throws Exception {
        RecordingHandler recorder = new RecordingHandler();
        EmbeddedChannel ch = acceptor(config(0, TransportSecurity.ENCRYPT), recorder);
        ChallengeMessage challenge = (ChallengeMessage) readFrame(ch);
        assertEquals(TransportSecurity.ENCRYPT, challenge.security());
        ch.writeInbound(frames(HandshakePeer.hello(SECRET, challenge, VM, 5, TransportSecurity.MAC, HandshakeCrypto.newKeyShare())));
        RefuseMessage refuse = (RefuseMessage) readFrame(ch);
        assertEquals("transport security MAC (dialer) does not match ENCRYPT (acceptor): both ends need the same"
                + " --transport-security", refuse.reason());
        assertTrue(recorder.connected.isEmpty());
        assertFalse(ch.finish());
    }

    @Test
    void downgradeOfTheChallengeByARelayFailsAuthentication() throws Exception {
        // Both ends use ENCRYPT; the relay tells the dialer the acceptor wants MAC. The dialer still
        // says ENCRYPT, but its MAC covers the CHALLENGE it saw, which is not the one the acceptor sent.
        CompletableFuture<Connection> connected = new CompletableFuture<>();
        EmbeddedChannel dialer = channel(config(3), HandshakeHandler.forDialer(config(3), new RecordingHandler(), connected, "p:1"));
        RecordingHandler acceptorSide = new RecordingHandler();
        EmbeddedChannel acceptor = acceptor(config(0), acceptorSide);

        ChallengeMessage sent = (ChallengeMessage) readFrame(acceptor);
        dialer.writeInbound(frames(new ChallengeMessage(sent.version(), TransportSecurity.MAC, sent.nonce())));
        HelloMessage hello = (HelloMessage) readFrame(dialer);
        assertEquals(TransportSecurity.ENCRYPT, hello.security());
        acceptor.writeInbound(frames(hello));
        assertEquals(new RefuseMessage(HandshakeHandler.AUTHENTICATION_FAILED), readFrame(acceptor));
        assertTrue(acceptorSide.connected.isEmpty());

        // The relay also rewrites the HELLO to MAC: refused as a mismatch before any MAC is believed.
        EmbeddedChannel acceptor2 = acceptor(config(0), acceptorSide);
        ChallengeMessage sent2 = (ChallengeMessage) readFrame(acceptor2);
        HelloMessage honest = HandshakePeer.hello(SECRET, sent2, VM, 3, TransportSecurity.ENCRYPT, HandshakeCrypto.newKeyShare());
        acceptor2.writeInbound(frames(new HelloMessage(honest.version(), VM, 3, TransportSecurity.MAC, honest.nonce(),
                honest.keyShare(), honest.mac())));
        assertTrue(((RefuseMessage) readFrame(acceptor2)).reason().startsWith("transport security MAC (dialer) does not match"));
        assertTrue(acceptorSide.connected.isEmpty());
        assertFalse(acceptor.finish());
        assertFalse(acceptor2.finish());
        dialer.close();
        assertFalse(dialer.finish());
    }

    @Test
    void dialerRejectsAWelcomeWhoseSecurityModeWasRewritten() throws Exception {
        // A relay that turns the acceptor's answer into a MAC-mode one cannot sign it.
        CompletableFuture<Connection> connected = new CompletableFuture<>();
        EmbeddedChannel ch = channel(config(3), HandshakeHandler.forDialer(config(3), new RecordingHandler(), connected, "p:1"));
        HandshakePeer.Answer answer = HandshakePeer.acceptorAnswer(ch, WRONG, TransportSecurity.ENCRYPT, 0);
        ch.writeInbound(frames(answer.welcome()));
        assertTrue(assertThrows(ExecutionException.class, connected::get).getCause().getMessage()
                .endsWith("failed: acceptor authentication failed"));
        assertFalse(ch.isOpen());
        assertFalse(ch.finish());
    }

    @Test
    void acceptorRefusesASmallOrderKeyShare() throws Exception {
        EmbeddedChannel ch = acceptor(config(0), new RecordingHandler());
        ChallengeMessage challenge = (ChallengeMessage) readFrame(ch);
        HelloMessage unsigned = new HelloMessage(WireFormat.VERSION, VM, 5, TransportSecurity.ENCRYPT,
                HandshakeCrypto.randomNonce(), new byte[WireFormat.KEY_SHARE_BYTES], null);
        HelloMessage hello = unsigned.withMac(HandshakeCrypto.helloMac(SECRET, HandshakeCrypto.transcript(challenge, unsigned)));
        ch.writeInbound(frames(hello));
        assertEquals("unusable key share: Point has small order", ((RefuseMessage) readFrame(ch)).reason());
        assertFalse(ch.finish());
    }

    @Test
    void acceptorClosesOnAnOutOfOrderHandshakeMessage() throws Exception {
        EmbeddedChannel ch = acceptor(config(0), new RecordingHandler());
        readFrame(ch);
        ch.writeInbound(frames(new WelcomeMessage(1, new byte[32], new byte[32])));
        assertFalse(ch.isOpen());
        assertFalse(ch.finish());
    }

    @Test
    void acceptorClosesASilentPeerAfterTheTimeout() throws Exception {
        EmbeddedChannel ch = acceptor(config(0), new RecordingHandler());
        readFrame(ch);
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
        ch.writeInbound(frames(new ChallengeMessage(WireFormat.VERSION, TransportSecurity.ENCRYPT, HandshakeCrypto.randomNonce())));
        readFrame(ch);
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
        int other = WireFormat.VERSION + 1;
        EmbeddedChannel ch = channel(config(3), HandshakeHandler.forDialer(config(3), new RecordingHandler(), connected, "p:1"));
        ch.writeInbound(frames(new ChallengeMessage(other, TransportSecurity.ENCRYPT, HandshakeCrypto.randomNonce())));
        assertNull(ch.readOutbound(), "no HELLO to an acceptor of another version");
        assertTrue(assertThrows(ExecutionException.class, connected::get).getCause().getMessage()
                .contains("acceptor speaks protocol version " + other + ", expected " + WireFormat.VERSION));
        assertFalse(ch.finish());
    }

    @Test
    void dialerRejectsAVersion1AcceptorWithAClearReason() throws Exception {
        // What a DSA build from before the record layer sends first: a version-1 CHALLENGE frame.
        CompletableFuture<Connection> connected = new CompletableFuture<>();
        EmbeddedChannel ch = channel(config(3), HandshakeHandler.forDialer(config(3), new RecordingHandler(), connected, "old:1"));
        ByteBuf v1 = Unpooled.buffer();
        v1.writeInt(2 + 4 + 4 + 32).writeByte(1).writeByte(MessageType.CHALLENGE.code()).writeInt(1).writeInt(32).writeZero(32);
        ch.writeInbound(v1);
        assertNull(ch.readOutbound());
        assertEquals("handshake with old:1 failed: protocol version 1, expected " + WireFormat.VERSION + ": the peer runs a DSA build of another"
                + " protocol version", assertThrows(ExecutionException.class, connected::get).getCause().getMessage());
        assertFalse(ch.finish());
    }

    @Test
    void dialerRejectsAnAcceptorOfTheHmacOnlyMacModeNamingIt() throws Exception {
        // What a build whose MAC mode tagged every frame with HMAC-SHA256 sends first: its CHALLENGE with security code 2.
        CompletableFuture<Connection> connected = new CompletableFuture<>();
        EmbeddedChannel ch = channel(config(3, TransportSecurity.MAC),
                HandshakeHandler.forDialer(config(3, TransportSecurity.MAC), new RecordingHandler(), connected, "old:1"));
        ByteBuf old = Unpooled.buffer();
        old.writeInt(2 + 4 + 1 + 4 + 32).writeByte(WireFormat.VERSION).writeByte(MessageType.CHALLENGE.code())
                .writeInt(WireFormat.VERSION).writeByte(TransportSecurity.RETIRED_MAC_CODE).writeInt(32).writeZero(32);
        ch.writeInbound(old);
        assertNull(ch.readOutbound(), "no HELLO to a peer whose records this build cannot open");
        String reason = assertThrows(ExecutionException.class, connected::get).getCause().getMessage();
        assertTrue(reason.contains("transport security code 2 is MAC with HMAC-SHA256 on every frame, which this build no"
                + " longer speaks (its MAC is code 3): the peer runs an older DSA build"), reason);
        assertFalse(ch.finish());
    }

    @Test
    void acceptorClosesAVersion1HelloWithAClearReason() throws Exception {
        RecordingHandler recorder = new RecordingHandler();
        EmbeddedChannel ch = acceptor(config(0), recorder);
        readFrame(ch);
        ByteBuf v1 = Unpooled.buffer();
        v1.writeInt(2 + 4).writeByte(1).writeByte(MessageType.HELLO.code()).writeInt(1);
        ch.writeInbound(v1);
        assertFalse(ch.isOpen());
        assertEquals("protocol version 1, expected " + WireFormat.VERSION + ": the peer runs a DSA build of another protocol version",
                ch.attr(FrameDecoder.CLOSE_REASON).get().getMessage());
        assertTrue(recorder.connected.isEmpty());
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

    @Test
    void transcriptCoversEveryByteOfTheHandshakeFrames() {
        ChallengeMessage challenge = new ChallengeMessage(WireFormat.VERSION, TransportSecurity.ENCRYPT, HandshakeCrypto.randomNonce());
        KeyPair share = HandshakeCrypto.newKeyShare();
        HelloMessage hello = new HelloMessage(WireFormat.VERSION, VM, 5, TransportSecurity.ENCRYPT, HandshakeCrypto.randomNonce(),
                HandshakeCrypto.publicBytes(share), null);
        byte[] base = HandshakeCrypto.transcript(challenge, hello);
        byte[] otherMode = HandshakeCrypto.transcript(new ChallengeMessage(WireFormat.VERSION, TransportSecurity.MAC, challenge.nonce()), hello);
        byte[] otherNode = HandshakeCrypto.transcript(challenge, new HelloMessage(WireFormat.VERSION, VM, 6, TransportSecurity.ENCRYPT,
                hello.nonce(), hello.keyShare(), null));
        byte[] flippedShare = hello.keyShare().clone();
        flippedShare[31] ^= 1;
        byte[] otherShare = HandshakeCrypto.transcript(challenge, new HelloMessage(WireFormat.VERSION, VM, 5, TransportSecurity.ENCRYPT,
                hello.nonce(), flippedShare, null));
        for (byte[] changed : new byte[][] {otherMode, otherNode, otherShare}) {
            assertFalse(java.util.Arrays.equals(base, changed));
        }
        assertArrayEquals(base, HandshakeCrypto.transcript(challenge, hello));
    }
}
