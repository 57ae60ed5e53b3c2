package io.dsa.agent.wire;

/**
 * Launcher to host: stop this host's agents of a VM; answered by a {@link HostReplyMessage} (ok,
 * with how many were stopped; or refused). Refused unless the token is the one the VM's launcher
 * received in {@link HostJobEventMessage#ACCEPTED}.
 *
 * @param requestId the sender's id of this request
 * @param vmName the VM
 * @param stopToken the stop token, or null (refused)
 * @param keep the clones of the VM (by id) that are not stopped: a launcher restarting the VM
 *        promotes them to the nodes they copy (docs/failures.md, "Clone promotion"); usually empty
 */
public record StopVmMessage(long requestId, String vmName, String stopToken, long[] keep) implements WireMessage {
    /** A stop of every agent of the VM. */
    public StopVmMessage(long requestId, String vmName, String stopToken) { this(requestId, vmName, stopToken, new long[0]); }
}
