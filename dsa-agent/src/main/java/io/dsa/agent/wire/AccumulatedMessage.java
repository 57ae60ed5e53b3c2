package io.dsa.agent.wire;

/** Home to node: the {@link AccumulateMessage} {@code requestId} was applied, or refused with {@code error} (empty when applied). */
public record AccumulatedMessage(long requestId, String error) implements WireMessage {}
