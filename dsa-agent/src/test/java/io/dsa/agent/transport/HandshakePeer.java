package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;

import java.security.KeyPair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Test helper: plays one end of the handshake by hand, with the real cryptography of
 * {@link HandshakeCrypto}, so tests can take a correct run apart and change one thing.
 */
final class HandshakePeer {
    private HandshakePeer() {}

    /** What the far end of a completed handshake holds. */
    record Session(RecordPeer records, HandshakeCrypto.Secrets secrets) {}

    /** The acceptor's answer to a dialer's HELLO, not yet delivered, and the session it opens. */
    record Answer(WelcomeMessage welcome, Session session) {}

    /** @return a correctly signed HELLO answering {@code challenge} */
    static HelloMessage hello(byte[] secret, ChallengeMessage challenge, String vm, int nodeId, TransportSecurity security,
                              KeyPair share) {
        HelloMessage unsigned = new HelloMessage(WireFormat.VERSION, vm, nodeId, security, HandshakeCrypto.randomNonce(),
                HandshakeCrypto.publicBytes(share), null);
        return unsigned.withMac(HandshakeCrypto.helloMac(secret, HandshakeCrypto.transcript(challenge, unsigned)));
    }

    /**
     * Plays the acceptor against the dialer on {@code ch} up to the WELCOME (not yet delivered).
     *
     * @return the WELCOME and the acceptor's session
     */
    static Answer acceptorAnswer(EmbeddedChannel ch, byte[] secret, TransportSecurity security, int nodeId) throws Exception {
        ChallengeMessage challenge = new ChallengeMessage(WireFormat.VERSION, security, HandshakeCrypto.randomNonce());
        ch.writeInbound(frames(challenge));
        HelloMessage hello = (HelloMessage) readFrame(ch);
        assertEquals(security, hello.security());
        KeyPair share = HandshakeCrypto.newKeyShare();
        byte[] shared = HandshakeCrypto.agree(share.getPrivate(), hello.keyShare());
        WelcomeMessage unsigned = new WelcomeMessage(nodeId, HandshakeCrypto.publicBytes(share), null);
        byte[] transcript = HandshakeCrypto.transcript(challenge, hello, unsigned);
        HandshakeCrypto.Secrets secrets = HandshakeCrypto.derive(secret, shared, transcript);
        WelcomeMessage welcome = unsigned.withMac(HandshakeCrypto.welcomeMac(secrets, transcript));
        RecordPeer records = new RecordPeer(security, secrets.acceptorToDialer(), secrets.dialerToAcceptor());
        return new Answer(welcome, new Session(records, secrets));
    }

    /**
     * Plays the dialer against the acceptor on {@code ch} through a WELCOME, which it checks.
     *
     * @return the dialer's session
     */
    static Session dial(EmbeddedChannel ch, byte[] secret, String vm, int nodeId, TransportSecurity security) throws Exception {
        ChallengeMessage challenge = (ChallengeMessage) readFrame(ch);
        KeyPair share = HandshakeCrypto.newKeyShare();
        HelloMessage hello = hello(secret, challenge, vm, nodeId, security, share);
        ch.writeInbound(frames(hello));
        WelcomeMessage welcome = (WelcomeMessage) readFrame(ch);
        byte[] shared = HandshakeCrypto.agree(share.getPrivate(), welcome.keyShare());
        byte[] transcript = HandshakeCrypto.transcript(challenge, hello, welcome.withMac(null));
        HandshakeCrypto.Secrets secrets = HandshakeCrypto.derive(secret, shared, transcript);
        assertTrue(HandshakeCrypto.macMatches(HandshakeCrypto.welcomeMac(secrets, transcript), welcome.mac()), "WELCOME mac");
        return new Session(new RecordPeer(security, secrets.dialerToAcceptor(), secrets.acceptorToDialer()), secrets);
    }

    /** @return the frames of {@code messages}, in clear, in one buffer */
    static ByteBuf frames(Object... messages) {
        ByteBuf out = Unpooled.buffer();
        for (Object m : messages) {
            WireFormat.writeFrame(MessageType.of(m), m, out);
        }
        return out;
    }

    /** Reads and decodes one outbound handshake frame, releasing it. */
    static Object readFrame(EmbeddedChannel ch) {
        ByteBuf frame = ch.readOutbound();
        assertNotNull(frame, "nothing written");
        EmbeddedChannel decoder = new EmbeddedChannel(new FrameDecoder(1 << 20, true));
        assertTrue(decoder.writeInbound(frame));
        Object m = decoder.readInbound();
        assertFalse(decoder.finish());
        return m;
    }
}
