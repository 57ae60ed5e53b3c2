package io.dsa.agent.internal;

import io.dsa.ArraySpec;
import io.dsa.Distribution;
import io.dsa.ElementType;
import io.dsa.coherence.Access;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Lincheck model checking of owner computes' copy out on the worker
 * ({@link ScopeDirectory#copyWhileOwned}) racing the I/O thread, which revokes the home
 * partition, lends its bytes to a send and installs the copy that comes back (a remote request
 * that was on its way when the scope closed): a copy that reports success must not have lost a
 * store to that lend. Checked after every interleaving ({@link Validate}): if the copy reported
 * success, the partition holds every value it copied out. A copy that reports failure is done again
 * by its caller through the I/O thread ({@link ScopeDirectory#copyIfHomesOwned}).
 *
 * <p>The array: 4 ints in partitions of 2 on 2 nodes; this is node 1, the home of partition 1.
 * The seeded bug {@link ScopeDirectory.Fault#COPY_NOT_RECHECKED} (no fence and no second look at
 * the stamps) is caught.
 */
public class SlotCopyLincheckTest {
    private static final byte OLD = 1;
    private static final byte NEW = 7;
    private static final int BYTES = 2 * Integer.BYTES;

    private final ArrayState a = new ArrayState(5,
            Specs.fromParams("A", Specs.toParams(ArraySpec.oneDimensional("A", ElementType.INT, 4, 2, Distribution.BLOCK))), 2, 1, 1);
    private final ScopeDirectory directory = new ScopeDirectory(1, null);
    private boolean copied;

    public SlotCopyLincheckTest() {
        byte[] home = new byte[BYTES];
        java.util.Arrays.fill(home, OLD);
        a.slots[1].install(home, Access.READ_WRITE);
        directory.fault = fault();
    }

    ScopeDirectory.Fault fault() { return null; }

    /** The worker copies the plain array (all NEW) out into the partition, as a closing owner-computes scope does. */
    @Operation(nonParallelGroup = "worker")
    public void copyOut() {
        copied = directory.copyWhileOwned(a, p -> {
            byte[] d = a.slots[p].data;
            for (int i = 0; i < d.length; i++) d[i] = NEW;
        });
    }

    /** The I/O thread serves a request on its way: revokes, lends the bytes, and installs the copy that comes back. */
    @Operation(nonParallelGroup = "io")
    public void revokeLendAndGetBack() {
        Slot s = a.slots[1];
        s.grant(Access.NONE);
        byte[] sent = s.lend(BYTES).clone();
        s.install(sent, Access.READ_WRITE);
    }

    /** After both: a copy that reported success is in the partition. */
    @Validate
    public void aSuccessfulCopyIsNotLost() {
        if (!copied) return;
        byte[] d = a.slots[1].data;
        for (int i = 0; i < d.length; i++) {
            if (d[i] != NEW) throw new IllegalStateException("byte " + i + " of partition 1 is " + d[i] + " after a copy out that reported success");
        }
    }

    /** The mutant: no second look at the stamps after the copy. */
    public static class NotRechecked extends SlotCopyLincheckTest {
        @Override
        ScopeDirectory.Fault fault() { return ScopeDirectory.Fault.COPY_NOT_RECHECKED; }
    }

    @Test
    @Timeout(120)
    void aCopyOutThatReportsSuccessLostNoStoreToALend() {
        WorkerIoRace.check(SlotCopyLincheckTest.class);
    }

    @Test
    @Timeout(120)
    void aCopyWithoutTheSecondLookIsCaught() {
        WorkerIoRace.assertCaught(NotRechecked.class, "after a copy out that reported success");
    }
}
