package io.dsa;

/**
 * A worker thread's identity and its collective operations. A {@code DsaWorker} belongs to one
 * thread: call its methods only from the thread running {@link DsaProgram#work(DsaWorker)}.
 *
 * <p>Collectives are performed in unison: every worker of the VM must call the same collective
 * in the same order. Results are bit-identical on every worker: values are combined in thread-id
 * order, once.
 *
 * <p>Every collective (reductions, scans, broadcasts, gathers, votes) is one round of the global
 * barrier whose messages carry the values, and it orders memory exactly like {@link #barrier()}:
 * every shared-array write, shared-variable operation and lock release a worker made before it
 * entered the collective is visible to every worker after the collective returns, and it counts as
 * a barrier in {@link #epoch()}. A program may therefore use an {@code allReduce} where it would
 * otherwise need a barrier followed by a reduction, and pays one round for both.
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

    /**
     * Opens a scope in which each of {@code uses} names how its array behaves until the scope
     * closes (docs/consistency.md); use try-with-resources. Every worker of the VM opens the same
     * scopes in the same order: opening waits for all of them, like a barrier.
     *
     * @throws IllegalArgumentException if an array appears twice, or is already used by an
     *         enclosing scope of this worker (the message names both uses)
     * @throws DsaException if the workers opened different scopes (the message names both)
     */
    DsaScope scope(ArrayUse... uses);

    /**
     * Opens a group scope: as {@link #scope}, but its opening and closing (and each
     * {@link DsaScope#next} on it) synchronise only the workers of {@code nodes}, every worker of
     * each, through a group barrier; the other workers go on meanwhile and must not touch the
     * scope's arrays until it closes (a race, as any data race). The group's workers open the same
     * group scopes in the same order; their uses are not compared (a group barrier carries no
     * values), and a {@link DsaScope#next} on a group scope cannot carry a reduction. While a
     * group scope is open at a worker, its global barrier and every global collective (and a
     * global scope) throw {@link IllegalStateException}: no global round, so no migration or
     * cloning, passes while a group scope is open. Semantics in docs/consistency.md ("Group scopes").
     *
     * @param nodes the group's node ids, ascending and distinct, including this worker's node
     * @throws IllegalArgumentException for a bad {@code nodes} (the message names them and the
     *         valid range), or as {@link #scope}
     */
    DsaScope groupScope(int[] nodes, ArrayUse... uses);

    /** Combines every worker's {@code value} with {@code op} (in thread-id order) and returns it to all. */
    double allReduce(double value, ReduceOp op);

    /** {@link #allReduce(double, ReduceOp)} for longs. */
    long allReduce(long value, ReduceOp op);

    /**
     * Element-wise {@link #allReduce(double, ReduceOp)} of several values in one collective (one
     * barrier round, whatever the length): element {@code j} of the result combines every worker's
     * {@code values[j]} with {@code op} in thread-id order, so the result is bit-identical on every
     * worker and equal to {@code values.length} scalar reductions. Every worker must pass an array
     * of the same length; otherwise the job fails with a {@code DsaException} that names both
     * lengths (a length of 0 is a plain barrier). The caller's array is not changed.
     *
     * @param values this worker's contribution; read before this method waits
     * @param op SUM, MIN, MAX or PROD (the bitwise ops are for longs only)
     * @return a new array of {@code values.length} results
     * @throws DsaException for a bitwise {@code op}, before anyone waits, or when the job fails
     */
    double[] allReduce(double[] values, ReduceOp op);

    /**
     * {@link #allReduce(double[], ReduceOp)} for longs; every {@link ReduceOp}, AND, OR and XOR included.
     *
     * @return a new array of {@code values.length} results
     */
    long[] allReduce(long[] values, ReduceOp op);

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
