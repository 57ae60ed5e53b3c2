package io.dsa;

import java.util.List;

/**
 * An SPMD program: what {@code dsa run} launches. One instance is created per node.
 *
 * <p>{@link #setup(DsaNode)} runs once per node before that node's workers start (create shared
 * arrays and variables there); {@link #work(DsaWorker)} is the body every worker thread runs.
 * Any exception thrown by either fails the whole job. {@link #validate(List, int, int)} checks the
 * arguments before any node starts.
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

    /**
     * Checks the program's arguments before any node of the virtual machine starts: {@code dsa run}
     * and {@code dsa node} call it on a fresh instance in the launching process, and print the
     * message of an {@link IllegalArgumentException} as a usage error (exit code 2) without
     * starting anything. Parse the arguments here the way {@link #setup(DsaNode)} does (one
     * method both call keeps them the same), but create nothing: it runs once, not per node.
     *
     * <p>Called on the launching thread, before {@link #setup(DsaNode)} and on another instance.
     *
     * @param args the program's arguments, as {@link DsaNode#args()} will return them
     * @param nodes the virtual machine's nodes, at least 1
     * @param threadsPerNode worker threads per node, at least 1
     * @throws IllegalArgumentException naming the bad argument, its value and the valid range,
     *         e.g. {@code "partitionSize 1024 out of range [1, 512]"}
     */
    default void validate(List<String> args, int nodes, int threadsPerNode) {}
}
