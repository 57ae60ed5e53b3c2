package io.dsa.agent.internal;

import io.dsa.coherence.Access;
import io.dsa.agent.wire.DiffMessage;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Lincheck model checking of a switch's worker writing pushed diffs ({@link PushedDiffs#apply})
 * while the node's I/O thread installs a copy of the same partition from before the diffs
 * ({@link PushedDiffs#install}): whichever runs first, once both are done the copy holds the diffs
 * (a {@link Validate} check after every interleaving).
 *
 * <p>The fixture is array "A" of {@link ArrayDirectoryTest} at node 1 (8 doubles, partitions of
 * 4); partition 0, homed at node 0, has no valid copy here until the install. Elements are compared
 * by their first byte.
 *
 * <p>The seeded bug {@link PushedDiffs.Fault#INSTALLS_NOT_AWAITED}, a worker that does not wait
 * for an install that read no patch, is caught: the install publishes the old copy after the worker
 * found no valid copy to write.
 */
public class PushedDiffsLincheckTest {
    private static final byte OLD = 1;
    private static final byte NEW = 7;

    private final ArrayState a = new ArrayState(ArrayDirectoryTest.A, Specs.fromParams("A", ArrayDirectoryTest.PARAMS), 2, 1, 1);
    private final Map<Integer, List<PushedDiffs.Pushed>> diffs;

    public PushedDiffsLincheckTest() {
        byte[] element = new byte[Double.BYTES];
        Arrays.fill(element, NEW);
        diffs = Map.of(0, List.of(PushedDiffs.Pushed.of(0, new long[] {DiffMessage.run(1, 1)}, element)));
    }

    PushedDiffs.Fault fault() { return null; }

    /** The I/O thread installs a read copy of partition 0 from before the diffs. */
    @Operation(nonParallelGroup = "io")
    public void installOld() {
        byte[] copy = new byte[4 * Double.BYTES];
        Arrays.fill(copy, OLD);
        PushedDiffs.install(a, 0, copy, Access.READ);
    }

    /** The switch's worker writes the pushed diff (element 1 of partition 0). */
    @Operation(nonParallelGroup = "worker")
    public void applyPushed() { PushedDiffs.apply(a, diffs, fault()); }

    /** After both: the copy is readable and holds the diff. */
    @Validate
    public void theCopyHoldsTheDiff() {
        Slot s = a.slots[0];
        if (!Slot.readable(s.stamp) || a.patch == null) return;   // not both ran (a scenario of one thread)
        if (s.data[Double.BYTES] != NEW) {
            throw new IllegalStateException("element 1 of partition 0 is " + s.data[Double.BYTES] + " after the install and the diffs, expected " + NEW);
        }
    }

    /** The mutant: the worker does not wait for installs under way. */
    public static class NotAwaited extends PushedDiffsLincheckTest {
        @Override
        PushedDiffs.Fault fault() { return PushedDiffs.Fault.INSTALLS_NOT_AWAITED; }
    }

    @Test
    @Timeout(120)
    void anInstallRacingTheWorkersDiffsEndsWithThem() {
        WorkerIoRace.check(PushedDiffsLincheckTest.class);
    }

    @Test
    @Timeout(120)
    void aWorkerThatDoesNotWaitForInstallsIsCaught() {
        WorkerIoRace.assertCaught(NotAwaited.class, "after the install and the diffs");
    }
}
