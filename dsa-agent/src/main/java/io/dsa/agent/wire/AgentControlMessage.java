package io.dsa.agent.wire;

/**
 * A request from a host to the child JVM that runs one of its agents, over their authenticated
 * supervision connection (docs/hosts.md, "Process model"). The child answers each with a message
 * carrying the same {@link #requestId()}: {@link AgentStartedMessage}, {@link AgentStatusMessage},
 * or a {@link HostReplyMessage} (ok, or refused with the reason). One record per operation, one
 * handler per record in the child.
 */
public interface AgentControlMessage extends WireMessage {
    /** @return the host's id of this request, echoed by the answer */
    long requestId();
}
