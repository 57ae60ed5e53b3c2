package io.dsa.agent.internal;

import io.dsa.ReduceOp;
import io.dsa.coherence.Access;

/**
 * The typed arrays' {@code accumulate} calls: the op, region and buffer checks, and where an
 * update goes: into the node's buffer while an accumulate scope over the array is open here
 * ({@link ReleaseBuffer#combine}), else to the partitions' homes ({@link Accumulator}).
 */
final class AccumulateCalls {
    private AccumulateCalls() {}

    /**
     * Combines the region's {@code src} (a typed array of {@code length} elements) into array
     * {@code a}, after checking the op, the region and the buffer: into the node's buffer inside an
     * accumulate scope over {@code a}, else at the partitions' homes ({@link Accumulator}).
     */
    static void region(AbstractSharedArray a, int row, int col, int rows, int cols, Object src, int length, ReduceOp op) {
        if (op == null) throw new NullPointerException("op");
        if (!op.appliesTo(a.state.spec.elementType())) {
            throw new IllegalArgumentException("reduce op " + op + " does not apply to the " + a.state.spec.elementType()
                    + " elements of array '" + a.name() + "'; use SUM, MIN, MAX or PROD");
        }
        a.checkRegion(row, col, rows, cols, length);
        ReleaseBuffer combined = a.state.accumulating;
        if (combined != null) {
            checkScopeOp(a, combined, op);
            for (int i = 0; i < rows; i++) {
                for (int j = 0; j < cols; j++) {
                    combined.combine(a.layout.partitionOf(row + i, col + j), a.layout.offsetInPartition(row + i, col + j),
                            bits(src, i * cols + j));
                }
            }
            return;
        }
        a.checkScope(Access.READ_WRITE);
        a.rt.checkFailed();
        a.rt.accumulator.accumulate(a.state, row, col, rows, cols, src, op);
    }

    /**
     * Inside an accumulate scope over array {@code a}, combines {@code bits} (the element's raw bits,
     * as {@link ReleaseBuffer#combine} takes them) into element {@code (row, col)} in the node's
     * buffer, without allocating; outside one, does nothing.
     *
     * @return whether it combined (an accumulate scope is open), else the caller accumulates at the home
     */
    static boolean element(AbstractSharedArray a, int row, int col, long bits, ReduceOp op) {
        ReleaseBuffer combined = a.state.accumulating;
        if (combined == null) return false;
        if (op == null) throw new NullPointerException("op");
        checkScopeOp(a, combined, op);
        a.layout.checkIndex(row, col);
        combined.combine(a.layout.partitionOf(row, col), a.layout.offsetInPartition(row, col), bits);
        return true;
    }

    private static void checkScopeOp(AbstractSharedArray a, ReleaseBuffer combined, ReduceOp op) {
        if (op != combined.op) {
            throw new IllegalStateException("array '" + a.name() + "' is accumulate(" + combined.op + ") in the open scope: an "
                    + "accumulate with " + op + " cannot combine with its updates; use " + combined.op + ", or accumulate with "
                    + op + " after the scope closes");
        }
    }

    // Element k of a typed array as the raw bits ReleaseBuffer.combine takes
    private static long bits(Object src, int k) {
        if (src instanceof double[] d) return rawBits(d[k]);
        if (src instanceof float[] f) return rawBits(f[k]);
        if (src instanceof int[] i) return rawBits(i[k]);
        return ((long[]) src)[k];
    }

    /** @return {@code v} as the raw bits {@link ReleaseBuffer#combine} takes (the typed arrays' element accumulate) */
    static long rawBits(double v) { return Double.doubleToRawLongBits(v); }

    /** @return {@code v}'s raw bits in the low 32 bits */
    static long rawBits(float v) { return Float.floatToRawIntBits(v) & 0xFFFF_FFFFL; }

    /** @return {@code v} in the low 32 bits */
    static long rawBits(int v) { return v & 0xFFFF_FFFFL; }

    /** @return {@code v} */
    static long rawBits(long v) { return v; }
}
