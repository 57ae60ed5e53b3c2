package io.dsa.agent.wire;

/**
 * One call of an {@code AgentMonitor} handler on another host, answered by a
 * {@link HostReplyMessage} with the same id (carrying the job or the state for
 * {@link #BEGIN_TRANSFER} and {@link #TRANSFER_AGENT}). Only an authenticated peer may send it.
 * {@link #REQUEST_TRANSFER} and {@link #REQUEST_CLONE} go to the new host (from {@code dsa
 * migrate}/{@code dsa clone}); the others go from the new host to the agent's current host.
 *
 * @param requestId the sender's id of this call
 * @param op which handler: {@link #REQUEST_TRANSFER}, {@link #BEGIN_TRANSFER},
 *        {@link #TRANSFER_AGENT}, {@link #END_TRANSFER}, {@link #REQUEST_CLONE}, {@link #END_CLONING}, {@link #ABORT_TRANSFER}
 * @param agentId the agent, {@code vm/node}
 * @param fromMonitor for the requests: the agent's current host, {@code host:port}; else the caller's
 * @param payload {@link #REQUEST_TRANSFER}, {@link #REQUEST_CLONE}: the VM's hosts, comma-separated
 *        UTF-8 (may be empty); {@link #BEGIN_TRANSFER}: {@code clone} for a cloning, else empty;
 *        {@link #TRANSFER_AGENT} of a cloning: the clone's node id in decimal; else empty
 */
public record TransferMessage(long requestId, int op, String agentId, String fromMonitor, byte[] payload)
        implements WireMessage {
    /** To the new host: acquire the agent from {@code fromMonitor}. */
    public static final int REQUEST_TRANSFER = 1;
    /** To the current host: reach a safe point, reply with the job. */
    public static final int BEGIN_TRANSFER = 2;
    /** To the current host: reply with the agent's state. */
    public static final int TRANSFER_AGENT = 3;
    /** To the current host: the new copy runs; stop yours. */
    public static final int END_TRANSFER = 4;
    /** To the new host: start a clone of the agent of {@code fromMonitor}. */
    public static final int REQUEST_CLONE = 5;
    /** To the current host: the clone runs; resume yours. */
    public static final int END_CLONING = 6;
    /** To the current host: the new host gave up; resume yours. */
    public static final int ABORT_TRANSFER = 7;
}
