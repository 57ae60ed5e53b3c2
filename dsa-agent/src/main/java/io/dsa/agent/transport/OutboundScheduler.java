package io.dsa.agent.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.VoidChannelPromise;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.SingleThreadEventExecutor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

/**
 * The sending side of one authenticated connection: decides which encoded frame goes out next,
 * and when. Sits in the pipeline above the frame encoder; {@link NettyConnection#send} hands it
 * {@link OutboundMessage}s from any thread, and it writes them on the channel's event loop.
 *
 * <p><b>Two queues.</b> A message that travels in one frame is <em>urgent</em>; a chunked one is
 * <em>bulk</em>. The next frame written is the oldest urgent message if there is one, else the
 * next chunk of the oldest bulk message, so small messages (barriers, invalidations, requests,
 * locks, variables) go out between the chunks of a large transfer instead of waiting for all of
 * it. One bulk message is sent at a time, chunk after chunk (the receiver refuses interleaved
 * chunked messages).
 *
 * <p><b>Order.</b> A coherence message never overtakes one sent before it about the same array
 * and partition, and a message not about a partition (barriers, collectives, locks, status, host
 * messages) never overtakes anything sent before it ({@link OutboundMessage#sameOrder}): such an
 * urgent message goes into the bulk queue behind a queued bulk message. Only coherence messages
 * about other partitions overtake a transfer; docs/runtime.md ("Bulk transfers") says why the
 * protocols allow that, and why a barrier must not overtake data.
 *
 * <p><b>Back-pressure.</b> Frames are written only while the channel is writable (its outbound
 * buffer is under the high watermark), and writing resumes when it becomes writable again, so a
 * slow receiver makes the messages wait here, encoded once, rather than in ever more socket
 * buffers; nothing blocks, so two busy ends cannot deadlock. What waits here is what the sender
 * sent: the protocols bound it (a partition travels in answer to a request).
 *
 * <p><b>Slices.</b> One call writes at most {@link #DEFAULT_BYTES_PER_SLICE} bytes of frames (at
 * least one frame); if more could be written, it posts the rest as a new task on the event loop,
 * behind whatever waits there. A connection whose peer takes a large transfer as fast as it comes
 * (loopback) would otherwise seal and write all of it in one task, and every other connection of
 * the event loop (their heartbeats, barriers, replies) would wait for the whole of it.
 *
 * <p><b>Flushes.</b> Sends made on the event loop while it handles this channel's reads are
 * written and flushed once, when the read batch ends ({@code channelReadComplete}), so the replies
 * to a batch of requests leave in one flush. Any other send is written and flushed at once if
 * nothing else waits on the event loop, else by a task behind what waits ({@link #writeSoon}), so
 * the sends of a burst of tasks (a region's requests, one per partition) leave in one flush too; a
 * close writes what is queued first. Everything but {@link #send} runs on the event loop.
 */
final class OutboundScheduler extends ChannelDuplexHandler {
    private static final Logger LOG = LoggerFactory.getLogger(OutboundScheduler.class);

    /** Bytes of frames one task writes at most before it posts the rest (see the class comment). */
    static final int DEFAULT_BYTES_PER_SLICE = 1 << 20;

    private final int bytesPerSlice;
    /** Sends outside a read batch are flushed together by a task ({@link #writeSoon}); false: each at once (tests). */
    private final boolean coalesceFlushes;
    private final MessageQueue urgent = new MessageQueue();
    private final MessageQueue bulk = new MessageQueue();
    private ChannelHandlerContext ctx;
    private ChannelPromise quiet;
    private boolean closed;
    /** Between this channel's first channelRead of a batch and its channelReadComplete. */
    private boolean reading;
    private boolean writing;
    private boolean writeAgain;
    private long framesWritten;
    private long flushes;
    /** Bytes written by the current {@link #writeQueued} call. */
    private long sliceBytes;
    /** A task that goes on writing is posted and has not run yet. */
    private boolean resumePosted;
    /** That task (made once: posting it allocates nothing of ours). */
    private final Runnable resume = () -> {
        resumePosted = false;
        if (!closed && !reading && ctx.channel().isWritable()) writeQueued();
    };

    OutboundScheduler() { this(DEFAULT_BYTES_PER_SLICE, true); }

    /**
     * @param bytesPerSlice bytes of frames one event-loop task writes at most (tests choose a small one)
     * @param coalesceFlushes whether sends outside a read batch are flushed together ({@link #writeSoon});
     *        false flushes each at once, as before (tests compare the two)
     */
    OutboundScheduler(int bytesPerSlice, boolean coalesceFlushes) {
        if (bytesPerSlice < 1) throw new IllegalArgumentException("bytes per slice " + bytesPerSlice + " not >= 1");
        this.bytesPerSlice = bytesPerSlice;
        this.coalesceFlushes = coalesceFlushes;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        // One promise for every write, so a write allocates nothing of ours. A write that fails (an I/O
        // error, a record that could not be sealed) fires exceptionCaught, where the ConnectionHandler
        // closes the connection with that failure as its reason: the stream lost a frame, so nothing
        // after it could be trusted to arrive in order.
        this.quiet = new VoidChannelPromise(ctx.channel(), true);
    }

    /**
     * Queues {@code message} behind those sent before it and writes what can be written. Any
     * thread: from another thread than the event loop, the message is queued by a task on it, so
     * it keeps its place among that thread's sends and the tasks it posts to the event loop
     * ({@link Connection#executeOnIoThread}). The message now belongs to the scheduler (released if
     * the channel is closed).
     */
    void send(OutboundMessage message) {
        EventExecutor loop = ctx.executor();
        if (loop.inEventLoop()) {
            enqueue(message);
            return;
        }
        try {
            loop.execute(() -> enqueue(message));
        } catch (RejectedExecutionException e) {
            drop(message, "its event loop stopped"); // the transport is shutting down
        }
    }

    private void enqueue(OutboundMessage m) {
        if (closed) {
            drop(m, "it is closed");
            return;
        }
        if (m.chunked() || bulk.holdsSameOrder(m)) {
            bulk.add(m);
        } else {
            urgent.add(m);
        }
        if (!reading) writeSoon();
    }

    /**
     * A send outside a read batch. If other tasks wait on the event loop (a region's requests, one
     * task per partition), it is written and flushed by a task behind them, so every send those
     * tasks make leaves in one flush instead of one each; that task runs before the event loop
     * waits for I/O again (no wake-up, no timer). A lone send, with nothing else queued, is
     * written and flushed at once: batching it would only delay it.
     */
    private void writeSoon() {
        if (coalesceFlushes && othersQueued(ctx.executor())) resumeLater();
        else writeQueued();
    }

    /**
     * @return whether tasks wait on {@code loop} besides the running one; true where the loop cannot
     *         tell (not a {@link SingleThreadEventExecutor}: a test's embedded loop)
     */
    static boolean othersQueued(EventExecutor loop) {
        return !(loop instanceof SingleThreadEventExecutor s) || s.pendingTasks() > 0;
    }

    private void drop(OutboundMessage m, String why) {
        LOG.debug("{} to {} dropped: {}", m, ctx.channel().remoteAddress(), why);
        m.release();
    }

    /**
     * Writes urgent frames first, then the next chunks, while the channel is writable; flushes if it
     * wrote. Called again from inside its own flush (the channel became writable), it lets the
     * outer call go round once more instead.
     */
    private void writeQueued() {
        if (writing) {
            writeAgain = true;
            return;
        }
        writing = true;
        sliceBytes = 0;
        try {
            do {
                writeAgain = false;
                writeWhileWritable();
            } while (writeAgain && sliceBytes < bytesPerSlice);
        } finally {
            writing = false;
        }
        if (sliceBytes >= bytesPerSlice && !closed && (!urgent.isEmpty() || !bulk.isEmpty())) resumeLater();
    }

    // Frames wait (a slice is used up, or a send outside a read batch): a task behind the ones already queued on the
    // event loop writes them; one such task at a time.
    private void resumeLater() {
        if (resumePosted) return;
        resumePosted = true;
        try {
            ctx.executor().execute(resume);
        } catch (RejectedExecutionException e) {
            resumePosted = false;   // the event loop stopped: the channel closes and releases what waits
        }
    }

    private void writeWhileWritable() {
        Channel channel = ctx.channel();
        boolean wrote = false;
        while (channel.isWritable() && sliceBytes < bytesPerSlice) {
            MessageQueue from = urgent.isEmpty() ? bulk : urgent;
            OutboundMessage m = from.peek();
            if (m == null) break;
            ByteBuf frame = m.takeFrame();
            if (m.done()) from.poll();
            sliceBytes += frame.readableBytes();
            ctx.write(frame, quiet);
            framesWritten++;
            wrote = true;
        }
        if (wrote) {
            flushes++;
            ctx.flush();
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        reading = true;
        ctx.fireChannelRead(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        reading = false;
        writeQueued();
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable() && !reading) writeQueued();
        ctx.fireChannelWritabilityChanged();
    }

    /**
     * Closing: what is queued and can be written goes out first (a refusal sent just before the
     * close, say), as a send outside a read batch did when it was flushed at once.
     */
    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        if (!closed) writeQueued();
        ctx.close(promise);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closeAndRelease();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        closeAndRelease();
    }

    /** Releases every queued frame; later sends are dropped. */
    private void closeAndRelease() {
        closed = true;
        int dropped = urgent.size() + bulk.size();
        urgent.releaseAll();
        bulk.releaseAll();
        if (dropped > 0) {
            LOG.debug("{} messages to {} dropped: it closed", dropped, ctx.channel().remoteAddress());
        }
    }

    /** @return messages queued and not completely written (event loop) */
    int queuedMessages() { return urgent.size() + bulk.size(); }

    /** @return the types of the messages queued, urgent ones first, each queue oldest first (event loop; tests and diagnosis) */
    List<MessageType> queuedTypes() {
        List<MessageType> types = new ArrayList<>();
        urgent.forEach(m -> types.add(m.type()));
        bulk.forEach(m -> types.add(m.type()));
        return types;
    }

    /** @return frames written so far (event loop) */
    long framesWritten() { return framesWritten; }

    /** @return flushes so far (event loop) */
    long flushes() { return flushes; }

    /** A FIFO of messages on an array ring, searchable without allocating. */
    static final class MessageQueue {
        private OutboundMessage[] ring = new OutboundMessage[16];
        private int head;
        private int size;

        boolean isEmpty() { return size == 0; }

        int size() { return size; }

        void add(OutboundMessage m) {
            if (size == ring.length) {
                OutboundMessage[] bigger = new OutboundMessage[ring.length * 2];
                for (int i = 0; i < size; i++) bigger[i] = ring[(head + i) & (ring.length - 1)];
                ring = bigger;
                head = 0;
            }
            ring[(head + size++) & (ring.length - 1)] = m;
        }

        OutboundMessage peek() { return size == 0 ? null : ring[head]; }

        OutboundMessage poll() {
            if (size == 0) return null;
            OutboundMessage m = ring[head];
            ring[head] = null;
            head = (head + 1) & (ring.length - 1);
            size--;
            return m;
        }

        /** @return whether a queued message has {@code m}'s ordering key */
        boolean holdsSameOrder(OutboundMessage m) {
            for (int i = 0; i < size; i++) {
                if (ring[(head + i) & (ring.length - 1)].sameOrder(m)) return true;
            }
            return false;
        }

        /** Hands every queued message to {@code action}, oldest first. */
        void forEach(java.util.function.Consumer<OutboundMessage> action) {
            for (int i = 0; i < size; i++) action.accept(ring[(head + i) & (ring.length - 1)]);
        }

        void releaseAll() {
            for (OutboundMessage m = poll(); m != null; m = poll()) m.release();
        }

        @Override
        public String toString() {
            OutboundMessage[] in = new OutboundMessage[size];
            for (int i = 0; i < size; i++) in[i] = ring[(head + i) & (ring.length - 1)];
            return Arrays.toString(in);
        }
    }
}
