package io.dsa.agent.wire;

/**
 * Launcher to host: the counts of this host's agents ({@code dsa status --watch}); answered by a
 * {@link HostReplyMessage} with rows as {@code io.dsa.agent.metrics.CountsRows} writes them.
 *
 * @param requestId the sender's id of this request
 * @param vmName the VM, or null for all
 */
public record CountersQueryMessage(long requestId, String vmName) implements WireMessage {}
