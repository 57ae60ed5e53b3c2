package io.dsa;

/**
 * A phase of a worker's code in which arrays behave as its {@link ArrayUse}s say, opened with
 * {@link DsaWorker#scope} and closed by {@link #close} (use try-with-resources). Opening and
 * closing are global synchronisation points: every worker of the VM opens the same scopes in the
 * same order, each opening and closing orders memory like a barrier (and counts as one in
 * {@link DsaWorker#epoch}), and a node moves or is cloned only between scopes. A group scope
 * ({@link DsaWorker#groupScope}) synchronises only the workers of its nodes, through a group
 * barrier that does not count in the epoch. The semantics are in docs/consistency.md. A scope
 * belongs to the worker thread that opened it.
 */
public interface DsaScope extends AutoCloseable {
    /**
     * @return partition {@code partition} of an {@link ArrayUse#ownerComputes} array, homed at
     *         this node, as a plain array (row-major within the partition), shared by the node's
     *         workers: each writes only the elements it owns. Written back when the scope closes.
     * @throws IllegalArgumentException if the array is not owner-computes in this scope, or the
     *         partition is not homed at this node (the message lists the node's partitions)
     */
    double[] local(SharedDoubleArray array, int partition);

    /** {@link #local(SharedDoubleArray, int)} for {@code float} arrays. */
    float[] local(SharedFloatArray array, int partition);

    /** {@link #local(SharedDoubleArray, int)} for {@code int} arrays. */
    int[] local(SharedIntArray array, int partition);

    /** {@link #local(SharedDoubleArray, int)} for {@code long} arrays. */
    long[] local(SharedLongArray array, int partition);

    /**
     * Closes this scope and opens the next one, over {@code uses}, at one synchronisation point:
     * one global round where {@link #close} and {@link DsaWorker#scope} would cost two (it counts
     * as one barrier in {@link DsaWorker#epoch}; a group scope's switch is one group barrier and
     * stays in the group). Everything {@link #close} guarantees holds when
     * the next scope opens (buffered writes applied, owner-computes arrays written back), and the
     * next scope opens as {@link DsaWorker#scope} would. Every worker calls it on the same scope
     * with the same uses; the node moves or is cloned neither before nor after it while the
     * scopes last. This scope must be the worker's innermost; the returned scope takes its place
     * (close it, or call {@code next} on it, as usual).
     *
     * @return the next scope, open
     * @throws IllegalStateException if this scope is closed, not the innermost, or not this thread's
     * @throws IllegalArgumentException as {@link DsaWorker#scope} for the next uses
     * @throws DsaException if the workers named different next scopes, or the job fails
     */
    DsaScope next(ArrayUse... uses);

    /**
     * {@link #next(ArrayUse...)} whose round also all-reduces {@code values}, as
     * {@link DsaWorker#allReduce(double[], ReduceOp)} would (element-wise, every worker's values
     * folded with {@code op} in thread-id order, the same bits at every worker): a program that
     * needs a reduction where a scope ends pays one round for both. The reduced values replace
     * {@code values} in place when the call returns. Every worker passes the same length.
     *
     * @return the next scope, open
     * @throws DsaException if {@code op} does not apply to doubles (a bitwise op; before any
     *         worker waits), or as {@link #next(ArrayUse...)}
     * @throws IllegalStateException or IllegalArgumentException as {@link #next(ArrayUse...)}
     */
    DsaScope next(double[] values, ReduceOp op, ArrayUse... uses);

    /**
     * Closes the scope: the owner-computes arrays go back to the partitions, the release arrays'
     * buffered writes are written at their homes ({@link ArrayUse#release}), every array behaves
     * as before, and the worker waits for every worker of the VM (of the group, for a group scope)
     * to close it too; when it returns, every worker that waited reads every write made inside
     * the scope. Idempotent.
     */
    @Override
    void close();
}
