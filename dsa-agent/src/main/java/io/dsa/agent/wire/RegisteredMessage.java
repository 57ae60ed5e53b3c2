package io.dsa.agent.wire;

/**
 * Monitor to node: the answer to a {@link RegisterMessage}.
 *
 * @param objectId the object's id, or -1 on error
 * @param home the node where the object lives (variables, locks), or -1
 * @param error empty on success, else why the registration failed (e.g. both shapes)
 */
public record RegisteredMessage(long requestId, int objectId, int home, String error) implements WireMessage {}
