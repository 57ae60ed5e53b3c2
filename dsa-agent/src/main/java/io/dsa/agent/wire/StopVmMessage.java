package io.dsa.agent.wire;

/**
 * Launcher to host: stop this host's agents of a VM; answered by a {@link HostReplyMessage} (ok,
 * with how many were stopped; or refused). Refused unless the token is the one the VM's launcher
 * received in {@link HostJobEventMessage#ACCEPTED}.
 *
 * @param requestId the sender's id of this request
 * @param vmName the VM
 * @param stopToken the stop token, or null (refused)
 */
public record StopVmMessage(long requestId, String vmName, String stopToken) implements WireMessage {}
