package io.dsa.agent.wire;

/**
 * Host to child (node 0), also as a {@link NodeRequestMessage} step from the host a clone goes to:
 * the id the next clone of the VM takes, answered with a {@link CloneIdMessage}. Node 0 hands out
 * each id once, above every node's and every connected clone's (docs/hosts.md, "Cloning"), so two
 * clones never share one, whichever hosts their commands named.
 */
public record AllocateCloneIdMessage(long requestId) implements AgentControlMessage {}
