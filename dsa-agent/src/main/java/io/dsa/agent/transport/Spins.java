package io.dsa.agent.transport;

/**
 * How a spinning thread of a node (a worker waiting, the lane poller, the idle I/O thread) between
 * its looks uses the core: {@link Thread#onSpinWait()}, and {@link Thread#yield()} now and then
 * only in a spin without bound (docs/runtime.md, "Spins do not yield").
 *
 * <p>A spin without bound (the SPIN strategy) must yield: on a machine with fewer cores than
 * spinning threads, the thread a spinner waits for may need its core, and without the yields it
 * gets it only when the scheduler's slice ends (an 8 KiB read miss took 8 ms on two cores). A
 * bounded spin must not: Linux's fair scheduler since 6.6 (EEVDF) sends a thread that yields
 * behind every other runnable thread of its core for a slice, hundreds of microseconds, where the
 * bound would have ended the spin after tens.
 */
public final class Spins {
    /** An endless spin yields every this many turns. */
    public static final int YIELD_EVERY = 128;

    private Spins() {}

    /**
     * @param spinNs the spin's bound, {@link Long#MAX_VALUE} for none
     * @param turn the turns spun so far
     * @return whether the spinner yields at this turn (else it calls {@link Thread#onSpinWait()})
     */
    public static boolean yieldsAt(long spinNs, long turn) {
        return spinNs == Long.MAX_VALUE && turn % YIELD_EVERY == 0;
    }

    /** One turn of a spin bounded by {@code spinNs}: yields ({@link #yieldsAt}) or spins in place. */
    public static void turn(long spinNs, long turn) {
        if (yieldsAt(spinNs, turn)) Thread.yield();
        else Thread.onSpinWait();
    }
}
