package io.dsa.agent.wire;

/**
 * Node to a partition's home, when a release scope closes: the elements the node wrote in the
 * partition inside the scope, as runs of consecutive elements with their new values (the Aurora
 * paper's diff). Each run is {@link #run(int, int)}: its first element (row-major within the
 * partition) in the high 32 bits and its element count in the low 32 bits; the runs are in
 * increasing order and do not touch. {@code values} holds the runs' elements one after another,
 * little-endian, in the array's element type. The home writes them once it may write the
 * partition, and answers with a {@link DiffAppliedMessage} with the same request id. When an
 * accumulate scope closes, {@code op} is the scope's {@code ReduceOp} ordinal and the values are
 * the node's combined updates, which the home combines into the elements with that op instead of
 * writing them; a release scope's diff has {@code op} {@link #WRITE}.
 */
public record DiffMessage(long requestId, int arrayId, int partition, int op, long[] runs, byte[] values) implements WireMessage {
    /** The {@code op} of a release scope's diff: the values replace the elements. */
    public static final int WRITE = -1;

    /** A release scope's diff ({@code op} {@link #WRITE}). */
    public DiffMessage(long requestId, int arrayId, int partition, long[] runs, byte[] values) {
        this(requestId, arrayId, partition, WRITE, runs, values);
    }

    /** @return a run of {@code count} elements from element {@code first} */
    public static long run(int first, int count) { return (long) first << 32 | (count & 0xFFFF_FFFFL); }

    /** @return the first element of run {@code run} */
    public static int first(long run) { return (int) (run >> 32); }

    /** @return the element count of run {@code run} */
    public static int count(long run) { return (int) run; }

    @Override
    public String toString() {
        return "Diff(" + requestId + ", array " + arrayId + ", partition " + partition + (op == WRITE ? "" : ", op " + op) + ", "
                + runs.length + " runs, "
                + values.length + " bytes)";
    }
}
