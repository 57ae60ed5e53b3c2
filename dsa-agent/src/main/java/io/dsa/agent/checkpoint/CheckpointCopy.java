package io.dsa.agent.checkpoint;

/**
 * One node's part of a complete checkpoint, held in memory by a clone of the node
 * (docs/failures.md, "Clone promotion"): the checkpoint's manifest, which lists the clone's copy,
 * and the node's payload, checked against that entry. A node of a restarted VM can start from it
 * instead of from its file ({@code DsaAgent.restart(DsaConfig, CheckpointCopy)}).
 *
 * @param manifest the checkpoint's manifest
 * @param node the node whose payload this is
 * @param payload the node's {@code AgentState}, encoded (not copied: do not change it)
 */
public record CheckpointCopy(CheckpointManifest manifest, int node, byte[] payload) {}
