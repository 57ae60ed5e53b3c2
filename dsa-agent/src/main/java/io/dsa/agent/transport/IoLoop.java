package io.dsa.agent.transport;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoop;
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
 *
 * <p>A loop started with {@code lends} ({@code WaitStrategy.SPIN}) lends its I/O and tasks to the
 * node's threads while they spin in a wait ({@link #waitBegins}, {@link #waitTurn},
 * {@link #waitEnds}; {@link LendingEventLoop}).
 */
public final class IoLoop implements Executor, AutoCloseable {
    private static final int SHUTDOWN_TIMEOUT_SECONDS = 2;

    private final EventLoopGroup group;
    private final EventLoop loop;
    /** The loop, if its waiting threads drive it ({@link #start(String, boolean, LongSupplier, boolean)}); else null. */
    private final LendingEventLoop lending;
    private final boolean epoll;
    /** While true, the idle thread polls instead of blocking ({@link #pollWhile}); read by the thread at every turn. */
    private volatile BooleanSupplier pollWhile = () -> false;

    private IoLoop(String threadName, boolean preferNative, LongSupplier spinNs, boolean lends) {
        LeakDetection.apply();
        this.epoll = preferNative && Epoll.isAvailable();
        LendingEventLoop[] made = new LendingEventLoop[1];
        SelectStrategyFactory strategies = () -> new SpinThenBlock(spinNs,
                () -> pollWhile.getAsBoolean() || (made[0] != null && made[0].pollsOnly()));
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory(0, strategies)
                : NioIoHandler.newFactory(SelectorProvider.provider(), strategies);
        DefaultThreadFactory threads = new DefaultThreadFactory(threadName, true);
        this.group = !lends ? new MultiThreadIoEventLoopGroup(1, threads, io) : new MultiThreadIoEventLoopGroup(1, threads, io) {
            @Override
            protected IoEventLoop newChild(Executor executor, IoHandlerFactory handlers, Object... args) {
                made[0] = new LendingEventLoop(this, executor, handlers);
                return made[0];
            }
        };
        this.loop = (EventLoop) group.next();
        this.lending = made[0];
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
        return start(threadName, preferNative, spinNs, false);
    }

    /**
     * Starts the thread; with {@code lends}, a thread of the node that spins in a wait runs the
     * loop's I/O and tasks itself ({@link #waitBegins}, {@link #waitTurn}, {@link #waitEnds}):
     * {@code WaitStrategy.SPIN} (docs/runtime.md, "SPIN: the waiting thread does the I/O").
     *
     * @param lends whether waiting threads drive the loop
     */
    public static IoLoop start(String threadName, boolean preferNative, LongSupplier spinNs, boolean lends) {
        return new IoLoop(threadName, preferNative, java.util.Objects.requireNonNull(spinNs, "spinNs"), lends);
    }

    /** @return whether waiting threads drive this loop ({@link #start(String, boolean, LongSupplier, boolean)}) */
    public boolean lends() { return lending != null; }

    /**
     * The calling thread begins a spin in which it calls {@link #waitTurn()} at every turn until
     * {@link #waitEnds()} (which it must call, also when the wait ends by an exception). The loop's
     * thread lends it the I/O after its current turn. Nothing where the loop does not lend.
     */
    public void waitBegins() { if (lending != null) lending.waitBegins(); }

    /**
     * Between {@link #waitBegins()} and {@link #waitEnds()}: runs the I/O that is ready and the
     * posted tasks on the calling thread if nobody else does (it is then {@link #inLoop()} until
     * its wait ends).
     *
     * @return whether the calling thread drove the loop in this turn
     */
    public boolean waitTurn() { return lending != null && lending.waitTurn(); }

    /** Ends the calling thread's wait: it gives the I/O back to the loop's thread. */
    public void waitEnds() { if (lending != null) lending.waitEnds(); }

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
