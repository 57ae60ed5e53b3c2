package io.dsa.agent.internal;

import io.dsa.coherence.Access;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Lincheck model checking of the per-partition access guard ({@link Slot}) that worker threads and
 * the network handler share: worker threads write elements through the hit path (read the stamp,
 * store, full fence, re-check the stamp, redo on change, as {@code Shared*ArrayImpl.write} does)
 * while the handler revokes the partition, snapshots it and installs a copy (a handover that
 * comes back, or an invalidation followed by a refill). The snapshot and every later read must
 * hold every completed write: the results must be linearizable with respect to a plain array.
 *
 * <p>Elements are stored byte by byte here (see {@link #store}); the stamp protocol is the arrays'.
 *
 * <p>Each element has one writing thread (a {@code nonParallelGroup} per element), as in a
 * data-race-free program; different elements of the one partition are written concurrently.
 */
@Param(name = "value", gen = IntGen.class, conf = "1:3")
public class SlotLincheckTest {
    private static final int ELEMENTS = 3;

    private final Slot slot = new Slot(Access.READ_WRITE, new byte[ELEMENTS * 4]);
    /** false only in {@link WithoutStampRecheck}: the bug the re-check prevents */
    boolean recheckStamp = true;

    @Operation(nonParallelGroup = "element0")
    public void write0(@Param(name = "value") int v) { write(0, v); }

    @Operation(nonParallelGroup = "element1")
    public void write1(@Param(name = "value") int v) { write(1, v); }

    @Operation(nonParallelGroup = "element2")
    public void write2(@Param(name = "value") int v) { write(2, v); }

    @Operation
    public int read0() { return read(0); }

    /** The handler hands the partition over and gets it back: every completed write is in the snapshot. */
    @Operation(nonParallelGroup = "handler")
    public String handover() {
        slot.setAccess(Access.NONE);
        byte[] snapshot = slot.snapshot(ELEMENTS * 4);
        slot.install(snapshot.clone(), Access.READ_WRITE);
        return decode(snapshot);
    }

    /** The handler downgrades to a shared copy (a forwarded read) and later regains ownership. */
    @Operation(nonParallelGroup = "handler")
    public String downgradeAndUpgrade() {
        slot.setAccess(Access.READ);
        byte[] snapshot = slot.snapshot(ELEMENTS * 4);
        slot.setAccess(Access.READ_WRITE);
        return decode(snapshot);
    }

    /** The write hit path of the typed arrays, retried while the access is revoked (the miss path waits there). */
    private void write(int element, int value) {
        int off = element * 4;
        while (true) {
            int stamp = slot.stamp;
            if (Slot.writable(stamp)) {
                store(slot.data, off, value);
                VarHandle.fullFence();
                if (!recheckStamp || slot.stamp == stamp) return;
            }
            Thread.onSpinWait();
        }
    }

    private int read(int element) {
        while (true) {
            int stamp = slot.stamp;
            if (Slot.readable(stamp)) return load(slot.data, element * 4);
            Thread.onSpinWait();
        }
    }

    // Lincheck 3.7 cannot instrument byte-array view VarHandles ("Unsupported VarHandle type:
    // VarHandleByteArrayAsInts$ArrayHandle"), so the element is stored byte by byte: the same plain,
    // unordered little-endian store the arrays' VIEW.set makes.
    private static void store(byte[] d, int off, int v) {
        d[off] = (byte) v;
        d[off + 1] = (byte) (v >>> 8);
        d[off + 2] = (byte) (v >>> 16);
        d[off + 3] = (byte) (v >>> 24);
    }

    private static int load(byte[] d, int off) {
        return (d[off] & 0xff) | (d[off + 1] & 0xff) << 8 | (d[off + 2] & 0xff) << 16 | d[off + 3] << 24;
    }

    private static String decode(byte[] bytes) {
        int[] values = new int[ELEMENTS];
        for (int i = 0; i < ELEMENTS; i++) values[i] = load(bytes, i * 4);
        return Arrays.toString(values);
    }

    /** The sequential specification: a plain array. */
    public static class Sequential {
        private final int[] values = new int[ELEMENTS];

        public void write0(int v) { values[0] = v; }

        public void write1(int v) { values[1] = v; }

        public void write2(int v) { values[2] = v; }

        public int read0() { return values[0]; }

        public String handover() { return Arrays.toString(values); }

        public String downgradeAndUpgrade() { return Arrays.toString(values); }
    }

    /** The mutant: a write that does not re-check the stamp after its store may land in a dead copy. */
    public static class WithoutStampRecheck extends SlotLincheckTest {
        public WithoutStampRecheck() { recheckStamp = false; }
    }

    static ModelCheckingOptions options() {
        return new ModelCheckingOptions()
                .sequentialSpecification(Sequential.class)
                .threads(3)
                .actorsPerThread(2)
                .iterations(15)
                .invocationsPerIteration(150);
    }

    @Test
    @Timeout(120)
    void writesInterleavedWithHandoverAreNeverLost() {
        options().check(SlotLincheckTest.class);
    }

    @Test
    @Timeout(120)
    void aWriteWithoutTheStampRecheckIsCaught() {
        org.jetbrains.lincheck.LincheckAssertionError e = org.junit.jupiter.api.Assertions.assertThrows(
                org.jetbrains.lincheck.LincheckAssertionError.class, () -> options().check(WithoutStampRecheck.class));
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("Invalid execution results"), e.getMessage());
    }
}
