package io.dsa.agent.transport;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SelectStrategy;
import io.netty.channel.SelectStrategyFactory;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.IntSupplier;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.nio.channels.spi.SelectorProvider;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * A node's one I/O thread, as a Netty event loop that exists before the node listens or dials:
 * the runtime gives it work from the start (it owns the coherence engine), and a {@link Transport}
 * started on it ({@link Transport#start(TransportConfig, InboundHandler, IoLoop)}) serves every
 * connection on it. Thread-safe.
 *
 * <p>When idle, the thread polls its sockets without blocking for {@code spinNs} after its last
 * event or task, then blocks in {@code epoll_wait} (or the NIO selector) until a socket or
 * {@link #execute} wakes it. Netty's select strategy decides this on every turn of the loop:
 * {@link SelectStrategy#CONTINUE} after a poll that found nothing skips the blocking wait (the
 * loop runs its tasks and turns again), and while the thread does not block, a task posted from
 * another thread costs no wake-up write. ({@link SelectStrategy#BUSY_WAIT} is not used: it is one
 * more poll in the epoll handler, and NIO treats it as a blocking select.)
 */
public final class IoLoop implements Executor, AutoCloseable {
    private static final int SHUTDOWN_TIMEOUT_SECONDS = 2;

    private final EventLoopGroup group;
    private final EventLoop loop;
    private final boolean epoll;
    /** While true, the idle thread polls instead of blocking ({@link #pollWhile}); read by the thread at every turn. */
    private volatile BooleanSupplier pollWhile = () -> false;

    private IoLoop(String threadName, boolean preferNative, LongSupplier spinNs) {
        this.epoll = preferNative && Epoll.isAvailable();
        SelectStrategyFactory strategies = () -> new SpinThenBlock(spinNs, () -> pollWhile.getAsBoolean());
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory(0, strategies)
                : NioIoHandler.newFactory(SelectorProvider.provider(), strategies);
        this.group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory(threadName, true), io);
        this.loop = (EventLoop) group.next();
    }

    /**
     * Starts the thread.
     *
     * @param threadName the thread's name prefix
     * @param preferNative epoll when available, else NIO
     * @param spinNs how long the idle thread polls before it blocks, asked each time it becomes
     *        idle: 0 blocks at once, {@link Long#MAX_VALUE} never blocks (it yields the core now and then)
     */
    public static IoLoop start(String threadName, boolean preferNative, LongSupplier spinNs) {
        return new IoLoop(threadName, preferNative, java.util.Objects.requireNonNull(spinNs, "spinNs"));
    }

    /**
     * Makes the idle thread poll its sockets without blocking whenever {@code condition} holds
     * (asked at every turn of the loop, so it must be cheap), besides its spin after each event;
     * it blocks once the condition is false and the spin is over. {@code WaitStrategy.POLL}: while
     * a thread of the node is parked.
     */
    public void pollWhile(BooleanSupplier condition) { this.pollWhile = java.util.Objects.requireNonNull(condition, "condition"); }

    /** Runs {@code task} on the thread, after the tasks posted before it; it must not block. */
    @Override
    public void execute(Runnable task) { loop.execute(task); }

    /** @return whether the calling thread is this loop's thread */
    public boolean inLoop() { return loop.inEventLoop(); }

    EventLoopGroup group() { return group; }

    boolean epoll() { return epoll; }

    /** Stops the thread after the tasks already posted; waits a few seconds unless called on it. */
    @Override
    public void close() {
        var done = group.shutdownGracefully(0, SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (!inLoop()) done.awaitUninterruptibly(2L * SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    /**
     * Polls without blocking for {@code spinNs} of idleness, and for as long as {@code pollWhile}
     * holds, then blocks. One per loop, used by its thread only.
     */
    static final class SpinThenBlock implements SelectStrategy {
        private final LongSupplier spinNs;
        private final BooleanSupplier pollWhile;
        private long idleSinceNs;
        private long idleSpinNs;
        private boolean idle;
        private int emptyPolls;

        SpinThenBlock(LongSupplier spinNs) { this(spinNs, () -> false); }

        SpinThenBlock(LongSupplier spinNs, BooleanSupplier pollWhile) {
            this.spinNs = spinNs;
            this.pollWhile = pollWhile;
        }

        @Override
        public int calculateStrategy(IntSupplier selectNow, boolean hasTasks) throws Exception {
            if (pollWhile.getAsBoolean()) {
                int ready = selectNow.get();
                if (ready > 0 || hasTasks) return ready;
                Thread.onSpinWait();
                return SelectStrategy.CONTINUE;
            }
            if (!idle && !hasTasks && spinNs.getAsLong() <= 0) return SelectStrategy.SELECT; // Netty's default
            int ready = selectNow.get();
            if (ready > 0 || hasTasks) {
                idle = false;
                return ready;
            }
            long now = System.nanoTime();
            if (!idle) {
                idle = true;
                idleSinceNs = now;
                idleSpinNs = spinNs.getAsLong();
            }
            if (now - idleSinceNs < idleSpinNs) {
                Spins.turn(idleSpinNs, ++emptyPolls);
                return SelectStrategy.CONTINUE;
            }
            idle = false; // after the blocking wait, spin again
            return SelectStrategy.SELECT;
        }
    }
}
