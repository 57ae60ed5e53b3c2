package io.dsa.agent.wire;

/**
 * Node to its checkpoint buddy, during a checkpoint's write round on hosts (docs/failures.md,
 * "Checkpoints on hosts"): keep this copy of node {@code node}'s file of the checkpoint at
 * {@code epoch} on your host, as {@code buddy-<node>.snap} ({@code monitor.snap} for node 0's
 * monitor image, {@code node} -1). The buddy answers node 0 with a {@link StatusMessage#CHECKPOINTED}.
 *
 * @param epoch the checkpoint's epoch
 * @param node the node whose file this is, or -1 for the monitor's
 * @param payload the file's payload (the node's {@code AgentState}, or the monitor image), without header
 */
public record BuddyCopyMessage(long epoch, int node, byte[] payload) implements WireMessage {}
