package io.dsa.agent.transport;

import io.dsa.DsaException;
import io.dsa.agent.wire.JoinMessage;
import io.dsa.agent.wire.LockMessage;
import io.dsa.agent.wire.ReportMessage;
import io.dsa.agent.wire.VarOpMessage;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Real sockets on loopback: handshake, ordering, closing and misbehaving handlers ({@link TransportRefusalTest}: refusals and hostile peers). */
@Timeout(30)
class TransportTest extends TransportFixture {
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
}
