package io.dsa.agent.internal;

import io.dsa.ElementType;
import io.dsa.coherence.Access;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntConsumer;

/**
 * The directory operations with which a node enters and leaves a scope ({@link Scopes}), none of
 * which waits, so a deterministic simulation can drive them step by step as {@link Scopes} drives
 * them with its workers: a read cache's fill ({@link #requestCopies}), owner computes' taking of
 * the home partitions ({@link #requestHomes}, then {@link #copyIfHomesOwned}, again until it
 * copies), the caps ({@link #cap}) and the copies between a partition and a plain array.
 * {@code ScopeSimulationTest} checks them racing plain coherence traffic, and finds each
 * {@link Fault}. Thread-safe.
 */
final class ScopeDirectory {
    /** Known bugs a scope can be made to commit, so a test can show its check finds each; package-private. */
    enum Fault {
        /** a read cache asks for its copies but its node does not wait for them before the scope opens */
        FILL_NOT_AWAITED,
        /** owner computes copies the home partitions in and out holding a read copy, without recalling the others */
        HOMES_READ_NOT_OWNED,
        /** a read cache of a region asks for a copy of every partition of the region but its last */
        REGION_FILL_SHORT,
        /** owner computes copies on the worker without checking afterwards that it owned the partitions throughout */
        COPY_NOT_RECHECKED
    }

    private final int nodeId;
    private final ArrayDirectory arrays;
    /** A known bug to commit (tests only), or null. */
    volatile Fault fault;

    ScopeDirectory(int nodeId, ArrayDirectory arrays) {
        this.nodeId = nodeId;
        this.arrays = arrays;
    }

    /** @return a read cache's fill: a read copy of every partition of {@code a}, all asked for now; done when every copy is here */
    List<CompletableFuture<Void>> requestCopies(ArrayState a) {
        BitSet all = new BitSet();
        all.set(0, a.slots.length);
        return requestCopies(a, all);
    }

    /** @return a read cache's fill of a region: a read copy of each of {@code partitions} of {@code a}, all asked for now */
    List<CompletableFuture<Void>> requestCopies(ArrayState a, BitSet partitions) {
        List<CompletableFuture<Void>> copies = new ArrayList<>();
        int end = partitions.length();
        if (fault == Fault.REGION_FILL_SHORT && partitions.cardinality() < a.slots.length) end--;
        for (int p = partitions.nextSetBit(0); p >= 0 && p < end; p = partitions.nextSetBit(p + 1)) copies.add(arrays.whenGranted(a, p, Access.READ));
        if (fault == Fault.FILL_NOT_AWAITED) copies.clear();
        return copies;
    }

    /** @return ownership of every partition of {@code a} homed at this node, all asked for now; done when each was granted */
    List<CompletableFuture<Void>> requestHomes(ArrayState a) {
        return requestHomes(a, homeAccess());
    }

    /**
     * @return {@code needed} on every partition of {@code a} homed at this node, all asked for now;
     *         done when each was granted. {@link Access#READ} recalls only an exclusive owner
     *         elsewhere and keeps the sharers: owner computes' opening in update mode
     *         ({@link ComputedPushes}).
     */
    List<CompletableFuture<Void>> requestHomes(ArrayState a, Access needed) {
        List<CompletableFuture<Void>> granted = new ArrayList<>();
        for (int p = 0; p < a.slots.length; p++) if (a.layout.homeOf(p) == nodeId) granted.add(arrays.whenGranted(a, p, needed));
        return granted;
    }

    /**
     * Runs {@code copy} for every partition of {@code a} homed here if this node still owns them
     * all (a request that was on its way may have taken one since {@link #requestHomes} was done:
     * then nothing is copied, and the caller asks again). First on the calling worker
     * ({@link #copyWhileOwned}); if ownership changed meanwhile, or was not all there, on the I/O
     * thread, which owns the engine.
     *
     * @return whether it copied
     */
    boolean copyIfHomesOwned(ArrayState a, IntConsumer copy) {
        return copyIfHomesGranted(a, homeAccess(), copy);
    }

    /**
     * {@link #copyIfHomesOwned} with {@code needed} in place of ownership: {@link Access#READ}
     * for owner computes' copies in, in update mode ({@link ComputedPushes}).
     */
    boolean copyIfHomesGranted(ArrayState a, Access needed, IntConsumer copy) {
        if (copyWhileGranted(a, needed, copy)) return true;
        return arrays.onIoThread(() -> {
            for (int p = 0; p < a.slots.length; p++) {
                if (a.layout.homeOf(p) == nodeId && (!a.slots[p].granted().allows(needed) || !a.slots[p].allocated())) return false;
            }
            for (int p = 0; p < a.slots.length; p++) if (a.layout.homeOf(p) == nodeId) copy.accept(p);
            return true;
        });
    }

    /**
     * Runs {@code copy} for every partition of {@code a} homed here on the calling thread, if the
     * engine grants this node each of them (with bytes) before the copies and no slot's stamp
     * changed by the end: so no grant changed in between, and the I/O thread lent or refilled
     * none of them meanwhile (a revocation changes the stamp before the engine lends the bytes).
     * The copies, a full fence, then the stamps read again: the Dekker pair of the hit path's
     * writers ({@link Slot}), so a copy out that a revocation may have lent without its last
     * stores is seen and done again. A copy that fails here may have written a plain array or a
     * partition already: the caller's next copy overwrites all of it. {@code SlotCopyLincheckTest}
     * model-checks a copy out racing a revocation.
     *
     * @return whether it copied with every partition owned throughout
     */
    boolean copyWhileOwned(ArrayState a, IntConsumer copy) {
        return copyWhileGranted(a, homeAccess(), copy);
    }

    // copyWhileOwned with needed in place of ownership
    private boolean copyWhileGranted(ArrayState a, Access needed, IntConsumer copy) {
        int[] stamps = new int[a.slots.length];
        for (int p = 0; p < a.slots.length; p++) {
            if (a.layout.homeOf(p) != nodeId) continue;
            Slot s = a.slots[p];
            int stamp = s.stamp;
            if (!Slot.grantedOf(stamp).allows(needed) || !s.allocated()) return false;
            stamps[p] = stamp;
        }
        for (int p = 0; p < a.slots.length; p++) if (a.layout.homeOf(p) == nodeId) copy.accept(p);
        if (fault == Fault.COPY_NOT_RECHECKED) return true;
        VarHandle.fullFence();
        for (int p = 0; p < a.slots.length; p++) {
            if (a.layout.homeOf(p) == nodeId && a.slots[p].stamp != stamps[p]) return false;
        }
        return true;
    }

    private Access homeAccess() { return fault == Fault.HOMES_READ_NOT_OWNED ? Access.READ : Access.READ_WRITE; }

    /**
     * Caps what this node's workers get of every partition of {@code capped} at {@code cap}
     * ({@link Slot#cap}), on the calling thread: a cap is a compare-and-set of each slot's stamp,
     * safe beside the I/O thread's grants, so a scope's entry and exit hand that thread no task.
     * The caller is the node's last worker out of a scope or its first into one: no worker of the
     * node touches the arrays meanwhile.
     */
    void cap(List<ArrayState> capped, Access cap) {
        for (ArrayState a : capped) for (Slot s : a.slots) s.cap(cap);
    }

    /**
     * Writes the diffs a switch pushed into {@code a} ({@link PushedDiffs#apply}) on the calling
     * worker, or, when a partition homed here and never touched must get its zeros first (the
     * first switch, typically), in one task on the I/O thread, which materialises slots.
     */
    void writePushed(ArrayState a, Map<Integer, List<PushedDiffs.Pushed>> diffs, PushedDiffs.Fault fault) {
        if (PushedDiffs.needsIoThread(a, diffs)) {
            arrays.onIoThread(() -> PushedDiffs.apply(a, diffs, fault));
        } else {
            PushedDiffs.apply(a, diffs, fault);
        }
    }

    /** Caps every array of {@code caps} at its access, as {@link #cap} does. */
    static void setCaps(Map<ArrayState, Access> caps) {
        for (Map.Entry<ArrayState, Access> e : caps.entrySet()) for (Slot s : e.getKey().slots) s.cap(e.getValue());
    }

    /** @return partition {@code p}'s bytes (little-endian) in a plain array, {@code into} if it fits; on the I/O thread */
    static Object copyIn(ArrayState a, int p, Object into) {
        int n = a.layout.partitionElements(p);
        ElementType type = a.spec.elementType();
        java.nio.Buffer view = a.slots[p].bulkView(type);
        switch (type) {
            case DOUBLE -> {
                double[] d = into instanceof double[] x && x.length == n ? x : new double[n];
                ((java.nio.DoubleBuffer) view).get(0, d, 0, n);
                return d;
            }
            case FLOAT -> {
                float[] d = into instanceof float[] x && x.length == n ? x : new float[n];
                ((java.nio.FloatBuffer) view).get(0, d, 0, n);
                return d;
            }
            case INT -> {
                int[] d = into instanceof int[] x && x.length == n ? x : new int[n];
                ((java.nio.IntBuffer) view).get(0, d, 0, n);
                return d;
            }
            case LONG -> {
                long[] d = into instanceof long[] x && x.length == n ? x : new long[n];
                ((java.nio.LongBuffer) view).get(0, d, 0, n);
                return d;
            }
            default -> throw new AssertionError(type);
        }
    }

    private static final VarHandle LONG_BITS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_BITS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    /**
     * @return whether the plain array {@code from} holds exactly partition {@code p}'s bytes, bit for
     *         bit (so -0.0 differs from 0.0, and NaNs by their bits): a partition an owner-computes
     *         scope did not change need not be written back or pushed. On the I/O thread.
     */
    static boolean samePartition(ArrayState a, int p, Object from) {
        byte[] data = a.slots[p].data;
        switch (a.spec.elementType()) {
            case DOUBLE -> {
                double[] d = (double[]) from;
                for (int k = 0; k < d.length; k++) if ((long) LONG_BITS.get(data, k << 3) != Double.doubleToRawLongBits(d[k])) return false;
            }
            case LONG -> {
                long[] d = (long[]) from;
                for (int k = 0; k < d.length; k++) if ((long) LONG_BITS.get(data, k << 3) != d[k]) return false;
            }
            case FLOAT -> {
                float[] d = (float[]) from;
                for (int k = 0; k < d.length; k++) if ((int) INT_BITS.get(data, k << 2) != Float.floatToRawIntBits(d[k])) return false;
            }
            case INT -> {
                int[] d = (int[]) from;
                for (int k = 0; k < d.length; k++) if ((int) INT_BITS.get(data, k << 2) != d[k]) return false;
            }
            default -> throw new AssertionError(a.spec.elementType());
        }
        return true;
    }

    /** Writes the plain array {@code from} into partition {@code p}'s bytes (little-endian); on the I/O thread. */
    static void copyOut(ArrayState a, int p, Object from) {
        ElementType type = a.spec.elementType();
        java.nio.Buffer view = a.slots[p].bulkView(type);
        switch (type) {
            case DOUBLE -> ((java.nio.DoubleBuffer) view).put(0, (double[]) from);
            case FLOAT -> ((java.nio.FloatBuffer) view).put(0, (float[]) from);
            case INT -> ((java.nio.IntBuffer) view).put(0, (int[]) from);
            case LONG -> ((java.nio.LongBuffer) view).put(0, (long[]) from);
            default -> throw new AssertionError(type);
        }
    }
}
