package io.dsa.agent.wire;

/**
 * A control request to a host, answered by a {@link HostReplyMessage} with the same id.
 *
 * @param requestId the sender's id of this request
 * @param op {@link #STATUS} (vmName: only this VM, or null for all), {@link #STOP_VM} (stop this
 *        host's agents of vmName; target: the stop token their launcher received in
 *        {@link HostJobEventMessage#ACCEPTED}), or a step of a move that the new host coordinates on the VM's
 *        other hosts: {@link #HOLD_BARRIER}, {@link #RELEASE_BARRIER} (node 0), {@link #EXPECT_MOVE},
 *        {@link #AWAIT_MOVE}, {@link #COMMIT_MOVE}, {@link #ABANDON_MOVE} (every node but the moving
 *        one; target: the moving node's id, and for a commit {@code id@newAddress}); steps of a
 *        cloning: {@link #ADMIT_CLONE} (target: the clone's id), {@link #REGISTER_CLONE} (target:
 *        {@code cloneId|arrayId:p,p;arrayId:p}); {@link #READ_ARRAY} (target:
 *        {@code name\tfrom\tcount}, read through node nodeId's agent); {@link #WORKERS} and
 *        {@link #COUNTERS} (of vmName's agents here). The agent transfer itself
 *        is {@link TransferMessage}s
 * @param vmName the VM concerned, or null
 * @param nodeId the node concerned, or -1
 * @param target what {@code op} needs (see there), or null
 */
public record HostRequestMessage(long requestId, int op, String vmName, int nodeId, String target)
        implements WireMessage {
    /** List the agents this host serves. */
    public static final int STATUS = 1;
    /** Stop this host's agents of a VM that were submitted with the stop token in target; refused without it. */
    public static final int STOP_VM = 2;
    /** Node 0: hold the next global barrier's release; reply once every worker waits there. */
    public static final int HOLD_BARRIER = 3;
    /** Node 0: release the held barrier. */
    public static final int RELEASE_BARRIER = 4;
    /** Node j: the moving node's new agent is about to dial; hold its connection aside. */
    public static final int EXPECT_MOVE = 5;
    /** Node j: reply once the moving node's new agent's connection arrived. */
    public static final int AWAIT_MOVE = 6;
    /** Node j: the new agent is the node now (target {@code id@address}). */
    public static final int COMMIT_MOVE = 7;
    /** Node j: the move failed; drop the new agent's connection, keep the old one. */
    public static final int ABANDON_MOVE = 8;
    /** Node j: accept messages and a connection from a clone's node id. */
    public static final int ADMIT_CLONE = 9;
    /** Node j: register the clone as a sharer of the partitions it holds that are homed at j. */
    public static final int REGISTER_CLONE = 10;
    /** Read elements of an array through this node's (or clone's) agent; reply rows {@code index\tvalue}. */
    public static final int READ_ARRAY = 11;
    /** Where the workers of this host's agents of vmName are; reply: one row per line of {@code DsaAgent.workerLines()}. */
    public static final int WORKERS = 12;
    /** The counts of this host's agents (of vmName, or all if null); reply rows as {@code io.dsa.agent.metrics.CountsRows}. */
    public static final int COUNTERS = 13;
}
