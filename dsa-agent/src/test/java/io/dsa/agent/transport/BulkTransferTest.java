package io.dsa.agent.transport;

import io.dsa.agent.wire.BarrierArriveMessage;
import io.dsa.agent.wire.BarrierReleaseMessage;
import io.dsa.agent.wire.LockMessage;
import io.dsa.agent.wire.HostReplyMessage;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Large messages over real loopback sockets, in both transport security modes (and NIO): messages
 * larger than the frame limit cross in chunks, and small messages overtake a transfer that a slow
 * receiver holds up, while the sender's socket buffer stays within its watermark.
 */
@Timeout(60)
class BulkTransferTest {
    private final List<Transport> transports = new ArrayList<>();

    @AfterEach
    void closeAll() {
        for (Transport t : transports) t.close();
    }

    static Stream<Arguments> modes() {
        return Stream.of(Arguments.of(TransportSecurity.ENCRYPT, true), Arguments.of(TransportSecurity.MAC, true),
                Arguments.of(TransportSecurity.ENCRYPT, false));
    }

    // Without shared rings: these tests are about large bodies on the socket (chunks, the scheduler's two queues). With
    // rings on, each connection's ring offer is made from a thread of its own some time after the handshake, so it
    // raced the test's first transfer: queued behind it (an extra SHARED_RING_OFFER in the scheduler), or decided
    // before it and the body sent through the ring instead of the socket. SharedRingTransportTest covers the rings.
    private Transport start(int node, TransportSecurity security, boolean nativeTransport, int maxFrameBytes, InboundHandler h) {
        Transport t = Transport.start(TransportConfig.builder().bindHost(TransportTest.LOOPBACK).port(0).vmName(TransportTest.VM)
                .nodeId(node).secret(TransportTest.SECRET).security(security).preferNativeTransport(nativeTransport)
                .maxFrameBytes(maxFrameBytes).sharedRingBytes(0).build(), h);
        transports.add(t);
        return t;
    }

    /** @return completes when {@code channel} next becomes unwritable (its outbound buffer passed the high watermark) */
    private static CompletableFuture<Void> unwritable(Channel channel) throws Exception {
        CompletableFuture<Void> full = new CompletableFuture<>();
        channel.eventLoop().submit(() -> channel.pipeline().addFirst(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                if (!ctx.channel().isWritable()) full.complete(null);
                ctx.fireChannelWritabilityChanged();
            }
        })).get(10, TimeUnit.SECONDS);
        return full;
    }

    @ParameterizedTest
    @MethodSource("modes")
    void messagesLargerThanTheFrameLimitCrossInChunksAndPartitionsLandInTheNamedArray(TransportSecurity security,
                                                                                         boolean nativeTransport) throws Exception {
        int maxFrame = 16 << 10;
        byte[] data = ChunkingTest.random((1 << 20) + 3, 7);
        byte[] slot = new byte[data.length];
        RecordingHandler receiver = new RecordingHandler() {
            @Override
            public byte[] bufferFor(int arrayId, int partition, int bytes) { return arrayId == 1 && partition == 2 ? slot : null; }
        };
        Transport server = start(0, security, nativeTransport, maxFrame, receiver);
        Transport client = start(1, security, nativeTransport, maxFrame, new RecordingHandler());
        Connection c = client.connect(TransportTest.LOOPBACK, server.boundAddress().getPort()).get(10, TimeUnit.SECONDS);
        byte[] payload = ChunkingTest.random(100_000, 8);
        c.send(new CoherenceMessage(CoherenceOp.DATA_S, 1, 2, 1, 0, 0, data.clone()));
        c.send(new HostReplyMessage(9, true, "", List.of(), payload));
        for (int i = 0; i < 50; i++) c.send(new LockMessage(1, LockMessage.GRANT, 0, i));
        List<Object> got = new ArrayList<>();
        for (int i = 0; i < 52; i++) got.add(receiver.awaitMessage());
        CoherenceMessage partition = (CoherenceMessage) got.stream().filter(m -> m instanceof CoherenceMessage).findFirst().orElseThrow();
        assertSame(slot, partition.data(), "decoded into the receiver's own array");
        assertArrayEquals(data, slot);
        HostReplyMessage transfer = (HostReplyMessage) got.stream().filter(m -> m instanceof HostReplyMessage).findFirst().orElseThrow();
        assertArrayEquals(payload, transfer.payload());
        List<Long> locks = got.stream().filter(m -> m instanceof LockMessage).map(m -> ((LockMessage) m).requestId()).toList();
        assertEquals(java.util.stream.LongStream.range(0, 50).boxed().toList(), locks, "messages not about a partition keep their order");
        assertTrue(got.indexOf(transfer) < got.indexOf(new LockMessage(1, LockMessage.GRANT, 0, 0)),
                "a lock message does not overtake the large HOST_REPLY (an agent's state) before it");
    }

    @ParameterizedTest
    @MethodSource("modes")
    void anInvalidationOvertakesAMultiMiBTransferOnTheSameConnectionAndABarrierReleaseFollowsIt(TransportSecurity security, boolean nativeTransport)
            throws Exception {
        byte[] data = ChunkingTest.random(24 << 20, 9);
        List<String> atReceiver = new CopyOnWriteArrayList<>();
        RecordingHandler receiver = new RecordingHandler() {
            @Override
            public void onMessage(Connection connection, Object message) {
                atReceiver.add(message instanceof CoherenceMessage m ? m.op().toString() : message.getClass().getSimpleName());
                super.onMessage(connection, message);
            }

            @Override
            public byte[] bufferFor(int arrayId, int partition, int bytes) {
                atReceiver.add("first chunk of partition " + partition);
                return null;
            }
        };
        CompletableFuture<Void> releaseSent = new CompletableFuture<>();
        RecordingHandler monitor = new RecordingHandler() {
            @Override
            public void onMessage(Connection connection, Object message) {
                if (message instanceof BarrierArriveMessage a) {
                    connection.send(new BarrierReleaseMessage(a.barrierId(), a.generation(), new long[0]));
                    connection.send(new CoherenceMessage(CoherenceOp.INV, 1, 5, 0, 1, 1, null));
                    releaseSent.complete(null);
                }
            }
        };
        Transport sender = start(0, security, nativeTransport, TransportConfig.DEFAULT_MAX_FRAME_BYTES, monitor);
        Transport receiving = start(1, security, nativeTransport, TransportConfig.DEFAULT_MAX_FRAME_BYTES, receiver);
        Connection toSender = receiving.connect(TransportTest.LOOPBACK, sender.boundAddress().getPort()).get(10, TimeUnit.SECONDS);
        Connection toReceiver = monitor.awaitConnected();
        Channel receiverChannel = ((NettyConnection) toSender).channel();
        Channel senderChannel = ((NettyConnection) toReceiver).channel();
        receiverChannel.eventLoop().submit(() -> receiverChannel.config().setAutoRead(false)).get(10, TimeUnit.SECONDS);

        CompletableFuture<Void> full = unwritable(senderChannel);
        toReceiver.send(new CoherenceMessage(CoherenceOp.DATA_S, 1, 2, 0, 1, 1, data));
        full.get(20, TimeUnit.SECONDS);   // the receiver's socket is full and the sender's channel unwritable
        long highWatermark = senderChannel.config().getWriteBufferHighWaterMark();
        long oneRecord = TransportConfig.DEFAULT_CHUNK_BYTES + 1024;
        long pending = senderChannel.eventLoop().submit(() -> {
            ChannelOutboundBuffer b = senderChannel.unsafe().outboundBuffer();
            return b == null ? -1 : b.totalPendingWriteBytes();
        }).get(10, TimeUnit.SECONDS);
        assertTrue(pending >= 0 && pending <= highWatermark + oneRecord,
                "the sender buffers at most its watermark and a record in its channel, not the transfer: " + pending);
        // a heartbeat the sender owes meanwhile (the one after the handshake, or one after a second of no frame
        // written) queues behind the transfer as every message not about a partition does; anything else must not
        List<MessageType> queued = senderChannel.eventLoop().submit(() -> ((NettyConnection) toReceiver).scheduler().queuedTypes())
                .get(10, TimeUnit.SECONDS);
        assertEquals(List.of(MessageType.COHERENCE), queued.stream().filter(t -> t != MessageType.HEARTBEAT).toList(),
                "the rest of the transfer waits in the scheduler, and nothing else but heartbeats: " + queued);

        toSender.send(new BarrierArriveMessage(1, 1, 1, 1, new long[0]));   // the other direction flows
        releaseSent.get(10, TimeUnit.SECONDS);                              // queued behind the chunks still unsent
        receiverChannel.config().setAutoRead(true);

        CoherenceMessage bulk = null;
        for (int i = 0; i < 3; i++) {
            Object m = receiver.awaitMessage();
            if (m instanceof CoherenceMessage c && c.data() != null) bulk = c;
        }
        assertEquals(List.of("first chunk of partition 2", "INV", "DATA_S", "BarrierReleaseMessage"), atReceiver,
                "the invalidation of another partition was decoded while the transfer was under way; the barrier's"
                        + " release, sent after the data, after it");
        assertArrayEquals(data, bulk.data());
    }
}
