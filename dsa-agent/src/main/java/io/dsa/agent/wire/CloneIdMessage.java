package io.dsa.agent.wire;

/**
 * The answer to an {@link AllocateCloneIdMessage} (child to host, and host to host with the
 * caller's request id).
 *
 * @param requestId the request's id
 * @param cloneId the id the clone takes, at least the VM's node count
 */
public record CloneIdMessage(long requestId, int cloneId) implements WireMessage {}
