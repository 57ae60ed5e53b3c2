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
 * the node's I/O thread share: worker threads write elements through the hit path (read the stamp,
 * store, full fence, re-check the stamp, redo on change, as {@code Shared*ArrayImpl.write} does)
 * while the I/O thread revokes the partition, sends it (a copy of the bytes, as the encoder makes)
 * and gets a copy back: into a new array (its first arrival), or decoded in place into the slot's
 * own array ({@link Slot#receiveBuffer}) and granted again, the array a late writer may still
 * store into. The copy sent and every later read must hold every completed write: the results
 * must be linearizable with respect to a plain array.
 *
 * <p>Elements are stored byte by byte here (see {@link #store}); the stamp protocol is the arrays'.
 * The decoder's copy is byte by byte too, so that stores can land in the middle of it.
 *
 * <p>Each element has one writing thread (a {@code nonParallelGroup} per element), as in a
 * data-race-free program; different elements of the one partition are written concurrently.
 *
 * <p>Reads go through the view the slot publishes with every change of its stamp, as the arrays'
 * read hits do ({@link Slot#readView}).
 *
 * <p>Three seeded bugs are caught: a writer that does not re-check the stamp after its store, a
 * decoder that writes into the slot's array while its workers still have access (a receive buffer
 * handed out without the access check), and a slot that leaves its readable view in place when
 * the workers lose access (a reader then reads the array the partition left, after a write to the
 * array it came back in completed).
 */
@Param(name = "value", gen = IntGen.class, conf = "1:3")
public class SlotLincheckTest {
    private static final int ELEMENTS = 3;

    private static final int BYTES = ELEMENTS * 4;
    private final Slot slot = new Slot(Access.READ_WRITE);
    /** false only in {@link WithoutStampRecheck}: the bug the re-check prevents */
    boolean recheckStamp = true;

    public SlotLincheckTest() {
        slot.install(new byte[BYTES], Access.READ_WRITE);
    }

    @Operation(nonParallelGroup = "element0")
    public void write0(@Param(name = "value") int v) { write(0, v); }

    @Operation(nonParallelGroup = "element1")
    public void write1(@Param(name = "value") int v) { write(1, v); }

    @Operation(nonParallelGroup = "element2")
    public void write2(@Param(name = "value") int v) { write(2, v); }

    @Operation
    public int read0() { return read(0); }

    /** The partition goes to another node and comes back into a new array: every completed write is in the copy sent. */
    @Operation(nonParallelGroup = "handler")
    public String handover() {
        slot.grant(Access.NONE);
        byte[] sent = slot.lend(BYTES).clone();
        slot.install(sent.clone(), Access.READ_WRITE);
        return decode(sent);
    }

    /**
     * The partition goes to another node and comes back decoded into the slot's own array, which a
     * writer that read the old stamp may still store into; then the workers get it again.
     */
    @Operation(nonParallelGroup = "handler")
    public String revokeAndRefillInPlace() {
        slot.grant(Access.NONE);
        byte[] sent = slot.lend(BYTES).clone();
        refill(sent);
        return decode(sent);
    }

    /** The copy {@code sent} comes back and is decoded into the slot's own array, which the workers get again. */
    void refill(byte[] sent) {
        byte[] buffer = slot.receiveBuffer(BYTES);
        if (buffer != slot.data) throw new AssertionError("a revoked slot lends its own array for the refill");
        for (int i = 0; i < BYTES; i++) buffer[i] = sent[i];
        slot.install(buffer, Access.READ_WRITE);
    }

    /** The I/O thread downgrades to a shared copy (a forwarded read) and later regains ownership. */
    @Operation(nonParallelGroup = "handler")
    public String downgradeAndUpgrade() {
        slot.grant(Access.READ);
        byte[] sent = slot.lend(BYTES).clone();
        slot.grant(Access.READ_WRITE);
        return decode(sent);
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

    // as the arrays' read hit: through the view the slot published with its last stamp (docs/runtime.md, "Read hits through
    // a published view"); a read that finds none spins (the arrays' miss path waits for the stamp)
    private int read(int element) {
        while (true) {
            Slot.ReadView v = slot.readView();
            if (v.data != null) return load(v.data, element * 4);
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

    static String decode(byte[] bytes) {
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

        public String revokeAndRefillInPlace() { return Arrays.toString(values); }
    }

    /** The mutant: a write that does not re-check the stamp after its store may land in a dead copy. */
    public static class WithoutStampRecheck extends SlotLincheckTest {
        public WithoutStampRecheck() { recheckStamp = false; }
    }

    /**
     * The mutant: the decoder writes the returning copy into the slot's array while the workers
     * still have access to it, and only then is the stamp changed; a write that completed between
     * the copy's departure and the decode is overwritten.
     */
    public static class DecodingIntoAnAccessibleArray extends SlotLincheckTest {
        @Override
        public String revokeAndRefillInPlace() {
            byte[] sent = slotForMutants().lend(BYTES).clone();
            byte[] buffer = slotForMutants().data;
            for (int i = 0; i < BYTES; i++) buffer[i] = sent[i];
            slotForMutants().grant(Access.NONE);
            slotForMutants().install(buffer, Access.READ_WRITE);
            return decode(sent);
        }
    }

    Slot slotForMutants() { return slot; }

    /** The mutant: a revocation that does not replace the readable view. */
    public static class StaleViewOnRevocation extends SlotLincheckTest {
        public StaleViewOnRevocation() { slotForMutants().staleViewsOnRevocation = true; }
    }

    static ModelCheckingOptions options() {
        return new ModelCheckingOptions()
                .sequentialSpecification(Sequential.class)
                .threads(3)
                .actorsPerThread(2)
                .iterations(15)
                .invocationsPerIteration(150);
    }

    /**
     * The options for a mutant: the same exploration, without shrinking the failing scenario
     * afterwards (the shrinking re-runs the model checker many times and only shortens the report).
     */
    static ModelCheckingOptions mutantOptions() { return options().minimizeFailedScenario(false); }

    @Test
    @Timeout(120)
    void writesInterleavedWithHandoverAreNeverLost() {
        options().check(SlotLincheckTest.class);
    }

    @Test
    @Timeout(120)
    void aWriteWithoutTheStampRecheckIsCaught() {
        assertCaught(WithoutStampRecheck.class);
    }

    @Test
    @Timeout(120)
    void aViewLeftReadableByARevocationIsCaught() {
        assertCaught(StaleViewOnRevocation.class);
    }

    @Test
    @Timeout(120)
    void aCopyDecodedIntoAnArrayTheWorkersStillWriteIsCaught() {
        assertCaught(DecodingIntoAnAccessibleArray.class);
    }

    // The mutant's results are not those of any order of the operations on a plain array.
    private static void assertCaught(Class<?> mutant) {
        org.jetbrains.lincheck.LincheckAssertionError e = org.junit.jupiter.api.Assertions.assertThrows(
                org.jetbrains.lincheck.LincheckAssertionError.class, () -> mutantOptions().check(mutant));
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("Invalid execution results"), e.getMessage());
    }
}
