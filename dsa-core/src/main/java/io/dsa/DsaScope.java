package io.dsa;

/**
 * A phase of a worker's code in which arrays behave as its {@link ArrayUse}s say, opened with
 * {@link DsaWorker#scope} and closed by {@link #close} (use try-with-resources). Opening and
 * closing are global synchronisation points: every worker of the VM opens the same scopes in the
 * same order, each opening and closing orders memory like a barrier (and counts as one in
 * {@link DsaWorker#epoch}), and a node moves or is cloned only between scopes. The semantics are
 * in docs/consistency.md. A scope belongs to the worker thread that opened it.
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
     * Closes the scope: the owner-computes arrays go back to the partitions, the release arrays'
     * buffered writes are written at their homes ({@link ArrayUse#release}), every array behaves
     * as before, and the worker waits for every worker of the VM to close it too; when it returns,
     * every worker reads every write made inside the scope. Idempotent.
     */
    @Override
    void close();
}
