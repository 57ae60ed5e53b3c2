package io.dsa;

/**
 * An SPMD program: what {@code dsa run} launches. One instance is created per node.
 *
 * <p>{@link #setup(DsaNode)} runs once per node before that node's workers start (create shared
 * arrays and variables there); {@link #work(DsaWorker)} is the body every worker thread runs.
 * Any exception thrown by either fails the whole job.
 */
public interface DsaProgram {
    /**
     * Per-node preparation, before the node's workers start. Shared objects are created here
     * collectively: every node makes the same calls.
     *
     * @param node this node's view of the virtual machine
     * @throws Exception to fail the job
     */
    default void setup(DsaNode node) throws Exception {}

    /**
     * The SPMD body, run by every worker thread of every node.
     *
     * @param worker the calling worker's identity and collectives
     * @throws Exception to fail the job
     */
    void work(DsaWorker worker) throws Exception;

    /**
     * Whether {@link #work(DsaWorker)} may be re-entered at {@code worker.epoch() > 0}
     * (after a live migration). Programs that return {@code true} must resume from the epoch.
     *
     * @return {@code false} unless the program supports resumption
     */
    default boolean resumable() { return false; }
}
