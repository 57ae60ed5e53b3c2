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
 *
 * <p>A sender's diff may leave its values where they are: with {@code scatteredElementBytes} the
 * element size (not 0), {@code values} is the whole partition's buffer in the partition's layout
 * and each run's values are at its own elements ({@link #valuesAt}); the codec writes them one
 * run after another, so on the wire, and in every decoded message, the values are packed
 * ({@code scatteredElementBytes} 0). That spares the sender a copy of every value it wrote.
 */
public record DiffMessage(long requestId, int arrayId, int partition, int op, long[] runs, byte[] values, int scatteredElementBytes)
        implements WireMessage {
    /** The {@code op} of a release scope's diff: the values replace the elements. */
    public static final int WRITE = -1;

    /** A diff whose values are packed, the runs' values one after another. */
    public DiffMessage(long requestId, int arrayId, int partition, int op, long[] runs, byte[] values) {
        this(requestId, arrayId, partition, op, runs, values, 0);
    }

    /** A release scope's diff ({@code op} {@link #WRITE}), its values packed. */
    public DiffMessage(long requestId, int arrayId, int partition, long[] runs, byte[] values) {
        this(requestId, arrayId, partition, WRITE, runs, values);
    }

    /** @return whether the values are in the partition's layout, not packed (a sender's message only) */
    public boolean scattered() { return scatteredElementBytes != 0; }

    /**
     * @param run one of {@link #runs}
     * @param packedOffset where the run's values start if they are packed (the byte count of the runs before it)
     * @return where the run's values start in {@link #values}
     */
    public int valuesAt(long run, int packedOffset) {
        return scattered() ? first(run) * scatteredElementBytes : packedOffset;
    }

    /** @return the byte count of the values as the wire carries them, packed */
    public long packedBytes() {
        if (!scattered()) return values.length;
        long elements = 0;
        for (long run : runs) elements += count(run);
        return elements * scatteredElementBytes;
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
                + packedBytes() + " bytes" + (scattered() ? ", scattered" : "") + ")";
    }
}
