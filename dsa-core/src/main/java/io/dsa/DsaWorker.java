package io.dsa;

/**
 * A worker thread's identity and its collective operations. A {@code DsaWorker} belongs to one
 * thread: call its methods only from the thread running {@link DsaProgram#work(DsaWorker)}.
 *
 * <p>Collectives are performed in unison: every worker of the VM must call the same collective
 * in the same order. Results are bit-identical on every worker: values are combined in thread-id
 * order, once.
 */
public interface DsaWorker {
    /** @return the node this worker runs on */
    DsaNode node();

    /** @return {@code 0 .. globalThreadCount-1}, node-major */
    int threadId();

    /** @return {@code 0 .. localThreadCount-1} */
    int localThreadId();

    /** @return this worker's node id */
    int nodeId();

    /** @return global barriers this worker has passed (the resume point after migration) */
    long epoch();

    /** The global barrier. */
    void barrier();

    /** Combines every worker's {@code value} with {@code op} (in thread-id order) and returns it to all. */
    double allReduce(double value, ReduceOp op);

    /** {@link #allReduce(double, ReduceOp)} for longs. */
    long allReduce(long value, ReduceOp op);

    /** Inclusive prefix: combines the values of threads {@code 0..threadId()} in order. */
    double scan(double value, ReduceOp op);

    /** {@link #scan(double, ReduceOp)} for longs. */
    long scan(long value, ReduceOp op);

    /** Returns the value passed by the worker whose thread id is {@code rootThreadId}. */
    double broadcast(double value, int rootThreadId);

    /** {@link #broadcast(double, int)} for longs. */
    long broadcast(long value, int rootThreadId);

    /**
     * Gathers every worker's {@code value}. One barrier.
     *
     * @return a new array of length {@code globalThreadCount}: element {@code t} is thread {@code t}'s value
     */
    double[] allGather(double value);

    /** {@link #allGather(double)} for longs. */
    long[] allGather(long value);

    /** Vote: one barrier. @return whether any worker passed {@code true} */
    boolean any(boolean flag);

    /** Vote: one barrier. @return whether every worker passed {@code true} */
    boolean all(boolean flag);

    /** Vote: one barrier. @return how many workers passed {@code true} */
    int count(boolean flag);

    /**
     * Vote: one barrier.
     *
     * @return the lowest thread id whose worker passed {@code true}, or {@code globalThreadCount} if none did
     */
    int first(boolean flag);
}
