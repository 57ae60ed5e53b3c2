package io.dsa.agent.transport;

import io.dsa.DsaException;
import io.dsa.agent.wire.JoinMessage;
import io.dsa.agent.wire.LockMessage;
import io.dsa.agent.wire.ReportMessage;
import io.dsa.agent.wire.VarOpMessage;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Real sockets on loopback: handshake, ordering, refusals and hostile peers. */
@Timeout(30)
class TransportTest {
    static final byte[] SECRET = "0123456789abcdef-cluster-secret".getBytes(StandardCharsets.UTF_8);
    static final String VM = "test-vm";
    static final String LOOPBACK = "127.0.0.1";

    private final List<Transport> transports = new ArrayList<>();
    private final List<Socket> sockets = new ArrayList<>();

    @AfterEach
    void closeAll() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        for (Transport t : transports) {
            t.close();
        }
    }

    /** @return whether this run uses native epoll (when available); a subclass runs everything on NIO */
    boolean nativeTransport() { return true; }

    /** @return the protection every connection of this run uses; a subclass runs everything with MAC */
    TransportSecurity security() { return TransportSecurity.ENCRYPT; }

    TransportConfig.Builder config(int nodeId) {
        return TransportConfig.builder().bindHost(LOOPBACK).port(0).vmName(VM).nodeId(nodeId).secret(SECRET)
                .preferNativeTransport(nativeTransport()).security(security());
    }

    private Transport start(TransportConfig.Builder config, InboundHandler handler) {
        Transport t = Transport.start(config.build(), handler);
        transports.add(t);
        return t;
    }

    private static int port(Transport t) { return t.boundAddress().getPort(); }

    private static <T> T await(CompletableFuture<T> future) throws Exception {
        return future.get(10, TimeUnit.SECONDS);
    }

    private static Throwable awaitFailure(CompletableFuture<?> future) throws Exception {
        ExecutionException e = assertThrows(ExecutionException.class, () -> future.get(10, TimeUnit.SECONDS));
        return e.getCause();
    }

    @Test
    void handshakeTellsBothSidesThePeersNodeId() throws Exception {
        RecordingHandler serverSide = new RecordingHandler();
        RecordingHandler clientSide = new RecordingHandler();
        Transport server = start(config(0), serverSide);
        Transport client = start(config(7), clientSide);

        Connection dialled = await(client.connect(LOOPBACK, port(server)));
        assertEquals(0, dialled.peerNodeId());
        assertEquals(LOOPBACK + ":" + port(server), dialled.remoteAddress());
        assertTrue(dialled.isOpen());
        assertEquals(dialled, clientSide.awaitConnected());
        Connection accepted = serverSide.awaitConnected();
        assertEquals(7, accepted.peerNodeId());
        assertTrue(accepted.remoteAddress().startsWith(LOOPBACK + ":"), accepted.remoteAddress());
        assertTrue(server.boundAddress().getPort() > 0);
    }

    @Test
    @Timeout(90) // 20,000 records sealed and opened: seconds of CPU (the JDK's GCM re-inits per record) on a loaded machine
    void tenThousandMessagesArriveInOrderBothWays() throws Exception {
        int count = 10_000;
        RecordingHandler serverSide = new RecordingHandler();
        RecordingHandler clientSide = new RecordingHandler();
        Transport server = start(config(0), serverSide);
        Transport client = start(config(1), clientSide);
        Connection toServer = await(client.connect(LOOPBACK, port(server)));
        Connection toClient = serverSide.awaitConnected();

        Thread clientSender = new Thread(() -> {
            for (int i = 0; i < count; i++) {
                toServer.send(new VarOpMessage(i, 1, VarOpMessage.GET_AND_ADD, i, 0));
            }
        });
        clientSender.start();
        for (int i = 0; i < count; i++) {
            toClient.send(new LockMessage(1, LockMessage.GRANT, 0, i));
        }
        for (int i = 0; i < count; i++) {
            VarOpMessage m = (VarOpMessage) serverSide.awaitMessage();
            assertEquals(i, m.requestId());
        }
        for (int i = 0; i < count; i++) {
            LockMessage m = (LockMessage) clientSide.awaitMessage();
            assertEquals(i, m.requestId());
        }
        clientSender.join(10_000);
    }

    @Test
    void aTaskOnTheIoThreadSendsInOrderWithTheSendsAroundIt() throws Exception {
        RecordingHandler serverSide = new RecordingHandler();
        Transport server = start(config(0), serverSide);
        Transport client = start(config(1), new RecordingHandler());
        Connection toServer = await(client.connect(LOOPBACK, port(server)));
        CompletableFuture<Thread> taskThread = new CompletableFuture<>();
        for (int i = 0; i < 100; i++) toServer.send(new LockMessage(1, LockMessage.GRANT, 0, i));
        toServer.executeOnIoThread(() -> {
            for (int i = 100; i < 200; i++) toServer.send(new LockMessage(1, LockMessage.GRANT, 0, i));
            taskThread.complete(Thread.currentThread());
        });
        for (int i = 200; i < 300; i++) toServer.send(new LockMessage(1, LockMessage.GRANT, 0, i));
        for (int i = 0; i < 300; i++) {
            assertEquals(i, ((LockMessage) serverSide.awaitMessage()).requestId());
        }
        Thread io = await(taskThread);
        assertTrue(io != Thread.currentThread() && io.getName().contains("-io"), io.getName());
    }

    @Test
    void partitionPayloadsCrossIntact() throws Exception {
        RecordingHandler serverSide = new RecordingHandler();
        Transport server = start(config(0), serverSide);
        Transport client = start(config(1), new RecordingHandler());
        Connection c = await(client.connect(LOOPBACK, port(server)));
        byte[] data = new byte[8192];
        new Random(42).nextBytes(data);
        byte[] big = new byte[4 << 20];
        new Random(43).nextBytes(big);
        c.send(new CoherenceMessage(CoherenceOp.DATA_S, 1, 2, 1, 0, 0, data.clone()));
        c.send(new CoherenceMessage(CoherenceOp.GET_M, 1, 2, 1, 0, 1, null));
        c.send(new CoherenceMessage(CoherenceOp.OWNER_RELEASE, 1, 3, 1, 0, 1, big.clone()));
        CoherenceMessage first = (CoherenceMessage) serverSide.awaitMessage();
        assertArrayEquals(data, first.data());
        CoherenceMessage second = (CoherenceMessage) serverSide.awaitMessage();
        assertEquals(CoherenceOp.GET_M, second.op());
        assertEquals(null, second.data());
        CoherenceMessage third = (CoherenceMessage) serverSide.awaitMessage();
        assertArrayEquals(big, third.data());
    }

    @Test
    void messagesSentFromOnConnectedReachTheDialer() throws Exception {
        // The acceptor may write right behind WELCOME; those bytes can share a read with it.
        InboundHandler greeter = new RecordingHandler() {
            @Override
            public void onConnected(Connection connection) {
                for (int i = 0; i < 100; i++) {
                    connection.send(new ReportMessage(i, "hello " + i));
                }
            }
        };
        Transport server = start(config(0), greeter);
        RecordingHandler clientSide = new RecordingHandler();
        Transport client = start(config(1), clientSide);
        await(client.connect(LOOPBACK, port(server)));
        for (int i = 0; i < 100; i++) {
            assertEquals(new ReportMessage(i, "hello " + i), clientSide.awaitMessage());
        }
    }

    @Test
    void closingAConnectionNotifiesBothSidesOnce() throws Exception {
        RecordingHandler serverSide = new RecordingHandler();
        RecordingHandler clientSide = new RecordingHandler();
        Transport server = start(config(0), serverSide);
        Transport client = start(config(1), clientSide);
        Connection c = await(client.connect(LOOPBACK, port(server)));
        Connection accepted = serverSide.awaitConnected();
        c.close();
        assertEquals(c, clientSide.awaitDisconnected());
        assertEquals(accepted, serverSide.awaitDisconnected());
        assertFalse(c.isOpen());
        assertEquals(null, clientSide.disconnected.poll(200, TimeUnit.MILLISECONDS));
        c.send(new ReportMessage(1, "dropped, not thrown"));
    }

    @Test
    void closingTheTransportDisconnectsPeers() throws Exception {
        RecordingHandler serverSide = new RecordingHandler();
        RecordingHandler clientSide = new RecordingHandler();
        Transport server = start(config(0), serverSide);
        Transport client = start(config(1), clientSide);
        await(client.connect(LOOPBACK, port(server)));
        serverSide.awaitConnected();
        server.close();
        serverSide.awaitDisconnected();
        clientSide.awaitDisconnected();
        server.close(); // idempotent
        assertInstanceOf(DsaException.class, awaitFailure(client.connect(LOOPBACK, port(server))));
    }

    @Test
    void sendRejectsUnknownTypes() throws Exception {
        Transport server = start(config(0), new RecordingHandler());
        Transport client = start(config(1), new RecordingHandler());
        Connection c = await(client.connect(LOOPBACK, port(server)));
        assertThrows(IllegalArgumentException.class, () -> c.send("a string"));
        assertThrows(IllegalArgumentException.class, () -> c.send(null));
        assertThrows(IllegalArgumentException.class, () -> c.send(new RefuseMessage("no handshake types")));
    }

    @Test
    void aThrowingHandlerNeitherClosesTheConnectionNorLosesLaterMessages() throws Exception {
        RecordingHandler serverSide = new RecordingHandler() {
            @Override
            public void onMessage(Connection connection, Object message) {
                if (message instanceof ReportMessage r && r.text().equals("boom")) {
                    throw new IllegalStateException("handler bug");
                }
                super.onMessage(connection, message);
            }
        };
        Transport server = start(config(0), serverSide);
        Transport client = start(config(1), new RecordingHandler());
        Connection c = await(client.connect(LOOPBACK, port(server)));
        c.send(new ReportMessage(1, "boom"));
        c.send(new ReportMessage(1, "after"));
        assertEquals(new ReportMessage(1, "after"), serverSide.awaitMessage());
        assertTrue(c.isOpen());
    }

    @Test
    void manyPeersConnectConcurrently() throws Exception {
        RecordingHandler serverSide = new RecordingHandler();
        Transport server = start(config(0), serverSide);
        List<CompletableFuture<Connection>> dialling = new ArrayList<>();
        for (int node = 1; node <= 8; node++) {
            Transport peer = start(config(node).ioThreads(1), new RecordingHandler());
            dialling.add(peer.connect(LOOPBACK, port(server)));
        }
        for (CompletableFuture<Connection> f : dialling) {
            Connection c = await(f);
            c.send(new JoinMessage(c.peerNodeId(), LOOPBACK, 0));
        }
        for (int i = 0; i < dialling.size(); i++) {
            assertEquals(0, ((JoinMessage) serverSide.awaitMessage()).nodeId());
        }
    }

    @Test
    void oversizeFrameFromAnAuthenticatedPeerClosesOnlyThatConnection() throws Exception {
        RecordingHandler serverSide = new RecordingHandler();
        Transport server = start(config(0).maxFrameBytes(4096), serverSide);
        RecordingHandler clientSide = new RecordingHandler();
        Transport client = start(config(1), clientSide);
        Connection c = await(client.connect(LOOPBACK, port(server)));
        c.send(new CoherenceMessage(CoherenceOp.DATA_S, 1, 2, 1, 0, 0, new byte[8192]));
        serverSide.awaitDisconnected();
        clientSide.awaitDisconnected();
        assertEquals(1, serverSide.disconnectCauses.size());
        // The record layer sees the oversize first: 4 + 8219 + 16 > 4 + 4096 + 16 (record 0 is the client's first heartbeat).
        assertTrue(serverSide.disconnectCauses.get(0).getMessage().contains("record 1 length 8239 out of range [22, 4116]"),
                serverSide.disconnectCauses.get(0).getMessage());
        assertTrue(serverSide.messages.isEmpty());
        assertServes(server, serverSide);
    }

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

    // ---- raw socket helpers

    record RawFrame(int version, int type, byte[] body) {}

    interface BodyWriter {
        void write(DataOutputStream body) throws IOException;
    }

    private Socket rawSocket(Transport server) throws IOException {
        return rawSocketFrom(server, LOOPBACK);
    }

    private Socket rawSocketFrom(Transport server, String source) throws IOException {
        Socket s = new Socket();
        sockets.add(s);
        s.bind(new InetSocketAddress(source, 0));
        s.connect(new InetSocketAddress(LOOPBACK, port(server)), 5_000);
        s.setSoTimeout(10_000);
        return s;
    }

    private void assertServes(Transport server, RecordingHandler serverSide) throws Exception {
        Transport friend = start(config(9), new RecordingHandler());
        Connection c = await(friend.connect(LOOPBACK, port(server)));
        c.send(new ReportMessage(9, "still here"));
        assertEquals(new ReportMessage(9, "still here"), serverSide.awaitMessage());
    }

    static RawFrame readFrame(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        int length = data.readInt();
        assertTrue(length >= 2 && length < 4096, "frame length " + length);
        int version = data.readUnsignedByte();
        int type = data.readUnsignedByte();
        byte[] body = new byte[length - 2];
        data.readFully(body);
        return new RawFrame(version, type, body);
    }

    static void writeFrame(DataOutputStream out, int version, int type, BodyWriter writer) throws IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        writer.write(new DataOutputStream(bytes));
        // One write for the whole frame: the server may close as soon as it has read a bad header,
        // and a second write would then fail with a broken pipe instead of reaching the assertion.
        java.io.ByteArrayOutputStream frame = new java.io.ByteArrayOutputStream();
        DataOutputStream header = new DataOutputStream(frame);
        header.writeInt(bytes.size() + 2);
        header.writeByte(version);
        header.writeByte(type);
        bytes.writeTo(frame);
        frame.writeTo(out);
        out.flush();
    }

    static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    static void writeString(DataOutputStream out, String s) throws IOException {
        writeBytes(out, s.getBytes(StandardCharsets.UTF_8));
    }

    /** Reads until the peer closes; fails if it sends a frame's worth or stays open too long. */
    static void assertEndOfStream(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        byte[] buffer = new byte[4096];
        try {
            int n;
            do {
                n = in.read(buffer);
            } while (n >= 0);
        } catch (SocketTimeoutException e) {
            throw new AssertionError("peer did not close the connection", e);
        } catch (SocketException reset) {
            // connection reset: closed too
        }
    }
}
