package io.dsa.agent.wire;

import java.util.Objects;

/**
 * A request to a host to perform one typed step at one of its agents: a step of a move or a
 * cloning that the new host coordinates on the VM's other hosts ({@link HoldBarrierMessage},
 * {@link ReleaseBarrierMessage} at node 0; {@link ExpectMoveMessage}, {@link AwaitMoveMessage},
 * {@link CommitMoveMessage}, {@link AbandonMoveMessage}, {@link AdmitCloneMessage},
 * {@link RegisterCloneMessage} at every other node) or a read ({@link ReadArrayMessage}, from
 * {@code dsa read}). The host hands the step to the agent's JVM under its own request id and
 * passes the answer back with this request's id ({@link #requestId()}, the step's): a
 * {@link HostReplyMessage} (ok or refused), or an {@link ElementsMessage} for a read.
 *
 * @param vmName the VM of the agent, never null
 * @param nodeId the agent's node (or clone) id
 * @param step the step; its request id is this request's id
 */
public record NodeRequestMessage(String vmName, int nodeId, AgentControlMessage step) implements WireMessage {
    public NodeRequestMessage {
        Objects.requireNonNull(vmName, "vmName");
        Objects.requireNonNull(step, "step");
    }

    /** @return the sender's id of this request: the step's */
    public long requestId() { return step.requestId(); }
}
