package io.dsa.agent.wire;

import java.util.List;

/**
 * Monitor to every node once all have joined: the membership view. {@code addresses.get(i)} is
 * node i's {@code host:port}.
 */
public record ViewMessage(int threadsPerNode, List<String> addresses) implements WireMessage {}
