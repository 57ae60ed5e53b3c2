package io.dsa.agent.wire;

/**
 * One step of moving or cloning an agent between two hosts' {@code AgentMonitor}s, answered by a
 * {@link HostReplyMessage} with the same id. Only an authenticated host may send it.
 *
 * @param requestId the sender's id of this step
 * @param op which {@code AgentMonitor} handler: {@link #REQUEST_TRANSFER}, {@link #BEGIN_TRANSFER},
 *        {@link #TRANSFER_AGENT}, {@link #END_TRANSFER}, {@link #REQUEST_CLONE}, {@link #END_CLONING}
 * @param agentId the agent, {@code vm/node}
 * @param fromMonitor the sending host's {@code host:port}
 * @param payload the step's bytes: the job description for BEGIN_TRANSFER, the agent's versioned
 *        state for TRANSFER_AGENT; empty otherwise
 */
public record TransferMessage(long requestId, int op, String agentId, String fromMonitor, byte[] payload)
        implements WireMessage {
    /** Will the target take this agent? */
    public static final int REQUEST_TRANSFER = 1;
    /** The job the agent belongs to: its program and settings. */
    public static final int BEGIN_TRANSFER = 2;
    /** The agent's state. */
    public static final int TRANSFER_AGENT = 3;
    /** The transfer is complete: the target's copy becomes the agent. */
    public static final int END_TRANSFER = 4;
    /** Will the target take a clone of this agent? */
    public static final int REQUEST_CLONE = 5;
    /** The clone is complete: the target's copy joins as a new node. */
    public static final int END_CLONING = 6;
}
