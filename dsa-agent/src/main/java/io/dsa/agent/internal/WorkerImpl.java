package io.dsa.agent.internal;

import io.dsa.ArrayUse;
import io.dsa.DsaException;
import io.dsa.DsaNode;
import io.dsa.DsaScope;
import io.dsa.DsaWorker;
import io.dsa.ReduceOp;
import java.util.Arrays;
import java.util.Objects;

/**
 * A worker thread's identity and collectives. Collectives gather every worker's value on the
 * global barrier tree and fold them in thread-id order on each worker, so every worker gets the
 * same bits.
 */
final class WorkerImpl implements DsaWorker {
    private static final ThreadLocal<WorkerImpl> CURRENT = new ThreadLocal<>();

    private final NodeRuntime rt;
    private final DsaNode node;
    private final int localThreadId;
    private volatile long epoch;
    /** The scopes this worker has open (its thread's only). */
    private final Scopes.WorkerScopes scopes = new Scopes.WorkerScopes();

    WorkerImpl(NodeRuntime rt, DsaNode node, int localThreadId, long startEpoch) {
        this.rt = rt;
        this.node = node;
        this.localThreadId = localThreadId;
        this.epoch = startEpoch;
    }

    void bind() { CURRENT.set(this); }

    /** The global barrier as {@code node.globalBarrier().await()} reaches it: counts the caller's epoch. */
    static void globalBarrier(NodeRuntime rt) {
        WorkerImpl w = CURRENT.get();
        if (w != null && w.rt == rt) {
            w.barrier();
        } else {
            rt.barriers.global(-1, Contributions.NONE);
        }
    }

    @Override public DsaNode node() { return node; }

    @Override public int threadId() { return rt.nodeId * rt.threadsPerNode + localThreadId; }

    @Override public int localThreadId() { return localThreadId; }

    @Override public int nodeId() { return rt.nodeId; }

    @Override public long epoch() { return epoch; }

    @Override
    public void barrier() {
        scopes.checkGlobalRound("a global barrier");
        rt.barriers.global(-1, Contributions.NONE);
        epoch++;
    }

    @Override
    public DsaScope scope(ArrayUse... uses) {
        return rt.scopes.open(this, scopes, uses);
    }

    @Override
    public DsaScope groupScope(int[] nodes, ArrayUse... uses) {
        return rt.scopes.openGroup(this, scopes, nodes, uses);
    }

    private long[] gather(long bits) {
        return gather(new long[] {bits});
    }

    /** One global barrier round carrying {@code values}; @return every worker's, thread-major (shared: read only) */
    long[] gather(long[] values) {
        scopes.checkGlobalRound("a global collective");
        long[] all = rt.barriers.global(localThreadId, values);
        epoch++;
        long expected = (long) rt.nodes * rt.threadsPerNode * values.length;
        if (all.length != expected) {
            throw new DsaException("collective at thread " + threadId() + " got " + all.length + " values, expected "
                    + expected + " (did every worker call the same collective?)");
        }
        return all;
    }

    @Override
    public double allReduce(double value, ReduceOp op) {
        op.apply(0.0, 0.0); // rejects bitwise ops on doubles before anyone waits
        long[] all = gather(Double.doubleToRawLongBits(value));
        double acc = Double.longBitsToDouble(all[0]);
        for (int i = 1; i < all.length; i++) acc = op.apply(acc, Double.longBitsToDouble(all[i]));
        return acc;
    }

    @Override
    public long allReduce(long value, ReduceOp op) {
        long[] all = gather(value);
        long acc = all[0];
        for (int i = 1; i < all.length; i++) acc = op.apply(acc, all[i]);
        return acc;
    }

    @Override
    public double[] allReduce(double[] values, ReduceOp op) {
        Objects.requireNonNull(values, "values");
        op.apply(0.0, 0.0);
        int width = values.length;
        long[] bits = new long[width];
        for (int j = 0; j < width; j++) bits[j] = Double.doubleToRawLongBits(values[j]);
        long[] all = gather(bits);
        double[] acc = new double[width];
        for (int j = 0; j < width; j++) acc[j] = Double.longBitsToDouble(all[j]);
        // thread by thread, so every element is folded in thread-id order, as the scalar form does
        for (int base = width; base < all.length; base += width) {
            for (int j = 0; j < width; j++) acc[j] = op.apply(acc[j], Double.longBitsToDouble(all[base + j]));
        }
        return acc;
    }

    @Override
    public long[] allReduce(long[] values, ReduceOp op) {
        Objects.requireNonNull(values, "values");
        int width = values.length;
        long[] all = gather(values);
        long[] acc = Arrays.copyOf(all, width);
        for (int base = width; base < all.length; base += width) {
            for (int j = 0; j < width; j++) acc[j] = op.apply(acc[j], all[base + j]);
        }
        return acc;
    }

    @Override
    public double scan(double value, ReduceOp op) {
        op.apply(0.0, 0.0);
        long[] all = gather(Double.doubleToRawLongBits(value));
        double acc = Double.longBitsToDouble(all[0]);
        for (int i = 1; i <= threadId(); i++) acc = op.apply(acc, Double.longBitsToDouble(all[i]));
        return acc;
    }

    @Override
    public long scan(long value, ReduceOp op) {
        long[] all = gather(value);
        long acc = all[0];
        for (int i = 1; i <= threadId(); i++) acc = op.apply(acc, all[i]);
        return acc;
    }

    @Override
    public double broadcast(double value, int rootThreadId) {
        checkRoot(rootThreadId);
        return Double.longBitsToDouble(gather(Double.doubleToRawLongBits(value))[rootThreadId]);
    }

    @Override
    public long broadcast(long value, int rootThreadId) {
        checkRoot(rootThreadId);
        return gather(value)[rootThreadId];
    }

    @Override
    public double[] allGather(double value) {
        long[] all = gather(Double.doubleToRawLongBits(value));
        double[] out = new double[all.length];
        for (int i = 0; i < all.length; i++) out[i] = Double.longBitsToDouble(all[i]);
        return out;
    }

    @Override
    public long[] allGather(long value) {
        return gather(value).clone(); // the gathered array is shared by the node's workers
    }

    @Override
    public boolean any(boolean flag) { return count(flag) > 0; }

    @Override
    public boolean all(boolean flag) { return count(flag) == rt.nodes * rt.threadsPerNode; }

    @Override
    public int count(boolean flag) {
        long[] all = gather(flag ? 1 : 0);
        int n = 0;
        for (long v : all) n += (int) v;
        return n;
    }

    @Override
    public int first(boolean flag) {
        long[] all = gather(flag ? 1 : 0);
        for (int i = 0; i < all.length; i++) if (all[i] != 0) return i;
        return all.length;
    }

    private void checkRoot(int root) {
        int max = rt.nodes * rt.threadsPerNode;
        if (root < 0 || root >= max) {
            throw new IllegalArgumentException("root thread id " + root + " out of range [0, " + max + ")");
        }
    }
}
