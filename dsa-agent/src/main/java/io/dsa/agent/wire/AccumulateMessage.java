package io.dsa.agent.wire;

/**
 * Node to a partition's home: combine {@code values} into a block of the partition with a reduce
 * op (function shipping: the update travels to the data). The block is {@code rows x cols}
 * elements from element {@code base} of the partition (row-major within it), rows a partition row
 * apart; {@code values} holds {@code rows * cols} elements, little-endian, in the array's element
 * type. Answered by an {@link AccumulatedMessage} with the same request id.
 *
 * @param op the {@code io.dsa.ReduceOp} ordinal
 */
public record AccumulateMessage(long requestId, int arrayId, int partition, int op, int base, int rows, int cols, byte[] values)
        implements WireMessage {
    @Override
    public String toString() {
        return "Accumulate(" + requestId + ", array " + arrayId + ", partition " + partition + ", op " + op + ", base " + base
                + ", " + rows + "x" + cols + ", " + values.length + " bytes)";
    }
}
