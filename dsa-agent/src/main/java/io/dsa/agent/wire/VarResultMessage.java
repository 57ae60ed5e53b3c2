package io.dsa.agent.wire;

/** Home to node: the result bits of a {@link VarOpMessage}; {@code success} for compare-and-set. */
public record VarResultMessage(long requestId, long value, boolean success) implements WireMessage {}
