package io.dsa.agent.internal;

import io.dsa.DsaException;
import io.dsa.agent.WaitStrategy;
import io.dsa.agent.transport.Spins;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * How the threads of one node wait for a {@link WaitPoint} (a partition, a barrier, a reply), by
 * the VM's {@link WaitStrategy}: spin for a while ({@link Thread#onSpinWait()}), then register at
 * the point and park until it wakes them, at most {@link #POLL_NS} at a time so that a failed job
 * is noticed even if its wake-up were lost. Spinning checks for a failed job every few dozen turns.
 *
 * <p>The node's I/O thread must never wait here: it is what ends every wait. A program that blocks
 * on it (a dependent action of a future the I/O thread completes, doing a miss) gets a
 * {@link DsaException} instead of a node that hangs.
 */
class Waiting {
    /** Longest park before a waiter looks at the job again. */
    static final long POLL_NS = TimeUnit.MILLISECONDS.toNanos(NodeRuntime.POLL_MS);
    /** ADAPTIVE's spin while this JVM's node threads fit its cores: about one loopback round trip. */
    static final long SPARE_CORES_SPIN_NS = 50_000;
    /** ADAPTIVE's spin when they do not: long enough for a hand-off that is already running, no longer. */
    static final long OVERSUBSCRIBED_SPIN_NS = 1_000;
    private static final int CHECK_EVERY = 64;
    private static final int CORES = Runtime.getRuntime().availableProcessors();
    /** Worker and I/O threads of the nodes running in this JVM. */
    private static final AtomicInteger NODE_THREADS = new AtomicInteger();

    private final WaitStrategy strategy;
    /** The node threads its launcher runs on this machine ({@link io.dsa.agent.DsaConfig#machineThreads}), 0 if not said. */
    private final int machineThreads;
    private final JobLifecycle job;
    private final IoThread io;
    /** Longest park; 0 parks until woken (model checking: a lost wake-up then hangs instead of polling). */
    private final long parkNs;
    /** POLL: the node's parked threads, while any of which its I/O thread polls ({@link #anyParked}). */
    private final AtomicInteger parked = new AtomicInteger();
    private final boolean countParked;

    Waiting(WaitStrategy strategy, JobLifecycle job, IoThread io) {
        this(strategy, 0, job, io, POLL_NS);
    }

    Waiting(WaitStrategy strategy, int machineThreads, JobLifecycle job, IoThread io) {
        this(strategy, machineThreads, job, io, POLL_NS);
    }

    Waiting(WaitStrategy strategy, JobLifecycle job, IoThread io, long parkNs) {
        this(strategy, 0, job, io, parkNs);
    }

    private Waiting(WaitStrategy strategy, int machineThreads, JobLifecycle job, IoThread io, long parkNs) {
        this.strategy = strategy;
        this.machineThreads = machineThreads;
        this.job = job;
        this.io = io;
        this.parkNs = parkNs;
        this.countParked = strategy == WaitStrategy.POLL;
    }

    /** @return whether a thread of the node is parked now (counted under {@link WaitStrategy#POLL} only) */
    boolean anyParked() { return parked.get() > 0; }

    /** @return how many threads of the node are counted as parked now (tests) */
    int parkedNow() { return parked.get(); }

    /**
     * @throws JobLifecycle.MovedAway if this agent's node moved away
     * @throws DsaException if the job has failed
     */
    void checkStopped() { job.checkFailed(); }

    /** A node with {@code threads} runnable threads (workers and its I/O thread) starts in this JVM. */
    static void nodeStarted(int threads) { NODE_THREADS.addAndGet(threads); }

    /** A node that counted {@code threads} in {@link #nodeStarted} closed. */
    static void nodeClosed(int threads) { NODE_THREADS.addAndGet(-threads); }

    /**
     * @param machineThreads the node threads the launcher runs on this machine, 0 if it did not say
     *        ({@link io.dsa.agent.DsaConfig#machineThreads})
     * @return how long a thread of this JVM spins under {@code strategy} before it parks:
     *         0 (PARK, POLL), forever (SPIN), or ADAPTIVE's bound for the machine's node threads (those of
     *         this JVM, or {@code machineThreads} if more) and cores
     */
    static long spinNs(WaitStrategy strategy, int machineThreads) {
        return switch (strategy) {
            case PARK -> 0;
            case SPIN -> Long.MAX_VALUE;
            case ADAPTIVE -> spinNs(Math.max(NODE_THREADS.get(), machineThreads), CORES);
            case POLL -> 0;   // the I/O thread polls instead: NodeRuntime, IoLoop#pollWhile
        };
    }

    /**
     * The spin of a worker polling barrier lanes ({@link Lanes}): as {@link #spinNs(WaitStrategy, int)},
     * but ADAPTIVE counts only the workers among the machine's node threads, because the I/O
     * threads sleep while the lanes carry the barrier (nodes of {@code threadsPerNode} workers and
     * one I/O thread each).
     */
    static long laneSpinNs(WaitStrategy strategy, int machineThreads, int threadsPerNode) {
        if (strategy != WaitStrategy.ADAPTIVE) return spinNs(strategy, machineThreads);
        int nodeThreads = Math.max(NODE_THREADS.get(), machineThreads);
        return spinNs((int) ((long) nodeThreads * threadsPerNode / (threadsPerNode + 1)), CORES);
    }

    /**
     * POLL polls only where the machine's nodes, each with one polling I/O thread, fit its cores:
     * with more, the polling threads took the cores from each other and a 4 x 2 barrier on 2 cores
     * took 10 ms instead of 0.14 (docs/runtime.md, "POLL"); there POLL waits as PARK does. The
     * same answer at every node of a VM: it decides whether the VM has barrier lanes.
     *
     * @param machineThreads the node threads the launcher runs on this machine, 0 if it did not say
     *        (then every node of the VM is taken to share it)
     * @param nodes the VM's nodes
     * @param threadsPerNode the workers of each node
     * @param cores the machine's cores
     * @return whether the machine's nodes fit its cores
     */
    static boolean pollersFit(int machineThreads, int nodes, int threadsPerNode, int cores) {
        return (machineThreads > 0 ? machineThreads / (threadsPerNode + 1) : nodes) <= cores;
    }

    /** @return {@link #pollersFit(int, int, int, int)} for this machine's cores */
    static boolean pollersFit(int machineThreads, int nodes, int threadsPerNode) {
        return pollersFit(machineThreads, nodes, threadsPerNode, CORES);
    }

    /** ADAPTIVE's bound: spin only while every runnable thread can have a core. */
    static long spinNs(int runnableThreads, int cores) {
        return runnableThreads <= cores ? SPARE_CORES_SPIN_NS : OVERSUBSCRIBED_SPIN_NS;
    }

    WaitStrategy strategy() { return strategy; }

    /**
     * Waits until {@code p.version()} differs from {@code observed}, the job stops (fails, or the
     * node moved away), or about {@link #POLL_NS} passed; the caller looks at all three again.
     *
     * @throws DsaException if called on the node's I/O thread, or interrupted
     */
    void await(WaitPoint p, long observed) {
        if (io.isCurrent()) {
            throw new DsaException("a blocking DSA operation was called on the node's I/O thread (in a dependent action of"
                    + " a future the runtime completes?): run it with an executor of its own, e.g. thenRunAsync");
        }
        long spinNs = spinNs(strategy, machineThreads);
        if (spinNs == Long.MAX_VALUE) {
            spinDriving(p, observed);
            return;
        }
        if (spinNs > 0) {
            long start = System.nanoTime();
            for (int turn = 1; ; turn++) {
                if (p.version() != observed) return;
                if (turn % CHECK_EVERY == 0) {
                    if (job.stopped()) return;
                    if (System.nanoTime() - start >= spinNs) break;
                }
                Spins.turn(spinNs, turn);
            }
        }
        park(p, observed);
        if (Thread.interrupted()) {
            Thread.currentThread().interrupt();
            throw new DsaException("interrupted while waiting");
        }
    }

    /**
     * SPIN: spins until {@code p} changes or the job stops, running the node's I/O and tasks itself
     * at each turn where the I/O thread lends them ({@link IoThread#waitTurn}), so the reply it
     * waits for is read by the thread that waits for it (docs/runtime.md, "SPIN: the waiting
     * thread does the I/O"). It yields now and then ({@link Spins}) and never parks.
     */
    private void spinDriving(WaitPoint p, long observed) {
        io.waitBegins();
        try {
            for (int turn = 1; p.version() == observed; turn++) {
                if (turn % CHECK_EVERY == 0 && job.stopped()) return;
                if (!io.waitTurn() || Spins.yieldsAt(Long.MAX_VALUE, turn)) Spins.turn(Long.MAX_VALUE, turn);
            }
        } finally {
            io.waitEnds();
        }
    }

    /**
     * @return whether the node's spinning threads run its I/O while they wait, the I/O thread
     *         stepping aside meanwhile: SPIN, whose endless spins would otherwise share the cores
     *         with an I/O thread that spins too (docs/runtime.md, "SPIN: the waiting thread does the I/O")
     */
    static boolean waitersDriveIo(WaitStrategy strategy) { return strategy == WaitStrategy.SPIN; }

    /** Registers at {@code p}, looks at its version once more, and parks unless it changed. */
    void park(WaitPoint p, long observed) {
        WaitPoint.Waiter w = WaitPoint.Waiter.current(p);
        p.register(w);
        // after the registration: a change made before it is seen here, one made after it wakes us
        if (p.version() != observed || job.stopped()) return;
        if (!countParked) {
            block(p, observed);
            return;
        }
        w.count(parked);
        try {
            block(p, observed);
        } finally {
            w.uncount();   // unless the waker did
        }
    }

    /**
     * Parks the calling thread, registered at {@code p} after it saw {@code observed} there for the
     * last time, until {@code p}'s {@link WaitPoint#wake()} unparks it (or a spurious wake-up, or
     * {@code parkNs}). {@code PendingRequestLincheckTest} overrides it to wait, after a spurious
     * return, for the wake-up the thread is owed.
     */
    void block(WaitPoint p, long observed) {
        if (parkNs == 0) {
            LockSupport.park(p);
        } else {
            LockSupport.parkNanos(p, parkNs);
        }
    }
}
