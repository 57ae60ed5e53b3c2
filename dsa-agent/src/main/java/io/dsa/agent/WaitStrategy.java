package io.dsa.agent;

/**
 * How a node's threads wait for the network: a worker for a partition (a miss), a barrier or
 * collective's release, a lock grant or a shared variable's reply, and the node's I/O thread for
 * its next message or task. Set per VM with {@link DsaConfig.Builder#waitStrategy} or
 * {@code dsa run --wait}. Every strategy wakes exactly the threads whose wait is over, and every
 * waiting thread notices a failed job within a bound (about 50 ms, much less when spinning).
 *
 * <p>On a machine with a core to spare per thread, spinning saves the tens of microseconds it
 * costs to wake a parked thread on another core; on an oversubscribed machine a spinning thread
 * takes the core from the thread it waits for. The runtime's measurements are in
 * {@code docs/runtime.md}, "Waiting".
 */
public enum WaitStrategy {
    /** Park at once; the thread that ends the wait unparks the waiter. Uses no CPU while waiting. */
    PARK,
    /**
     * Spin ({@link Thread#onSpinWait()}), yielding the core now and then so that a thread sharing
     * it can run; never park. A spinning thread runs its node's I/O and tasks itself while it
     * waits, as an MPI rank progresses its messages inside its calls: the reply to its miss is read
     * by the thread that waits for it, and the node's I/O thread steps aside (it busy-polls only
     * while no thread of the node waits, and takes its work back within a millisecond of the last
     * wait's end, so a node whose threads all compute reads its messages that late at worst). For
     * machines with a core per worker; see docs/runtime.md, "SPIN: the waiting thread does the I/O".
     */
    SPIN,
    /**
     * Spin for a bounded time, then park. The bound follows the machine: tens of microseconds
     * when this JVM's nodes have no more runnable threads (workers and I/O threads) than cores,
     * about a microsecond when they have more. The default.
     */
    ADAPTIVE,
    /**
     * Workers park at once, and the node's I/O thread polls its sockets without blocking while any
     * of them is parked, blocking only when none is; the node opens no barrier lanes, so every
     * message comes through that thread. A message for a waiting node then finds its I/O thread awake, where waking a thread on another core
     * costs tens of microseconds on some machines ({@code dsa bench handoff}). Whoever ends a
     * wait takes the waiter off the count at once, so the I/O thread stops polling before the
     * waiter runs. Only where the machine's nodes fit its cores (else it waits as {@link #PARK}
     * does); best with {@code --bind-cores} ({@link DsaConfig.Builder#bindCores}), where a node's
     * worker and I/O thread share its cores and the polling only fills the time the worker is
     * parked; see docs/runtime.md, "POLL".
     */
    POLL
}
