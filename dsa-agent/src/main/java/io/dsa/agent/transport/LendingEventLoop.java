package io.dsa.agent.transport;

import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.SingleThreadIoEventLoop;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's event loop whose I/O and tasks are run, while a thread of the node spins in a wait, by
 * that thread instead of the loop's own: MPI-style progress, where the thread that waits for a
 * message is the one that reads it (docs/runtime.md, "SPIN: the waiting thread does the I/O").
 *
 * <p>One thread at a time is the loop's <em>driver</em>: it alone runs the loop's I/O and tasks,
 * and {@link #inEventLoop(Thread)} is true for it alone, so Netty and the node's code, which ask
 * that question before touching a channel or the coherence engine, see one owner as before. The
 * driver is the loop's own thread, or a waiting thread it lent itself to, or nobody between the
 * two ({@link IoRole}: the handover is a volatile write that the next driver's compare-and-set
 * reads, so each driver sees everything its predecessor did). The loop's thread lends itself
 * after a turn in which a thread of the node waits ({@link #waitBegins}), then parks; a waiting
 * thread takes the free role at its next turn ({@link #waitTurn}) and gives it back when its wait
 * ends ({@link #waitEnds}). A task posted while nobody drives or waits wakes the loop's thread. Between two waits the role stays free for at most {@link #LEASE_NS}: the
 * loop's thread, parked with that bound, takes it back when nobody did, so a message for a node
 * whose threads compute (none waits) is read within it. While its own thread drives, the loop
 * idles as the VM's strategy says. Shutting down, the loop's thread takes the role back and keeps it.
 */
final class LendingEventLoop extends SingleThreadIoEventLoop {
    private static final Logger log = LoggerFactory.getLogger(LendingEventLoop.class);
    /**
     * Longest time the role stays free (or with a waiting thread) before the loop's thread looks
     * again. Each look wakes the loop's thread on a core the spinning threads use: 100 us made 8 KiB
     * misses one at a time and NPB CG under SPIN slower than 1 ms did (docs/runtime.md, "SPIN: the
     * waiting thread does the I/O").
     */
    static final long LEASE_NS = 1_000_000;
    /** Longest time a driver spends on tasks in one turn. */
    private static final long TASKS_NS = 1_000_000;
    private static final Runnable NUDGE = () -> { };

    private final IoRole role;
    private volatile Thread loopThread;

    LendingEventLoop(IoEventLoopGroup parent, Executor executor, IoHandlerFactory handlers) {
        super(parent, executor, handlers);
        this.role = new IoRole();
    }

    /** @return whether {@code thread} is the driver now: the only thread that may run the loop's I/O and tasks */
    @Override
    public boolean inEventLoop(Thread thread) {
        return role != null && role.drives(thread);   // null: asked from the super constructor, before the loop started
    }

    /** @return whether the calling thread is the loop's own thread (it alone may block in the I/O wait) */
    boolean onLoopThread() { return Thread.currentThread() == loopThread; }

    /** @return whether the driver must not block in the I/O wait: it is a waiting thread, or one waits for the role */
    boolean pollsOnly() { return role.anyWaiter() || !onLoopThread(); }

    @Override
    protected void run() {
        Thread me = Thread.currentThread();
        loopThread = me;
        role.loopStarts(me);
        ioHandler().initialize();
        for (;;) {
            if (!role.loopTakes(me)) {
                LockSupport.parkNanos(this, LEASE_NS);   // a waiting thread drives: look again after the lease
                continue;
            }
            runIo();
            if (isShuttingDown()) ioHandler().prepareToDestroy();
            runAllTasks(TASKS_NS);
            if (confirmShutdown()) return;
            if (!isShuttingDown() && role.lend(me)) LockSupport.parkNanos(this, LEASE_NS);   // a waiting thread takes it at its next turn
        }
    }

    /**
     * Posts {@code task}; if nobody drives the loop and no thread waits (one that will drive it
     * soon), wakes the loop's thread, so that a task posted by a thread that does not wait (a
     * request whose future it will join, a write it does not wait for) does not wait for the lease.
     */
    @Override
    public void execute(Runnable task) {
        super.execute(task);
        if (role != null && role.free() && !role.anyWaiter()) LockSupport.unpark(loopThread);
    }

    /**
     * The calling thread begins a wait in which it calls {@link #waitTurn} until {@link #waitEnds}.
     * If the loop's thread drives, a task wakes it from its I/O wait, so that it lends itself.
     */
    void waitBegins() {
        if (role.waiterBegins(loopThread) && !isShuttingDown()) {
            try {
                execute(NUDGE);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // shutting down: the loop's thread keeps the role
            }
        }
    }

    /**
     * One turn of a waiting thread: if the role is free (or already its own), it runs the tasks
     * posted so far (the request its wait is for, first) and the I/O that is ready, without blocking.
     *
     * @return whether the calling thread drove in this turn
     */
    boolean waitTurn() {
        Thread me = Thread.currentThread();
        if (!role.drives(me) && (isShuttingDown() || !role.waiterTakes(me))) return false;
        try {
            runAllTasks(TASKS_NS);
            runIo();
        } catch (Throwable t) {
            log.warn("a waiting thread driving the I/O failed", t);
        }
        return true;
    }

    /** The calling thread's wait (from {@link #waitBegins}) ended: it gives the role back if it has it. */
    void waitEnds() { role.waiterEnds(Thread.currentThread()); }
}
