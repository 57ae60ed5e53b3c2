package io.dsa.agent.transport;

import io.dsa.agent.wire.BarrierArriveMessage;
import io.dsa.agent.wire.BarrierReleaseMessage;
import io.dsa.agent.wire.LockMessage;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalIoHandler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The outbound scheduler without sockets: small frames between the chunks of a bulk message, the
 * ordering keys, back-pressure through the channel's writability, one flush per read batch, one
 * flush for the sends of the tasks queued on the event loop, what is queued written before a close,
 * and every queued buffer released when the channel closes.
 */
@Timeout(30)
class OutboundSchedulerTest {
    private static final int MAX_FRAME_BYTES = 8192;
    private static final int CHUNK_BYTES = 1024;
    /** The user-defined writability bit a test uses to play a full socket. */
    private static final int SOCKET_FULL = 1;

    private final FrameEncoder encoder = new FrameEncoder(MAX_FRAME_BYTES, CHUNK_BYTES);
    private final OutboundScheduler scheduler = new OutboundScheduler();
    /** Below the scheduler: records each frame written as "type" or "CHUNK(partition)@offset". */
    private final List<String> written = new ArrayList<>();
    private final List<Integer> flushedAfter = new ArrayList<>();
    /** Makes the channel unwritable after this many more frames (a socket filling up); -1 never. */
    private int fillAfter = -1;
    private final EmbeddedChannel channel = new EmbeddedChannel(new ChannelOutboundHandlerAdapter() {
        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            ByteBuf f = (ByteBuf) msg;
            written.add(describe(f));
            f.release();
            promise.trySuccess();
            if (fillAfter > 0 && --fillAfter == 0) setSocketFull(true);
        }

        @Override
        public void flush(ChannelHandlerContext ctx) {
            flushedAfter.add(written.size());
        }
    }, scheduler);

    /** A handler below a scheduler that records each frame written (as {@link #describe} does) and how many were written at each flush. */
    private static ChannelOutboundHandlerAdapter recorder(List<String> out, List<Integer> flushes) {
        return new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                out.add(describe((ByteBuf) msg));
                ((ByteBuf) msg).release();
                promise.trySuccess();
            }

            @Override
            public void flush(ChannelHandlerContext ctx) { flushes.add(out.size()); }
        };
    }

    private static String describe(ByteBuf f) {
        int at = f.readerIndex();
        MessageType type = MessageType.fromCode(f.getUnsignedByte(at + 5));
        if (type != MessageType.CHUNK) {
            if (type == MessageType.COHERENCE) {
                return CoherenceOp.fromCode(f.getUnsignedByte(at + 6)) + "(" + f.getInt(at + 11) + ")";
            }
            return type.toString();
        }
        int partition = f.getInt(at + 6 + 1 + 4);
        long offset = f.getLong(at + 6 + WireFormat.CHUNK_HEADER_BYTES - 8);
        return "CHUNK(" + partition + ")@" + offset;
    }

    private void setSocketFull(boolean full) {
        channel.unsafe().outboundBuffer().setUserDefinedWritability(SOCKET_FULL, !full);
        if (!full) channel.runPendingTasks(); // Netty tells of regained writability in a task
    }

    // Sends as the event loop would, then lets it run what the send queued there (the task that writes).
    private void send(Object message) {
        scheduler.send(encoder.encode(PooledByteBufAllocator.DEFAULT, message));
        channel.runPendingTasks();
    }

    private static CoherenceMessage data(int partition, int chunks) {
        return new CoherenceMessage(CoherenceOp.DATA_S, 1, partition, 0, 1, 1, new byte[chunks * CHUNK_BYTES]);
    }

    private static List<String> chunks(int partition, int from, int to) {
        List<String> l = new ArrayList<>();
        for (int i = from; i < to; i++) {
            l.add("CHUNK(" + partition + ")@" + (i == 0 ? 0 : WireFormat.COHERENCE_HEAD_BYTES + (long) i * CHUNK_BYTES));
        }
        return l;
    }

    @Test
    void smallCoherenceFramesGoOutBetweenTheChunksOfABulkTransferAndBarriersFollowIt() {
        fillAfter = 2;          // the socket takes two chunks, then is full
        send(data(7, 6));
        assertEquals(chunks(7, 0, 2), written);
        send(new BarrierArriveMessage(1, 5, 1, 1, new long[0]));
        send(new CoherenceMessage(CoherenceOp.INV, 1, 8, 0, 1, 2, null));
        send(new LockMessage(1, LockMessage.ACQUIRE, 1, 9));
        assertEquals(2, written.size(), "nothing is written while the socket is full");
        assertEquals(3 + 1, scheduler.queuedMessages());
        fillAfter = 2;
        setSocketFull(false);   // two more frames fit: the invalidation of another partition first
        List<String> next = new ArrayList<>(List.of("INV(8)"));
        next.addAll(chunks(7, 2, 3));
        assertEquals(next, written.subList(2, 4));
        fillAfter = -1;
        setSocketFull(false);
        List<String> expected = new ArrayList<>(chunks(7, 0, 2));
        expected.add("INV(8)");
        expected.addAll(chunks(7, 2, 6));
        expected.addAll(List.of("BARRIER_ARRIVE", "LOCK"));   // not about a partition: behind the data sent before them
        assertEquals(expected, written);
        assertEquals(0, scheduler.queuedMessages());
        assertFalse(channel.finish());
    }

    @Test
    void aMessageAboutTheSamePartitionOrNoPartitionWaitsForTheChunkedOneAndOthersOvertakeIt() {
        setSocketFull(true);
        send(data(7, 3));
        send(new CoherenceMessage(CoherenceOp.FWD_GET_M, 1, 7, 0, 1, 2, null)); // same partition: behind it
        send(new CoherenceMessage(CoherenceOp.GET_S, 1, 3, 1, 0, 1, null));     // another partition: ahead
        send(data(9, 2));                                                       // bulk: one at a time, in order
        send(new CoherenceMessage(CoherenceOp.INV, 1, 9, 0, 1, 2, null));       // behind partition 9's transfer
        send(new BarrierReleaseMessage(1, 3, new long[0]));                     // not about a partition: behind all
        setSocketFull(false);
        List<String> expected = new ArrayList<>(List.of("GET_S(3)"));
        expected.addAll(chunks(7, 0, 3));
        expected.add("FWD_GET_M(7)");
        expected.addAll(chunks(9, 0, 2));
        expected.add("INV(9)");
        expected.add("BARRIER_RELEASE");
        assertEquals(expected, written);
        assertFalse(channel.finish());
    }

    @Test
    void messagesNotAboutAPartitionKeepTheirOrderBehindALargeOne() {
        setSocketFull(true);
        send(new BarrierReleaseMessage(1, 3, new long[2 * CHUNK_BYTES / Long.BYTES])); // chunked: larger than a chunk
        send(new LockMessage(1, LockMessage.GRANT, 2, 3));                             // same key: behind it
        send(new CoherenceMessage(CoherenceOp.INV, 1, 9, 0, 1, 2, null));               // overtakes it
        setSocketFull(false);
        assertEquals(List.of("INV(9)", "CHUNK(-1)@0", "CHUNK(-1)@1024", "CHUNK(-1)@2048", "LOCK"), written);
        assertFalse(channel.finish());
    }

    @Test
    void writesStopWhileTheChannelIsUnwritableAndEverythingQueuedIsReleasedOnClose() {
        setSocketFull(true);
        for (int p = 0; p < 5; p++) {
            send(data(p, 4));
            send(new CoherenceMessage(CoherenceOp.INV, 1, 100 + p, 0, 1, 2, null));
        }
        assertTrue(written.isEmpty());
        assertEquals(10, scheduler.queuedMessages());
        channel.close();        // the paranoid leak detector reports any frame not released
        assertEquals(0, scheduler.queuedMessages());
        send(data(5, 2));       // dropped and released: the channel is closed
        assertTrue(written.isEmpty());
        assertFalse(channel.finish());
    }

    @Test
    void repliesToOneReadBatchAreFlushedOnceAtItsEnd() {
        EmbeddedChannel replier = new EmbeddedChannel();
        List<Integer> flushes = new ArrayList<>();
        List<String> out = new ArrayList<>();
        OutboundScheduler s = new OutboundScheduler();
        replier.pipeline().addLast(recorder(out, flushes), s, new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                CoherenceMessage request = (CoherenceMessage) msg;
                s.send(encoder.encode(PooledByteBufAllocator.DEFAULT, new CoherenceMessage(CoherenceOp.DATA_S, 1,
                        request.partition(), 0, 1, 1, new byte[64])));
            }
        });
        replier.writeInbound(new CoherenceMessage(CoherenceOp.GET_S, 1, 1, 1, 0, 1, null),
                new CoherenceMessage(CoherenceOp.GET_S, 1, 2, 1, 0, 1, null),
                new CoherenceMessage(CoherenceOp.GET_S, 1, 3, 1, 0, 1, null));
        assertEquals(List.of("DATA_S(1)", "DATA_S(2)", "DATA_S(3)"), out);
        assertEquals(List.of(3), flushes, "one flush, after the three replies");
        s.send(encoder.encode(PooledByteBufAllocator.DEFAULT, new LockMessage(1, LockMessage.GRANT, 2, 3)));
        assertEquals(List.of(3), flushes, "a send outside a read batch waits for the event loop's next task");
        replier.runPendingTasks();
        assertEquals(List.of(3, 4), flushes, "which writes and flushes it");
        assertNull(replier.readInbound());
        assertFalse(replier.finish());
    }

    /**
     * The requests of a region read, one task per partition on the event loop, each sending a
     * request outside a read batch: written in order and flushed once, by the task the first send
     * queued behind them, so they leave in one system call. The seeded bug, a flush per send (as
     * before this was built), is caught by the same assertion.
     */
    @Test
    void sendsOfTheTasksQueuedOnTheEventLoopLeaveInOneFlush() {
        assertEquals(List.of(5), flushesOfQueuedSends(true));
        assertEquals(List.of(1, 2, 3, 4, 5), flushesOfQueuedSends(false), "the seeded bug: a flush per send");
    }

    // Queues five tasks on an event loop, each sending a request, runs them, and returns the written counts at each flush.
    private List<Integer> flushesOfQueuedSends(boolean coalesce) {
        List<String> out = new ArrayList<>();
        List<Integer> flushes = new ArrayList<>();
        OutboundScheduler s = new OutboundScheduler(OutboundScheduler.DEFAULT_BYTES_PER_SLICE, coalesce);
        EmbeddedChannel ch = new EmbeddedChannel(recorder(out, flushes), s);
        for (int p = 0; p < 5; p++) {
            int partition = p;
            ch.eventLoop().execute(() -> s.send(encoder.encode(PooledByteBufAllocator.DEFAULT,
                    new CoherenceMessage(CoherenceOp.GET_S, 1, partition, 1, 0, 1, null))));
        }
        ch.runPendingTasks();
        assertEquals(List.of("GET_S(0)", "GET_S(1)", "GET_S(2)", "GET_S(3)", "GET_S(4)"), out);
        assertFalse(ch.finish());
        return flushes;
    }

    /**
     * On a real event loop: a lone send, with nothing else queued there, is flushed at once (a task
     * behind it would only delay it); the sends of five tasks queued together leave in one flush.
     * The seeded bug, a flush per send, flushes six times.
     */
    @Test
    void onARealEventLoopALoneSendIsFlushedAtOnceAndABurstTogether() throws Exception {
        assertEquals(List.of(1, 6), flushesOnARealLoop(true));
        assertEquals(List.of(1, 2, 3, 4, 5, 6), flushesOnARealLoop(false), "the seeded bug: a flush per send");
    }

    // A scheduler on a channel of a one-thread local event loop: one send from a task, then five from five tasks queued together.
    private List<Integer> flushesOnARealLoop(boolean coalesce) throws Exception {
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, LocalIoHandler.newFactory());
        try {
            List<String> out = new CopyOnWriteArrayList<>();
            List<Integer> flushes = new CopyOnWriteArrayList<>();
            OutboundScheduler s = new OutboundScheduler(OutboundScheduler.DEFAULT_BYTES_PER_SLICE, coalesce);
            LocalChannel ch = new LocalChannel();
            group.register(ch).sync();
            EventLoop loop = ch.eventLoop();
            loop.submit(() -> ch.pipeline().addLast(recorder(out, flushes), s)).get(10, TimeUnit.SECONDS);
            loop.submit(() -> {
                s.send(getS(0));
                assertEquals(List.of(1), flushes, "a lone send is flushed before its task ends");
            }).get(10, TimeUnit.SECONDS);
            loop.submit(() -> {
                for (int p = 1; p <= 5; p++) {
                    int partition = p;
                    loop.execute(() -> s.send(getS(partition)));
                }
            }).get(10, TimeUnit.SECONDS);
            loop.submit(() -> { }).get(10, TimeUnit.SECONDS);   // behind the five, so behind the task the first one queued
            loop.submit(() -> { }).get(10, TimeUnit.SECONDS);   // and behind that task, which writes them
            assertEquals(List.of("GET_S(0)", "GET_S(1)", "GET_S(2)", "GET_S(3)", "GET_S(4)", "GET_S(5)"), out);
            ch.close().sync();
            return List.copyOf(flushes);
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    private OutboundMessage getS(int partition) {
        return encoder.encode(PooledByteBufAllocator.DEFAULT, new CoherenceMessage(CoherenceOp.GET_S, 1, partition, 1, 0, 1, null));
    }

    /** A send and then a close, before the event loop's next task: the message is written and flushed before the channel closes. */
    @Test
    void whatIsQueuedIsWrittenBeforeTheChannelCloses() {
        scheduler.send(encoder.encode(PooledByteBufAllocator.DEFAULT, new LockMessage(1, LockMessage.GRANT, 2, 3)));
        assertTrue(written.isEmpty(), "not written yet: the event loop's next task would");
        channel.close();
        assertEquals(List.of("LOCK"), written);
        assertEquals(List.of(1), flushedAfter);
        assertFalse(channel.finish());
    }

    /**
     * A socket that takes everything at once gets a large transfer in slices, one task each, and a
     * task queued on the event loop meanwhile (another connection's heartbeat, say) runs between
     * two slices instead of after the whole transfer. The seeded bug, every frame in one task (a
     * slice larger than the transfer), is caught by the same assertion.
     */
    @Test
    void aTransferThatTheSocketTakesAsFastAsItComesIsWrittenInSlicesBetweenOtherTasks() {
        // the send queues the task that writes before the other task is queued: it writes the first slice and posts
        // the second behind the other task, which runs next
        List<String> sliced = slicedWrite(2 * CHUNK_BYTES);
        assertEquals(List.of("CHUNK(7)@0", "CHUNK(7)@" + (WireFormat.COHERENCE_HEAD_BYTES + CHUNK_BYTES)), sliced.subList(0, 2), sliced.toString());
        assertEquals(2, sliced.indexOf("OTHER"), "one slice of two chunks, then the other task: " + sliced);
        assertEquals(10, slicedWrite(2 * CHUNK_BYTES).stream().filter(w -> w.startsWith("CHUNK")).count(), "every chunk goes out");
        List<String> unsliced = slicedWrite(64 * CHUNK_BYTES);
        assertEquals("OTHER", unsliced.get(unsliced.size() - 1), "the seeded bug: one task writes the whole transfer first");
    }

    // Sends a 10-chunk transfer through a scheduler with the given slice, queues another task on the
    // event loop, runs the tasks, and returns what was written and when the other task ran ("OTHER").
    private List<String> slicedWrite(int bytesPerSlice) {
        List<String> out = new ArrayList<>();
        OutboundScheduler s = new OutboundScheduler(bytesPerSlice, true);
        EmbeddedChannel ch = new EmbeddedChannel(recorder(out, new ArrayList<>()), s);
        s.send(encoder.encode(PooledByteBufAllocator.DEFAULT, data(7, 10)));
        ch.eventLoop().execute(() -> out.add("OTHER"));
        ch.runPendingTasks();
        assertEquals(0, s.queuedMessages());
        assertFalse(ch.finish());
        return out;
    }
}
