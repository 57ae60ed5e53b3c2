package io.dsa.agent.wire;

/**
 * Node to monitor: register (or look up) a shared object by name.
 *
 * @param requestId echoed in the {@link RegisteredMessage}
 * @param kind {@link #ARRAY}, {@link #VARIABLE}, {@link #BARRIER} or {@link #LOCK}
 * @param params kind-specific: ARRAY {elementType ordinal, rows, cols, partitionRows,
 *        partitionCols, distribution ordinal, oneDimensional 0/1}; VARIABLE {type (0 int, 1 long,
 *        2 float, 3 double), initial value bits}; BARRIER {parties}; LOCK {}
 */
public record RegisterMessage(long requestId, int kind, String name, long[] params) implements WireMessage {
    public static final int ARRAY = 1;
    public static final int VARIABLE = 2;
    public static final int BARRIER = 3;
    public static final int LOCK = 4;
}
