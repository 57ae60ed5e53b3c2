package io.dsa.agent.wire;

/**
 * Launcher to host: where the workers of this host's agents of a VM are ({@code dsa status
 * --stacks}, a timed-out {@code dsa run --hosts}); answered by a {@link HostReplyMessage} whose
 * rows are lines for people, one per line of {@code DsaAgent.workerLines()}, printed as they are.
 *
 * @param requestId the sender's id of this request
 * @param vmName the VM, or null for all
 */
public record WorkersQueryMessage(long requestId, String vmName) implements WireMessage {}
