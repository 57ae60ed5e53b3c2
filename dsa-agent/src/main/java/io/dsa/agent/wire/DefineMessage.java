package io.dsa.agent.wire;

/**
 * Monitor to every node after a new registration: the object's definition, so a home node can
 * serve requests for it before it has created the object itself. Fields as in {@link RegisterMessage}.
 */
public record DefineMessage(int kind, int objectId, int home, String name, long[] params) implements WireMessage {}
