package io.dsa.agent;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The tests' wait for a condition that gives no notification (a node's internal state, a count a
 * network keeps): probes it every millisecond until it holds, and fails naming it after a deadline.
 * Use it instead of sleeping for a time and hoping; a condition with a future or a latch waits on that.
 */
public final class Await {
    private Await() {}

    /**
     * Returns once {@code condition} holds; probes it on the calling thread, every millisecond.
     *
     * @throws AssertionError naming {@code what} if it does not hold within {@code timeoutMs}
     */
    public static void until(String what, long timeoutMs, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) throw new AssertionError(what + ": not within " + timeoutMs + " ms");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }
}
