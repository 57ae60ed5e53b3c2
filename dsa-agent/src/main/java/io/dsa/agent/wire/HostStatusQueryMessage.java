package io.dsa.agent.wire;

/**
 * Launcher or host to host: list the agents this host serves (and recently ended); answered by a
 * {@link HostStatusMessage} with the same id.
 *
 * @param requestId the sender's id of this request
 * @param vmName only this VM's agents, or null for all
 */
public record HostStatusQueryMessage(long requestId, String vmName) implements WireMessage {}
