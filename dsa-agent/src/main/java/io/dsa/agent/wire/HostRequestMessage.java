package io.dsa.agent.wire;

/**
 * A request about a host's agents as a whole, answered by a {@link HostStatusMessage} (for
 * {@link #STATUS}) or a {@link HostReplyMessage} with the same id. The steps at one agent (a
 * move's, a cloning's, a read) are {@link NodeRequestMessage}s; the agent transfer itself is
 * {@link TransferMessage}s.
 *
 * @param requestId the sender's id of this request
 * @param op {@link #STATUS} (vmName: only this VM, or null for all), {@link #STOP_VM} (stop this
 *        host's agents of vmName; target: the stop token their launcher received in
 *        {@link HostJobEventMessage#ACCEPTED}), {@link #WORKERS} and {@link #COUNTERS} (of
 *        vmName's agents here)
 * @param vmName the VM concerned, or null
 * @param nodeId -1 (no op concerns one node)
 * @param target the stop token of {@link #STOP_VM}, else null
 */
public record HostRequestMessage(long requestId, int op, String vmName, int nodeId, String target)
        implements WireMessage {
    /** List the agents this host serves; answered by a {@link HostStatusMessage}. */
    public static final int STATUS = 1;
    /** Stop this host's agents of a VM that were submitted with the stop token in target; refused without it. */
    public static final int STOP_VM = 2;
    /** Where the workers of this host's agents of vmName are; reply: one row per line of {@code DsaAgent.workerLines()}. */
    public static final int WORKERS = 12;
    /** The counts of this host's agents (of vmName, or all if null); reply rows as {@code io.dsa.agent.metrics.CountsRows}. */
    public static final int COUNTERS = 13;
}
