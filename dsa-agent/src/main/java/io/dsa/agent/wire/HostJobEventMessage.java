package io.dsa.agent.wire;

import java.util.List;

/**
 * Host to launcher: what became of a job started by a {@link HostJobMessage}.
 *
 * @param jobId the launcher's id of the job
 * @param nodeId the node
 * @param event {@link #STARTED} (text: the agent's {@code host:port}), {@link #DONE} (lines: the
 *        report on node 0; timings: startup and run nanoseconds) or {@link #FAILED} (text: why)
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
}
