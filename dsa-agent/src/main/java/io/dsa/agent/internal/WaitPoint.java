package io.dsa.agent.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Something threads wait on until its {@link #version()} changes: a partition's {@link Slot}, a
 * barrier's generation, a call's reply. A thread that is about to park registers here first and
 * then looks at the version again ({@link Waiting#await}); whoever changes the version calls
 * {@link #wake()} afterwards, which unparks exactly the registered threads and unregisters them.
 * Both sides are volatile accesses in that order, so either the waiter sees the new version or the
 * changer sees the waiter: no wake-up is lost. A thread that spins and never registers is never
 * unparked.
 *
 * <p>Registration allocates nothing: each thread has one {@link Waiter}, linked into one point's
 * list at a time (a lock-free stack that {@link #wake()} takes whole).
 */
abstract class WaitPoint {
    private static final VarHandle WAITERS;

    static {
        try {
            WAITERS = MethodHandles.lookup().findVarHandle(WaitPoint.class, "waiters", Waiter.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile Waiter waiters;

    /** @return the value waiting threads watch; any change ends their wait */
    abstract long version();

    /**
     * Registers the calling thread, whose waiter is {@code w} ({@link Waiter#current}), so that the
     * next {@link #wake()} unparks it. Idempotent while {@code w} is linked here.
     */
    final void register(Waiter w) {
        if (w.linked) return; // Waiter.current(this) only returns a linked waiter if it is linked here
        w.at = this;
        w.linked = true;
        Waiter head;
        do {
            head = waiters;
            w.next = head;
        } while (!WAITERS.compareAndSet(this, head, w));
    }

    /** @return whether a thread is registered here */
    final boolean hasWaiters() { return waiters != null; }

    /** Unparks and unregisters every registered thread. Called after the version changed; any thread. */
    final void wake() {
        if (waiters == null) return;
        Waiter w = (Waiter) WAITERS.getAndSet(this, null);
        while (w != null) {
            Waiter next = w.next;
            w.next = null;
            Thread t = w.thread;
            w.uncount(); // before it may run: a polling I/O thread stops for it (WaitStrategy.POLL)
            w.linked = false; // from here on its thread may register again, anywhere
            LockSupport.unpark(t);
            w = next;
        }
    }

    /**
     * A thread's entry in the list of a {@link WaitPoint}. One per thread, reused for every wait;
     * {@link #linked} until a {@link WaitPoint#wake()} takes it out.
     */
    static final class Waiter {
        private static final ThreadLocal<Waiter> CURRENT = ThreadLocal.withInitial(Waiter::new);

        final Thread thread = Thread.currentThread();
        /** The next waiter of the same point; written before the push, read by the waker. */
        Waiter next;
        /** In a point's list; set by the thread, cleared by the waker. */
        volatile boolean linked;
        /** The point of the last registration; the thread's own field. */
        WaitPoint at;
        /** The count of parked threads this thread is in ({@link #count}), or null: taken off once, by it or by its waker. */
        private final AtomicReference<AtomicInteger> counted = new AtomicReference<>();

        private Waiter() {}

        /** Adds the thread, about to park, to {@code parked}; {@link #uncount} takes it off again. */
        void count(AtomicInteger parked) {
            counted.set(parked);   // first: whoever sees the thread counted can take it off (a waker in between leaves -1, then 0)
            parked.incrementAndGet();
        }

        /** Takes the thread off the count it is in, if it still is: exactly once per {@link #count}, whoever calls first. */
        void uncount() {
            if (counted.get() == null) return;   // not counted (every strategy but POLL): no atomic write
            AtomicInteger parked = counted.getAndSet(null);
            if (parked != null) parked.decrementAndGet();
        }

        /**
         * @return the calling thread's waiter, ready to register at {@code p}: if it is still linked
         *         at another point (its last wait ended before that point's wake took it out), the
         *         thread gets a new one (rare; the old one is dropped when that wake comes)
         */
        static Waiter current(WaitPoint p) {
            Waiter w = CURRENT.get();
            if (w.linked && w.at != p) {
                w = new Waiter();
                CURRENT.set(w);
            }
            return w;
        }
    }
}
