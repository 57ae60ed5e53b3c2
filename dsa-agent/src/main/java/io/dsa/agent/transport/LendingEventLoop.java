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
 *
 * <p>A thread's waits nest: it counts as waiting from its outermost {@link #waitBegins} to its
 * outermost {@link #waitEnds}, and the end of an inner wait gives the role back, so between its
 * spins it is not the driver. A thread that parks inside a wait (ADAPTIVE, after its spin) pauses
 * it ({@link #waitPauses}): it gives the role back, stops counting, and wakes the loop's thread if
 * nobody else waits, so what it parks for is read at once; then {@link #waitResumes}. A task the
 * driver runs in its turn neither pauses nor turns.
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
    /** Each thread's nesting of waits and whether it paused them ({@link #waitPauses}); only the outermost counts at the role. */
    private final ThreadLocal<Waits> waits = ThreadLocal.withInitial(Waits::new);
    private final long leaseNs;
    private volatile Thread loopThread;

    /** One thread's waits on this loop: how deeply nested, and whether paused for a park. */
    private static final class Waits {
        int depth;
        boolean paused;
        /** In {@link #waitTurn}: running the loop's tasks and I/O, which must not pause or turn again. */
        boolean inTurn;
    }

    LendingEventLoop(IoEventLoopGroup parent, Executor executor, IoHandlerFactory handlers) {
        this(parent, executor, handlers, LEASE_NS);
    }

    /** @param leaseNs the loop's thread's longest park while the role is lent or free ({@link #LEASE_NS}; tests lengthen it) */
    LendingEventLoop(IoEventLoopGroup parent, Executor executor, IoHandlerFactory handlers, long leaseNs) {
        super(parent, executor, handlers);
        this.role = new IoRole();
        this.leaseNs = leaseNs;
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
                LockSupport.parkNanos(this, leaseNs);   // a waiting thread drives: look again after the lease
                continue;
            }
            runIo();
            if (isShuttingDown()) ioHandler().prepareToDestroy();
            runAllTasks(TASKS_NS);
            if (confirmShutdown()) return;
            if (!isShuttingDown() && role.lend(me)) {
                // the last waiter ended or paused while it lent, seeing the role still its own: nobody woke it
                if (!role.anyWaiter()) continue;
                LockSupport.parkNanos(this, leaseNs);   // a waiting thread takes it at its next turn
            }
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
        Waits w = waits.get();
        if (w.depth++ > 0) return;   // nested in a wait of its own: counted once
        w.paused = false;
        begin();
    }

    private void begin() {
        Thread loop = loopThread;   // null: its thread has not run yet, and a task starts it
        if ((role.waiterBegins(loop) || loop == null) && !isShuttingDown()) {
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
        Waits w = waits.get();
        if (w.depth == 0 || w.paused || w.inTurn) return false;   // only in a wait it counts in, and not from a task it runs
        if (!role.drives(me) && (isShuttingDown() || !role.waiterTakes(me))) return false;
        w.inTurn = true;
        try {
            runAllTasks(TASKS_NS);
            runIo();
        } catch (Throwable t) {
            log.warn("a waiting thread driving the I/O failed", t);
        } finally {
            w.inTurn = false;
        }
        return true;
    }

    /** The calling thread's wait (from {@link #waitBegins}) ended: it gives the role back if it has it. */
    void waitEnds() {
        Waits w = waits.get();
        if (w.depth == 0) return;
        if (--w.depth > 0) {
            role.release(Thread.currentThread());   // between its spins the thread is not the driver: it may block or wait again
            return;
        }
        if (w.paused) {
            w.paused = false;   // no longer counted since it paused
            return;
        }
        role.waiterEnds(Thread.currentThread());
    }

    /**
     * The calling thread, in a wait ({@link #waitBegins}), is about to park until something the
     * loop reads wakes it: it gives the role back if it has it and no longer counts as waiting,
     * and if nobody then drives or waits, wakes the loop's thread to take the role back, so that
     * what it parks for is read at once and not after the lease. Nothing outside a wait, or if paused already.
     */
    void waitPauses() {
        Waits w = waits.get();
        if (w.depth == 0 || w.paused || w.inTurn) return;   // inTurn: a task it runs as the driver blocks on nothing the loop must read
        w.paused = true;
        role.waiterEnds(Thread.currentThread());
        if (role.free() && !role.anyWaiter()) LockSupport.unpark(loopThread);
    }

    /** The calling thread's park in a wait ({@link #waitPauses}) ended: it counts as waiting again. */
    void waitResumes() {
        Waits w = waits.get();
        if (!w.paused) return;
        w.paused = false;
        begin();
    }
}
