package io.dsa.agent.wire;

/**
 * Node to a shared variable's home: execute one operation atomically.
 *
 * @param op {@link #GET}, {@link #SET}, {@link #GET_AND_ADD}, {@link #COMPARE_AND_SET}, {@link #ACCUMULATE}
 * @param a operand bits (value, delta, or expected)
 * @param b second operand bits (update for compare-and-set); for getAndAdd the variable type; for
 *     accumulate the type in bits 0-7 and the {@code ReduceOp} ordinal in bits 8-15
 */
public record VarOpMessage(long requestId, int varId, int op, long a, long b) implements WireMessage {
    public static final int GET = 1;
    public static final int SET = 2;
    public static final int GET_AND_ADD = 3;
    public static final int COMPARE_AND_SET = 4;
    public static final int ACCUMULATE = 5;
}
