package io.dsa.agent.internal;

import io.dsa.ArrayUse;
import io.dsa.DsaException;
import io.dsa.ReduceOp;
import java.util.List;

/** The opening round of a global scope ({@link Scopes}): one gather that checks the workers agree and carries the values to reduce. */
final class ScopeRounds {
    private ScopeRounds() {}

    /**
     * A global scope's opening round, run by every worker: checks that all named the same uses at
     * the same epoch, and all-reduces {@code values} (if any) with {@code op} in thread-id order.
     *
     * @throws DsaException naming the worker whose scope differs
     */
    static void opening(WorkerImpl w, long sequence, List<ArrayUse> uses, double[] values, ReduceOp op) {
        long signature = signature(sequence, uses);
        int width = values == null ? 0 : values.length;
        long[] bits = new long[1 + width];
        bits[0] = signature;
        for (int j = 0; j < width; j++) bits[1 + j] = Double.doubleToRawLongBits(values[j]);
        long[] all = w.gather(bits);
        for (int t = 0; t < all.length / bits.length; t++) {
            if (all[t * bits.length] != signature) {
                throw new DsaException("workers opened different scopes: worker " + t + "'s scope opened at epoch " + sequence
                        + " differs from that of worker " + w.threadId() + ", which is " + uses);
            }
        }
        if (width > 0) reduce(all, bits.length, values, op);
    }

    // Folds the gathered values (after each worker's signature, stride apart) in thread-id order, as allReduce does.
    private static void reduce(long[] all, int stride, double[] values, ReduceOp op) {
        for (int j = 0; j < values.length; j++) {
            double acc = Double.longBitsToDouble(all[1 + j]);
            for (int base = stride; base < all.length; base += stride) acc = op.apply(acc, Double.longBitsToDouble(all[base + 1 + j]));
            values[j] = acc;
        }
    }

    private static long signature(long sequence, List<ArrayUse> uses) {
        long h = sequence * 0x9E3779B97F4A7C15L + uses.size();
        for (ArrayUse u : uses) {
            h = h * 31 + ((AbstractSharedArray) u.array()).state.id;
            h = h * 31 + u.behaviour().ordinal();
            h = h * 31 + (u.op() == null ? -1 : u.op().ordinal());
        }
        return h;
    }
}
