package io.dsa.agent.wire;

/**
 * Host to child: how many partitions the agent homes and caches, and optionally more; answered by
 * an {@link AgentStatusMessage}.
 *
 * @param detail what the answer's rows carry: {@link #COUNTS_ONLY} (none), {@link #WORKERS} (one
 *        row per line of {@code DsaAgent.workerLines()}), {@link #COUNTERS} (the node's counts as
 *        {@code io.dsa.agent.metrics.CountsRows} writes them)
 */
public record AgentStatusQueryMessage(long requestId, int detail) implements AgentControlMessage {
    public static final int COUNTS_ONLY = 0;
    public static final int WORKERS = 1;
    public static final int COUNTERS = 2;

    /** A query for the partition counts only. */
    public AgentStatusQueryMessage(long requestId) { this(requestId, COUNTS_ONLY); }
}
