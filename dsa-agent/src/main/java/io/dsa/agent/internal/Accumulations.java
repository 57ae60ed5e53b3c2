package io.dsa.agent.internal;

import io.dsa.ElementType;
import io.dsa.ReduceOp;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The element arithmetic of an accumulate: packs a block of a worker's typed array into the
 * little-endian bytes an {@code AccumulateMessage} carries, and combines such bytes into a
 * partition's bytes at its home. A {@code float} is combined in {@code double} and rounded once,
 * which gives the {@code float} result of SUM, PROD, MIN and MAX; an {@code int} in {@code long},
 * truncated, which gives Java's wrapping {@code int} arithmetic. Stateless.
 */
final class Accumulations {
    private static final VarHandle DOUBLES = MethodHandles.byteArrayViewVarHandle(double[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle FLOATS = MethodHandles.byteArrayViewVarHandle(float[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private Accumulations() {}

    /**
     * @return the {@code rows x cols} block of {@code src} (a {@code double[]}, {@code float[]},
     *         {@code int[]} or {@code long[]} of {@code type}) from row {@code srcRow}, column
     *         {@code srcCol}, rows {@code srcWidth} apart, as little-endian bytes, row-major
     */
    static byte[] pack(ElementType type, Object src, int srcRow, int srcCol, int srcWidth, int rows, int cols) {
        int size = type.bytes();
        byte[] out = new byte[rows * cols * size];
        int o = 0;
        for (int i = 0; i < rows; i++) {
            int from = (srcRow + i) * srcWidth + srcCol;
            for (int j = 0; j < cols; j++, o += size) {
                switch (type) {
                    case DOUBLE -> DOUBLES.set(out, o, ((double[]) src)[from + j]);
                    case FLOAT -> FLOATS.set(out, o, ((float[]) src)[from + j]);
                    case INT -> INTS.set(out, o, ((int[]) src)[from + j]);
                    case LONG -> LONGS.set(out, o, ((long[]) src)[from + j]);
                }
            }
        }
        return out;
    }

    /**
     * Combines {@code values} ({@code rows x cols} elements, row-major) into {@code data} from
     * element {@code base}, rows {@code width} apart: each element becomes {@code op(element, value)}.
     * The caller has checked that the block lies inside {@code data} and {@code op} applies to {@code type}.
     */
    static void apply(ElementType type, ReduceOp op, byte[] data, int base, int width, int rows, int cols, byte[] values) {
        apply(type, op, data, base, width, rows, cols, values, 0);
    }

    /** {@link #apply(ElementType, ReduceOp, byte[], int, int, int, int, byte[])} with the values from byte {@code from} of {@code values}. */
    static void apply(ElementType type, ReduceOp op, byte[] data, int base, int width, int rows, int cols, byte[] values, int from) {
        int size = type.bytes();
        int v = from;
        for (int i = 0; i < rows; i++) {
            int at = (base + i * width) * size;
            for (int j = 0; j < cols; j++, at += size, v += size) {
                switch (type) {
                    case DOUBLE -> DOUBLES.set(data, at, op.apply((double) DOUBLES.get(data, at), (double) DOUBLES.get(values, v)));
                    case FLOAT -> FLOATS.set(data, at,
                            (float) op.apply((double) (float) FLOATS.get(data, at), (double) (float) FLOATS.get(values, v)));
                    case INT -> INTS.set(data, at, (int) op.apply((long) (int) INTS.get(data, at), (long) (int) INTS.get(values, v)));
                    case LONG -> LONGS.set(data, at, op.apply((long) LONGS.get(data, at), (long) LONGS.get(values, v)));
                }
            }
        }
    }
}
