package io.dsa.agent.internal;

import io.dsa.ArraySpec;
import io.dsa.Distribution;
import io.dsa.ElementType;
import io.dsa.coherence.Access;
import java.lang.invoke.VarHandle;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Lincheck model checking of the hand-off of a worker's overwrite ({@link Overwrite}; docs/runtime.md,
 * "Writes that cover a partition") between the worker and the I/O thread. The worker offered its
 * bytes for partition 0 (homed at node 0; this is node 1), and the node got write access another
 * way (an ordinary write answered, with the old bytes) before either thread looked again. The
 * worker's step: its look at the offer ({@link Overwrite#settle}) and, if it took the bytes back,
 * its copy as {@code copyBlock} makes it (store, fence, the stamp looked at again). The I/O
 * thread's step: an intervention takes the access away, then the engine asks without data if the
 * offer can be claimed, and the grant ({@link SlotStore#overwrite}) writes it.
 *
 * <p>Checked after every interleaving ({@link Validate}): the overwrite completes once, by one of
 * them: never taken back by the worker and written by the grant; a grant without data always finds
 * the claimed bytes; a written offer left the slot holding them with write access. The seeded bug
 * {@link Overwrite#plainTakeBack} (a take-back that looks, then sets) is caught.
 */
public class OverwriteLincheckTest {
    private static final int OLD = 1;
    private static final int NEW = 7;
    private static final int ARRAY = 5;

    private final ArrayState a = new ArrayState(ARRAY,
            Specs.fromParams("A", Specs.toParams(ArraySpec.oneDimensional("A", ElementType.INT, 4, 2, Distribution.BLOCK))), 2, 1, 1);
    private final SlotStore store = new SlotStore(id -> a, new GrantWaits(1, null, () -> null, (s, p, n) -> { }));
    private final int[] region = {NEW, NEW};
    private final Overwrite offer = new Overwrite(0, region, 0, 0, 2, 1, 2);
    /** What the worker's step concluded: {@link Overwrite#WRITTEN}, {@link Overwrite#TAKEN_BACK} or {@link Overwrite#WAIT}. */
    private int settled = Integer.MIN_VALUE;
    /** Whether the worker's own copy found the stamp unchanged (else it redoes the write through the protocol). */
    private boolean copyHeld;
    /** Whether the I/O thread claimed the offer and the grant without data ran, and what it threw. */
    private boolean granted;
    private RuntimeException grantFailed;

    public OverwriteLincheckTest() {
        byte[] old = new byte[2 * Integer.BYTES];
        java.nio.ByteBuffer.wrap(old).order(java.nio.ByteOrder.LITTLE_ENDIAN).asIntBuffer().put(new int[] {OLD, OLD});
        Slot s = a.slots[0];
        s.install(old, Access.READ_WRITE);
        if (!s.offerOverwrite(offer)) throw new IllegalStateException("the slot already holds an overwrite");
        offer.plainTakeBack = plainTakeBack();
    }

    boolean plainTakeBack() { return false; }

    /** The worker looks at its offer; if it took the bytes back, it copies them itself under the stamp it saw. */
    @Operation(nonParallelGroup = "worker")
    public void workerLooks() {
        Slot s = a.slots[0];
        settled = offer.settle(s);
        if (settled != Overwrite.TAKEN_BACK) return;
        int stamp = s.stamp;
        if (!Slot.writable(stamp)) return;
        java.nio.IntBuffer view = (java.nio.IntBuffer) s.bulkView(ElementType.INT);
        view.put(0, region, 0, 2);
        VarHandle.fullFence();
        copyHeld = s.stamp == stamp;
    }

    /** The I/O thread: an intervention revokes the access; then the request without data, if the offer can be claimed, and its grant. */
    @Operation(nonParallelGroup = "io")
    public void ioRevokesThenAsksWithoutData() {
        Slot s = a.slots[0];
        store.setAccess(ARRAY, 0, Access.NONE);
        Overwrite o = s.overwrite();
        if (o == null || !o.claim()) return;   // taken back: the engine asks an ordinary write
        try {
            store.overwrite(ARRAY, 0);
            granted = true;
        } catch (RuntimeException e) {
            grantFailed = e;
        }
    }

    /** After both: the overwrite completed once, and a written one is in the slot. */
    @Validate
    public void theOverwriteCompletesOnceAndAWrittenOneIsInTheSlot() {
        if (grantFailed != null) throw new IllegalStateException("not completed once: a grant without data found no bytes: " + grantFailed.getMessage());
        if (settled == Overwrite.TAKEN_BACK && granted) {
            throw new IllegalStateException("not completed once: the worker took its bytes back and the grant wrote them too");
        }
        if (offer.state() == Overwrite.REQUESTED) throw new IllegalStateException("a claimed overwrite was never written");
        if (granted) {
            Slot s = a.slots[0];
            java.nio.IntBuffer view = (java.nio.IntBuffer) s.bulkView(ElementType.INT);
            if (s.access() != Access.READ_WRITE || view.get(0) != NEW || view.get(1) != NEW) {
                throw new IllegalStateException("a written overwrite left " + view.get(0) + ", " + view.get(1) + " with " + s.access());
            }
        }
        if (settled == Overwrite.WRITTEN && !granted) throw new IllegalStateException("the worker saw its bytes written, but no grant wrote them");
    }

    /** The mutant: a take-back that looks, then sets. */
    public static class PlainTakeBack extends OverwriteLincheckTest {
        @Override
        boolean plainTakeBack() { return true; }
    }

    @Test
    @Timeout(120)
    void anOverwriteIsCompletedOnceByTheWorkerOrByTheGrant() {
        WorkerIoRace.check(OverwriteLincheckTest.class);
    }

    @Test
    @Timeout(120)
    void aTakeBackThatIsNotACompareAndSetIsCaught() {
        WorkerIoRace.assertCaught(PlainTakeBack.class, "not completed once");
    }
}
