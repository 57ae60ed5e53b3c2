package io.dsa.agent.transport;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Who may run a lending event loop's I/O and tasks now ({@link LendingEventLoop}): the loop's own
 * thread, one waiting thread it lent itself to, or nobody between the two. At most one thread is
 * the driver at any time, and each driver sees everything the previous one did: the role passes by
 * a volatile write ({@link #lend}, {@link #waiterEnds}) that the next driver's compare-and-set
 * reads. {@code IoRoleLincheckTest} model-checks this.
 *
 * <p>Thread-safe; each method says which thread calls it.
 */
class IoRole {
    /** The driver before the loop's thread started: nobody may drive then. */
    static final Thread UNSTARTED = new Thread(() -> { }, "dsa-io-unstarted");

    final AtomicReference<Thread> driver = new AtomicReference<>(UNSTARTED);
    /** Threads between {@link #waiterBegins} and {@link #waiterEnds}. */
    private final AtomicInteger waiters = new AtomicInteger();

    /** @return whether {@code thread} is the driver now */
    final boolean drives(Thread thread) { return driver.get() == thread; }

    /** @return whether nobody drives now: the loop's thread lent the role and no waiting thread took it */
    final boolean free() { return driver.get() == null; }

    /** @return whether some thread is in a wait in which it may drive */
    final boolean anyWaiter() { return waiters.get() > 0; }

    /** The loop's thread, as it starts, becomes the driver. */
    final void loopStarts(Thread loop) { driver.set(loop); }

    /**
     * The loop's thread, before a turn: it keeps the role or takes it if it is free.
     *
     * @return whether it is the driver (else a waiting thread is, and it must not touch the loop)
     */
    boolean loopTakes(Thread loop) {
        return driver.get() == loop || driver.compareAndSet(null, loop);
    }

    /**
     * The loop's thread, after a turn: if a thread waits, the role becomes free for it.
     *
     * @return whether it lent the role (then it parks for a while instead of turning again)
     */
    boolean lend(Thread loop) {
        if (waiters.get() == 0) return false;
        driver.set(null);
        return true;
    }

    /** A waiting thread begins its wait. @return whether the loop's thread ({@code loop}) drives now (so it should be nudged) */
    final boolean waiterBegins(Thread loop) {
        waiters.incrementAndGet();
        Thread d = driver.get();
        return d != null && d == loop;
    }

    /** A waiting thread, at one turn of its wait: it keeps the role or takes it if it is free. @return whether it is the driver */
    boolean waiterTakes(Thread me) {
        Thread d = driver.get();
        return d == me || d == null && driver.compareAndSet(null, me);
    }

    /** A waiting thread's wait ended: it gives the role back if it has it. */
    final void waiterEnds(Thread me) {
        waiters.decrementAndGet();
        driver.compareAndSet(me, null);
    }
}
