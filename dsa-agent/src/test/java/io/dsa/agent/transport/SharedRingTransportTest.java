package io.dsa.agent.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.wire.DiffMessage;
import io.dsa.agent.wire.LockMessage;
import io.dsa.agent.wire.PushMessage;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Large bodies through the shared ring between two transports on loopback (docs/runtime.md, "Bulk
 * bytes through shared memory"): no ring before a connection has sent twice its size in large
 * bodies on the socket; once the peer accepted the ring, partitions, diffs and pushes
 * arrive intact, in their order with the small messages around them, while their bytes stay off
 * the socket; a peer with rings off refuses, and everything then travels on the socket; a SHARED
 * frame on a connection without a ring closes it.
 */
@Timeout(60)
class SharedRingTransportTest {
    private static final int PARTITION = 64 << 10;
    private final List<Transport> transports = new ArrayList<>();

    @AfterEach
    void closeAll() {
        for (Transport t : transports) t.close();
    }

    private Transport start(int node, TransportSecurity security, long ringBytes, InboundHandler h) {
        Transport t = Transport.start(TransportConfig.builder().bindHost(TransportTest.LOOPBACK).port(0).vmName(TransportTest.VM)
                .nodeId(node).secret(TransportTest.SECRET).security(security).sharedRingBytes(ringBytes).build(), h);
        transports.add(t);
        return t;
    }

    /** A client transport connected to a server transport with a ring of {@code serverRing} bytes (0: rings off) and {@code receiver}. */
    private NettyConnection connect(TransportSecurity security, long serverRing, RecordingHandler receiver) throws Exception {
        Transport server = start(0, security, serverRing, receiver);
        Transport client = start(1, security, SharedRing.MIN_CAPACITY, new RecordingHandler());
        return (NettyConnection) client.connect(TransportTest.LOOPBACK, server.boundAddress().getPort()).get(10, TimeUnit.SECONDS);
    }

    @ParameterizedTest
    @EnumSource(TransportSecurity.class)
    void onceAcceptedLargeBodiesCrossInTheRingIntactAndInOrderAndOffTheSocket(TransportSecurity security) throws Exception {
        byte[] slot = new byte[PARTITION];
        AtomicBoolean armed = new AtomicBoolean();
        RecordingHandler receiver = new RecordingHandler() {
            // the receiver's own array for the first partition once armed, new ones for the others
            @Override
            public byte[] bufferFor(int arrayId, int partition, int bytes) { return armed.compareAndSet(true, false) ? slot : null; }
        };
        Transport server = start(0, security, SharedRing.MIN_CAPACITY, receiver);
        Transport client = start(1, security, SharedRing.MIN_CAPACITY, new RecordingHandler());
        NettyConnection c = (NettyConnection) client.connect(TransportTest.LOOPBACK, server.boundAddress().getPort()).get(10, TimeUnit.SECONDS);

        sendUntilOffered(c, receiver);
        assertTrue(c.ringDecided().get(10, TimeUnit.SECONDS), "the peer on this machine accepted the ring");

        long before = client.bytesOut();
        armed.set(true);
        int batches = 5;
        int batch = 8;   // 8 x 64 KiB in flight at most, half the 1 MiB ring: every body finds room; 2.5 MiB in all, so it wraps
        int partitions = 0;
        long expectedLock = 0;
        for (int j = 0; j < batches; j++) {
            List<byte[]> sent = new ArrayList<>();
            for (int i = 0; i < batch; i++) {
                byte[] data = SharedRingTest.bytes(PARTITION, 100 + j * batch + i);
                sent.add(data);
                c.send(new CoherenceMessage(CoherenceOp.DATA_S, 1, i % 3, 1, 0, 0, data.clone()));
                c.send(new LockMessage(1, LockMessage.GRANT, 0, j * batch + i));
            }
            int arrived = 0;
            for (int k = 0; k < 2 * batch; k++) {
                Object m = receiver.awaitMessage();
                if (m instanceof CoherenceMessage cm) {
                    assertArrayEquals(sent.get(arrived), cm.data(), "partition message " + partitions);
                    if (partitions == 0) assertSame(slot, cm.data(), "decoded from the ring straight into the receiver's array");
                    assertEquals(arrived % 3, cm.partition());
                    arrived++;
                    partitions++;
                } else {
                    LockMessage l = (LockMessage) m;
                    assertEquals(expectedLock++, l.requestId(), "small messages keep their order");
                    assertTrue(l.requestId() < partitions, "a message not about a partition does not overtake the partition sent before it");
                }
            }
        }
        byte[] diffValues = SharedRingTest.bytes(32 << 10, 7);
        c.send(new DiffMessage(77, 2, 5, new long[] {DiffMessage.run(0, diffValues.length / 8)}, diffValues));
        byte[] a = SharedRingTest.bytes(20_000, 8);
        byte[] b = SharedRingTest.bytes(30_000, 9);
        c.send(new PushMessage(78, 3, new long[] {PushMessage.part(4, a.length), PushMessage.part(6, b.length)}, new byte[][] {a, b}));
        DiffMessage d = (DiffMessage) receiver.awaitMessage();
        assertArrayEquals(diffValues, d.values());
        PushMessage p = (PushMessage) receiver.awaitMessage();
        byte[] both = new byte[a.length + b.length];
        System.arraycopy(a, 0, both, 0, a.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        assertArrayEquals(both, p.values());
        assertEquals(78, p.requestId());

        assertEquals(batches * batch, partitions);
        long onSocket = client.bytesOut() - before;
        long bodies = (long) partitions * PARTITION + diffValues.length + a.length + b.length;
        assertTrue(c.sharesRing());
        assertTrue(onSocket < bodies / 20, "the bodies' bytes stayed off the socket: " + onSocket + " bytes on it for " + bodies);
    }

    /**
     * The ring's threshold: 8 KiB partitions (a 32 x 32 block of doubles, whose records would carry an AES-GCM tag on the
     * socket) cross in the ring, a body just under {@link SharedRing#MIN_BODY_BYTES} on the socket.
     */
    @Test
    void partitionsOfEightKibCrossInTheRingAndSmallerBodiesOnTheSocket() throws Exception {
        RecordingHandler receiver = new RecordingHandler();
        NettyConnection c = connect(TransportSecurity.MAC, SharedRing.MIN_CAPACITY, receiver);
        Transport client = transports.get(1);
        sendUntilOffered(c, receiver);
        assertTrue(c.ringDecided().get(10, TimeUnit.SECONDS), "the peer on this machine accepted the ring");

        int small = 8 << 10;
        int count = 64;
        long before = client.bytesOut();
        for (int i = 0; i < count; i++) {
            byte[] data = SharedRingTest.bytes(small, 400 + i);
            c.send(new CoherenceMessage(CoherenceOp.DATA_S, 1, i, 1, 0, 0, data.clone()));
            assertArrayEquals(data, ((CoherenceMessage) receiver.awaitMessage()).data(), "8 KiB partition " + i);
        }
        long onSocket = client.bytesOut() - before;
        assertTrue(onSocket < (long) count * small / 20, "8 KiB bodies stayed off the socket: " + onSocket + " bytes on it");

        byte[] under = SharedRingTest.bytes(SharedRing.MIN_BODY_BYTES - 64, 9);
        before = client.bytesOut();
        c.send(new CoherenceMessage(CoherenceOp.DATA_S, 1, 0, 1, 0, 0, under.clone()));
        assertArrayEquals(under, ((CoherenceMessage) receiver.awaitMessage()).data());
        assertTrue(client.bytesOut() - before >= under.length, "a body under the threshold crossed on the socket");
    }

    @Test
    void aPeerWithRingsOffRefusesAndEveryBodyThenTravelsOnTheSocket() throws Exception {
        RecordingHandler receiver = new RecordingHandler();
        NettyConnection c = connect(TransportSecurity.ENCRYPT, 0, receiver);
        Transport client = transports.get(1);
        sendUntilOffered(c, receiver);
        assertFalse(c.ringDecided().get(10, TimeUnit.SECONDS), "refused");
        long before = client.bytesOut();
        byte[] second = SharedRingTest.bytes(PARTITION, 4);
        c.send(new CoherenceMessage(CoherenceOp.DATA_S, 1, 0, 1, 0, 0, second.clone()));
        assertArrayEquals(second, ((CoherenceMessage) receiver.awaitMessage()).data());
        assertTrue(client.bytesOut() - before >= PARTITION, "the second partition crossed on the socket");
        assertFalse(c.sharesRing());
    }

    @Test
    void aConnectionThatMovedLessThanTwiceItsRingInLargeBodiesOffersNone() throws Exception {
        RecordingHandler receiver = new RecordingHandler();
        NettyConnection c = connect(TransportSecurity.ENCRYPT, SharedRing.MIN_CAPACITY, receiver);
        int below = (int) (SharedRing.offerAfter(SharedRing.MIN_CAPACITY) / PARTITION) - 1;
        for (int i = 0; i < below; i++) {
            byte[] data = SharedRingTest.bytes(PARTITION, 200 + i);
            c.send(new CoherenceMessage(CoherenceOp.DATA_S, 1, 0, 1, 0, 0, data.clone()));
            assertArrayEquals(data, ((CoherenceMessage) receiver.awaitMessage()).data());
        }
        assertFalse(c.ringDecided().isDone(), "no ring considered yet");
        assertFalse(c.sharesRing());
    }

    /** Sends partitions, each received intact, until the connection has sent enough on its socket to offer its ring. */
    private static void sendUntilOffered(NettyConnection c, RecordingHandler receiver) throws Exception {
        long bytes = 0;
        for (int i = 0; bytes < SharedRing.offerAfter(SharedRing.MIN_CAPACITY); i++) {
            byte[] data = SharedRingTest.bytes(PARTITION, 300 + i);
            c.send(new CoherenceMessage(CoherenceOp.DATA_S, 1, 0, 1, 0, 0, data.clone()));
            assertArrayEquals(data, ((CoherenceMessage) receiver.awaitMessage()).data());
            bytes += PARTITION;
        }
    }

    @Test
    void aSharedFrameOnAConnectionWithoutARingClosesIt() {
        EmbeddedChannel decoder = new EmbeddedChannel(new FrameDecoder(1 << 20, false));
        ByteBuf frame = Unpooled.buffer();
        WireFormat.writeSharedFrame(frame, MessageType.COHERENCE, 0, PARTITION);
        decoder.writeInbound(frame);
        assertFalse(decoder.isOpen());
        Throwable reason = decoder.attr(FrameDecoder.CLOSE_REASON).get();
        assertNotNull(reason);
        assertTrue(reason.getMessage().contains("without a shared ring"), reason.getMessage());
    }
}
