package io.dsa.agent.wire;

/** Home to node: the {@link DiffMessage} {@code requestId} was applied, or refused with {@code error} (empty when applied). */
public record DiffAppliedMessage(long requestId, String error) implements WireMessage {}
