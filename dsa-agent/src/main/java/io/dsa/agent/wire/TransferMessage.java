package io.dsa.agent.wire;

import java.util.List;

/**
 * One call of an {@code AgentMonitor} handler on another host, answered with the same id by a
 * {@link TransferReportMessage} ({@link #REQUEST_TRANSFER}, {@link #REQUEST_CLONE}) or a
 * {@link HostReplyMessage} (carrying the job for {@link #BEGIN_TRANSFER}, the state for
 * {@link #TRANSFER_AGENT}; or a refusal). Only an authenticated peer may send it.
 * {@link #REQUEST_TRANSFER} and {@link #REQUEST_CLONE} go to the new host (from {@code dsa
 * migrate}/{@code dsa clone}); the others go from the new host to the agent's current host.
 *
 * @param requestId the sender's id of this call
 * @param op which handler: {@link #REQUEST_TRANSFER}, {@link #BEGIN_TRANSFER},
 *        {@link #TRANSFER_AGENT}, {@link #END_TRANSFER}, {@link #REQUEST_CLONE}, {@link #END_CLONING}, {@link #ABORT_TRANSFER}
 * @param agentId the agent, {@code vm/node}
 * @param fromMonitor for the requests: the agent's current host, {@code host:port}; else the caller's
 * @param vmHosts {@link #REQUEST_TRANSFER}, {@link #REQUEST_CLONE}: the hosts the VM's nodes may
 *        run on ({@code host:port} each; may be empty); else empty
 * @param cloning {@link #BEGIN_TRANSFER}: whether it begins a cloning (the agent runs on) rather than a move
 * @param cloneId {@link #TRANSFER_AGENT} of a cloning: the clone's node id; else -1
 */
public record TransferMessage(long requestId, int op, String agentId, String fromMonitor, List<String> vmHosts,
                              boolean cloning, int cloneId) implements WireMessage {
    public TransferMessage {
        vmHosts = List.copyOf(vmHosts);
    }

    /** A call without hosts, cloning mark or clone id. */
    public TransferMessage(long requestId, int op, String agentId, String fromMonitor) {
        this(requestId, op, agentId, fromMonitor, List.of(), false, -1);
    }

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
