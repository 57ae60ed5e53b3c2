package io.dsa.agent.wire;

import java.util.List;

/**
 * Host to launcher: what became of a job started by a {@link HostJobMessage}.
 *
 * @param jobId the launcher's id of the job
 * @param nodeId the node
 * @param event {@link #ACCEPTED} (text: the stop token; lines: notes on the limits the host
 *        applied), {@link #STARTED} (text: the agent's {@code host:port}), {@link #DONE} (lines:
 *        the report on node 0; timings: startup and run nanoseconds), {@link #FAILED} (text: why),
 *        {@link #EXITED} (text: how the node's process ended), {@link #PROGRESS} (text: the line),
 *        {@link #CHECKPOINTED} (node 0; text: the epoch; lines: the directory on its host, then the host of
 *        each clone current at that epoch; timings: each such clone's node and clone id, in pairs) or
 *        {@link #RESUMED} (node 0 of a VM restarted from a checkpoint; text: the epoch)
 * @param text see {@code event}
 * @param lines see {@code event}; empty when unused
 * @param timings see {@code event}; empty when unused
 */
public record HostJobEventMessage(long jobId, int nodeId, int event, String text, List<String> lines, long[] timings)
        implements WireMessage {
    /** The node's agent is listening; text is its address. */
    public static final int STARTED = 1;
    /** The node's workers finished and the job succeeded. */
    public static final int DONE = 2;
    /** The node could not start, or the job failed; text says why. */
    public static final int FAILED = 3;
    /**
     * The host took the job: text is its stop token (32 hex digits, 128 random bits), which a
     * {@link StopVmMessage} for this VM must carry; lines are notes on the heap and
     * processors the host granted when it capped the request (empty otherwise).
     */
    public static final int ACCEPTED = 4;
    /**
     * The node's JVM ended before its job did (the program called {@code System.exit}, ran out of
     * memory, or crashed); text says how. Fails the job like {@link #FAILED}, and is its cause.
     */
    public static final int EXITED = 5;
    /**
     * A progress line of the node's program ({@link io.dsa.DsaNode#progress(String)}; text: the
     * line); the job goes on. A host passes on at most one per node every
     * {@link io.dsa.DsaNode#PROGRESS_INTERVAL_MS} ms, of at most {@link #MAX_PROGRESS_CHARS} characters.
     */
    public static final int PROGRESS = 6;
    /**
     * Node 0 of a VM on hosts with checkpoints: the checkpoint at the epoch in text is complete
     * (every node's file, every buddy copy and every host's manifest written; docs/failures.md,
     * "Checkpoints on hosts"); lines: its directory on node 0's host. Passed on unthrottled (the
     * launcher restarts from the newest one it heard of); the job goes on.
     */
    public static final int CHECKPOINTED = 7;
    /**
     * Node 0 of a VM restarted from a checkpoint: the VM formed again and its workers resume at
     * the epoch in text. Passed on unthrottled; the job goes on.
     */
    public static final int RESUMED = 8;
    /** Longest progress line a host passes on; longer ones are cut. */
    public static final int MAX_PROGRESS_CHARS = 1000;
}
