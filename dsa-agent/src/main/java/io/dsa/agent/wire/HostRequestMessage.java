package io.dsa.agent.wire;

/**
 * A control request to a host, answered by a {@link HostReplyMessage} with the same id.
 *
 * @param requestId the sender's id of this request
 * @param op {@link #STATUS} (vmName: only this VM, or null for all) or {@link #STOP_VM} (stop this
 *        host's agents of vmName); transfers are {@link TransferMessage}s
 * @param vmName the VM concerned, or null
 * @param nodeId the node concerned, or -1
 * @param target a host's {@code host:port}, or null
 */
public record HostRequestMessage(long requestId, int op, String vmName, int nodeId, String target)
        implements WireMessage {
    /** List the agents this host serves. */
    public static final int STATUS = 1;
    /** Stop this host's agents of a VM. */
    public static final int STOP_VM = 2;
}
