package io.dsa.agent.internal;

/**
 * The thread of one worker, and what it is waiting for now: the runtime's own record of where a
 * worker is, set by the blocking paths (a partition miss, a barrier, a lock, a call to another
 * node) and read by {@link WorkerReports} when a job times out or {@code dsa status --stacks}
 * asks. Setting it costs plain field writes and one volatile write (no allocation: the record holds
 * references to objects that exist anyway, the description is built only when someone reads it).
 * Element hits never touch it.
 *
 * <p>The thread also names its row in the per-thread counters of every array of its node
 * ({@link ArrayCounters}), so a hit counts without a lookup.
 *
 * <p>Threads: the worker writes its record; any thread may read it ({@link #state}). A reader
 * sees the kind (volatile) and the details written before it; it re-reads the kind to notice a
 * change under its feet.
 */
final class WorkerThread extends Thread {
    /** Runs the program's code: not waiting in the runtime. */
    static final int RUNNING = 0;
    /** In a global barrier (or a collective); detail: the generation, which is the worker's epoch. */
    static final int GLOBAL_BARRIER = 1;
    /** In the node's local barrier; detail: its generation. */
    static final int LOCAL_BARRIER = 2;
    /** In a group barrier; subject: its name; detail: its generation. */
    static final int GROUP_BARRIER = 3;
    /** Waiting for a partition; subject: the {@link ArrayState}; detail: partition, plus {@link #WRITE} for a write. */
    static final int PARTITION = 4;
    /** Waiting for a lock; subject: its name; detail: 0 behind another thread of this node, 1 asked its home (node 0). */
    static final int LOCK = 5;
    /** Waiting for a reply of another node; subject: what (a text); detail: the node. */
    static final int CALL = 6;
    /** The program's {@code work} returned. */
    static final int FINISHED = 7;
    /** The program's {@code work} threw. */
    static final int FAILED = 8;
    /** Marks a partition wait as a write (detail bit 32). */
    static final long WRITE = 1L << 32;

    final NodeRuntime rt;
    final int localIndex;
    /** This thread's row in every {@link ArrayCounters} of its node. */
    final int counterRow;
    /** The partitions this thread's current {@code gather} has checked (one call at a time). */
    final GatherScratch gather = new GatherScratch();

    private Object subject;
    private long detail;
    private long sinceNs;
    private volatile int kind = RUNNING;

    WorkerThread(NodeRuntime rt, int localIndex, Runnable body) {
        super(body, "dsa-worker-" + rt.nodeId + "-" + localIndex);
        this.rt = rt;
        this.localIndex = localIndex;
        this.counterRow = ArrayCounters.row(localIndex);
    }

    /**
     * The calling thread, if it is a worker of {@code rt} that runs the program's code, starts to
     * wait for {@code kind}.
     *
     * @return the worker whose record was set, to pass to {@link #resume}; null if the caller is not
     *         a worker or already waits for something (the outer, more telling, record stays)
     */
    static WorkerThread waitFor(int kind, Object subject, long detail) {
        if (!(Thread.currentThread() instanceof WorkerThread w) || w.kind != RUNNING) return null;
        w.subject = subject;
        w.detail = detail;
        w.sinceNs = System.nanoTime();
        w.kind = kind;
        return w;
    }

    /** Ends the wait {@link #waitFor} recorded; {@code w} may be null (nothing was recorded). */
    static void resume(WorkerThread w) {
        if (w != null) w.kind = RUNNING;
    }

    /** The program's {@code work} returned ({@code failed}: threw); read by reports. */
    void ended(boolean failed) { kind = failed ? FAILED : FINISHED; }

    /** What a worker is doing, as read at one moment: {@link #kind} and its details. */
    record State(int kind, Object subject, long detail, long sinceNs) {
        boolean unfinished() { return kind != FINISHED && kind != FAILED; }
    }

    /** @return the record as it stands (a consistent reading: retried while the worker changes it) */
    State state() {
        for (int attempt = 0; ; attempt++) {
            int k = kind;
            Object s = subject;
            long d = detail;
            long since = sinceNs;
            if (k == kind || attempt == 10) return new State(k, k == RUNNING ? null : s, d, since);
        }
    }
}
