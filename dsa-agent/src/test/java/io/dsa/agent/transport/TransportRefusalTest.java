package io.dsa.agent.transport;

import io.dsa.DsaException;
import io.dsa.agent.wire.JoinMessage;
import io.dsa.agent.wire.ReportMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.DataOutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Real sockets on loopback: refused handshakes, hostile and silent peers, pending-handshake limits, a taken port. */
@Timeout(30)
class TransportRefusalTest extends TransportFixture {
    @Test
    void wrongSecretIsRefusedAndTheServerKeepsServing() throws Exception {
        RecordingHandler serverSide = new RecordingHandler();
        Transport server = start(config(0), serverSide);
        RecordingHandler intruderSide = new RecordingHandler();
        Transport intruder = start(config(1).secret("another-secret-of-16+bytes".getBytes(StandardCharsets.UTF_8)),
                intruderSide);

        Throwable refused = awaitFailure(intruder.connect(LOOPBACK, port(server)));
        assertInstanceOf(DsaException.class, refused);
        assertEquals("handshake with " + LOOPBACK + ":" + port(server) + " refused: authentication failed",
                refused.getMessage());
        assertTrue(serverSide.connected.isEmpty());
        assertTrue(intruderSide.connected.isEmpty());

        Transport friend = start(config(2), new RecordingHandler());
        Connection c = await(friend.connect(LOOPBACK, port(server)));
        c.send(new JoinMessage(2, LOOPBACK, 1));
        assertEquals(new JoinMessage(2, LOOPBACK, 1), serverSide.awaitMessage());
        assertEquals(2, serverSide.awaitConnected().peerNodeId());
        assertTrue(serverSide.disconnected.isEmpty(), "unauthenticated connections are not reported");
    }

    @Test
    void wrongVmNameIsRefused() throws Exception {
        RecordingHandler serverSide = new RecordingHandler();
        Transport server = start(config(0), serverSide);
        Transport other = start(config(1).vmName("other-vm"), new RecordingHandler());
        Throwable refused = awaitFailure(other.connect(LOOPBACK, port(server)));
        assertTrue(refused.getMessage().contains("refused: vm name 'other-vm' does not match '" + VM + "'"),
                refused.getMessage());
        assertTrue(serverSide.connected.isEmpty());
    }

    @Test
    void acceptorWithWrongSecretIsRejectedByTheDialer() throws Exception {
        // The server answers our HELLO without knowing the secret: a forged WELCOME must fail.
        try (java.net.ServerSocket fake = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName(LOOPBACK))) {
            Transport client = start(config(1), new RecordingHandler());
            CompletableFuture<Connection> connecting = client.connect(LOOPBACK, fake.getLocalPort());
            try (Socket s = fake.accept()) {
                s.setSoTimeout(10_000);
                DataOutputStream out = new DataOutputStream(s.getOutputStream());
                writeFrame(out, WireFormat.VERSION, MessageType.CHALLENGE.code(), body -> {
                    body.writeInt(WireFormat.VERSION);
                    body.writeByte(security().code());
                    writeBytes(body, HandshakeCrypto.randomNonce());
                });
                RawFrame hello = readFrame(s.getInputStream());
                assertEquals(MessageType.HELLO.code(), hello.type());
                writeFrame(out, WireFormat.VERSION, MessageType.WELCOME.code(), body -> {
                    body.writeInt(0);
                    writeBytes(body, HandshakeCrypto.publicBytes(HandshakeCrypto.newKeyShare()));
                    writeBytes(body, new byte[32]);
                });
                Throwable failed = awaitFailure(connecting);
                assertTrue(failed.getMessage().contains("acceptor authentication failed"), failed.getMessage());
                assertEndOfStream(s);
            }
        }
    }

    @Test
    void helloWithWrongProtocolVersionIsRefused() throws Exception {
        RecordingHandler serverSide = new RecordingHandler();
        Transport server = start(config(0), serverSide);
        try (Socket s = rawSocket(server)) {
            RawFrame challenge = readFrame(s.getInputStream());
            assertEquals(MessageType.CHALLENGE.code(), challenge.type());
            writeFrame(new DataOutputStream(s.getOutputStream()), WireFormat.VERSION, MessageType.HELLO.code(), body -> {
                body.writeInt(99);
                writeString(body, VM);
                body.writeInt(5);
                body.writeByte(security().code());
                writeBytes(body, HandshakeCrypto.randomNonce());
                writeBytes(body, HandshakeCrypto.publicBytes(HandshakeCrypto.newKeyShare()));
                writeBytes(body, new byte[32]);
            });
            RawFrame refuse = readFrame(s.getInputStream());
            assertEquals(MessageType.REFUSE.code(), refuse.type());
            assertTrue(new String(refuse.body(), 4, refuse.body().length - 4, StandardCharsets.UTF_8)
                    .contains("protocol version 99 not supported"));
            assertEndOfStream(s);
        }
        assertTrue(serverSide.connected.isEmpty());
    }

    @Test
    void differentSecurityModesAreRefusedNamingBoth() throws Exception {
        RecordingHandler serverSide = new RecordingHandler();
        Transport server = start(config(0), serverSide);
        TransportSecurity other = security() == TransportSecurity.ENCRYPT ? TransportSecurity.MAC : TransportSecurity.ENCRYPT;
        Transport client = start(config(1).security(other), new RecordingHandler());
        Throwable refused = awaitFailure(client.connect(LOOPBACK, port(server)));
        assertEquals("handshake with " + LOOPBACK + ":" + port(server) + " refused: transport security " + other
                + " (dialer) does not match " + security() + " (acceptor): both ends need the same --transport-security",
                refused.getMessage());
        assertTrue(serverSide.connected.isEmpty());
        assertServes(server, serverSide);
    }

    @Test
    void frameWithWrongProtocolVersionIsClosed() throws Exception {
        RecordingHandler serverSide = new RecordingHandler();
        Transport server = start(config(0), serverSide);
        try (Socket s = rawSocket(server)) {
            readFrame(s.getInputStream());
            writeFrame(new DataOutputStream(s.getOutputStream()), 99, MessageType.HELLO.code(), body -> body.writeInt(99));
            assertEndOfStream(s);
        }
        assertServes(server, serverSide);
    }

    @Test
    void messageBeforeHandshakeIsNotDecoded() throws Exception {
        RecordingHandler serverSide = new RecordingHandler();
        Transport server = start(config(0), serverSide);
        try (Socket s = rawSocket(server)) {
            readFrame(s.getInputStream());
            writeFrame(new DataOutputStream(s.getOutputStream()), WireFormat.VERSION, MessageType.REPORT.code(), body -> {
                body.writeInt(1);
                writeString(body, "let me in");
            });
            assertEndOfStream(s);
        }
        assertTrue(serverSide.messages.isEmpty());
        assertServes(server, serverSide);
    }

    @Test
    void silentPeerIsClosedAfterTheHandshakeTimeout() throws Exception {
        RecordingHandler serverSide = new RecordingHandler();
        Transport server = start(config(0).handshakeTimeoutMs(200), serverSide);
        long startNs = System.nanoTime();
        try (Socket s = rawSocket(server)) {
            assertEquals(MessageType.CHALLENGE.code(), readFrame(s.getInputStream()).type());
            assertEndOfStream(s);
        }
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
        assertTrue(elapsedMs >= 150, "closed after " + elapsedMs + " ms");
        assertTrue(serverSide.connected.isEmpty());
    }

    @Test
    void silentAcceptorFailsTheConnectAfterTheHandshakeTimeout() throws Exception {
        try (java.net.ServerSocket fake = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName(LOOPBACK))) {
            Transport client = start(config(1).handshakeTimeoutMs(200), new RecordingHandler());
            CompletableFuture<Connection> connecting = client.connect(LOOPBACK, fake.getLocalPort());
            try (Socket s = fake.accept()) {
                assertTrue(s.isConnected());
                Throwable failed = awaitFailure(connecting);
                assertTrue(failed.getMessage().contains("timed out after 200 ms"), failed.getMessage());
            }
        }
    }

    @Test
    void garbageSpewingPeerIsClosedAndTheServerKeepsRunning() throws Exception {
        RecordingHandler serverSide = new RecordingHandler();
        Transport server = start(config(0), serverSide);
        Random random = new Random(7);
        for (int round = 0; round < 5; round++) {
            try (Socket s = rawSocket(server)) {
                byte[] garbage = new byte[64 * 1024];
                random.nextBytes(garbage);
                try {
                    s.getOutputStream().write(garbage);
                    s.getOutputStream().flush();
                } catch (SocketException closedWhileWriting) {
                    // the server may close before we finish: that is the point
                }
                assertEndOfStream(s);
            }
        }
        assertTrue(serverSide.connected.isEmpty());
        assertServes(server, serverSide);
    }

    @Test
    void aNewConnectionEvictsTheOldestPendingHandshakeWhenTheLimitIsFull() throws Exception {
        RecordingHandler serverSide = new RecordingHandler();
        Transport server = start(config(0).maxPendingHandshakes(2), serverSide);
        Socket first = rawSocket(server);
        assertEquals(MessageType.CHALLENGE.code(), readFrame(first.getInputStream()).type());
        Socket second = rawSocket(server);
        assertEquals(MessageType.CHALLENGE.code(), readFrame(second.getInputStream()).type());
        Socket third = rawSocket(server);
        assertEquals(MessageType.CHALLENGE.code(), readFrame(third.getInputStream()).type());
        assertEndOfStream(first);
        assertEquals(2, server.pendingHandshakes());
        // A quick legitimate handshake gets in by evicting the oldest idle one.
        assertServes(server, serverSide);
        assertEndOfStream(second);
    }

    @Test
    void aSourceOverItsLimitEvictsOnlyItsOwnOldestPendingHandshake() throws Exception {
        RecordingHandler serverSide = new RecordingHandler();
        Transport server = start(config(0).bindHost("127.0.0.1").maxPendingHandshakesPerSource(2), serverSide);
        Socket other = rawSocketFrom(server, "127.0.0.2");
        assertEquals(MessageType.CHALLENGE.code(), readFrame(other.getInputStream()).type());
        Socket first = rawSocketFrom(server, "127.0.0.3");
        readFrame(first.getInputStream());
        Socket second = rawSocketFrom(server, "127.0.0.3");
        readFrame(second.getInputStream());
        Socket third = rawSocketFrom(server, "127.0.0.3");
        readFrame(third.getInputStream());
        assertEndOfStream(first);
        assertEquals(3, server.pendingHandshakes());
        other.setSoTimeout(200);
        assertThrows(SocketTimeoutException.class, () -> other.getInputStream().read(), "the other source's connection stays open");
    }

    @Test
    void authenticatedConnectionsDoNotCountAgainstThePendingLimits() throws Exception {
        RecordingHandler serverSide = new RecordingHandler();
        Transport server = start(config(0).maxPendingHandshakes(1).maxPendingHandshakesPerSource(1), serverSide);
        List<Connection> peers = new ArrayList<>();
        for (int node = 1; node <= 3; node++) {
            peers.add(await(start(config(node), new RecordingHandler()).connect(LOOPBACK, port(server))));
            serverSide.awaitConnected();
        }
        assertEquals(0, server.pendingHandshakes());
        Socket idle = rawSocket(server);
        readFrame(idle.getInputStream());
        assertServes(server, serverSide);
        assertEndOfStream(idle);
        for (Connection c : peers) {
            assertTrue(c.isOpen());
            c.send(new ReportMessage(c.peerNodeId(), "still served"));
            assertEquals(new ReportMessage(0, "still served"), serverSide.awaitMessage());
        }
    }

    @Test
    void bindingATakenPortFailsWithTheAddress() {
        Transport first = start(config(0), new RecordingHandler());
        int port = port(first);
        DsaException e = assertThrows(DsaException.class,
                () -> start(config(1).port(port), new RecordingHandler()));
        assertEquals("cannot bind " + LOOPBACK + ":" + port + ": Address already in use", e.getMessage());
    }

    @Test
    void connectingToNothingFailsTheFuture() throws Exception {
        Transport client = start(config(1), new RecordingHandler());
        java.net.ServerSocket probe = new java.net.ServerSocket(0);
        int closedPort = probe.getLocalPort();
        probe.close();
        Throwable failed = awaitFailure(client.connect(LOOPBACK, closedPort));
        assertTrue(failed.getMessage().startsWith("cannot connect to " + LOOPBACK + ":" + closedPort + ": "),
                failed.getMessage());
    }
}
