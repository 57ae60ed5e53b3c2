package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Release scopes' diffs racing plain coherence traffic, in the seeded {@link DiffSimulation} on
 * the real directories, engines and codec: nothing is lost and no stale copy survives over many
 * seeds; and each seeded bug of the home ({@link Diffs.Fault}) is found, with its seed.
 */
@Timeout(120)
class DiffSimulationTest {
    static final int SEEDS = 150;

    @Test
    void diffsRacingPlainTrafficLoseNothingAndLeaveNoStaleCopy() {
        long diffs = 0;
        long copies = 0;
        long owned = 0;
        long reads = 0;
        for (long seed = 1; seed <= SEEDS; seed++) {
            DiffSimulation s = new DiffSimulation(seed, null).run();
            diffs += s.diffsSent;
            copies += s.copiesAtReleaseEntry;
            owned += s.ownedAtReleaseEntry;
            reads += s.readsInside;
        }
        System.out.println("DiffSimulation: " + SEEDS + " seeds, " + diffs + " diffs, " + copies + " read copies and " + owned
                + " owned copies elsewhere at scope entry, " + reads + " reads inside");
        // the races the check is about did happen: copies to invalidate and owners to recall when the diffs arrived
        assertTrue(diffs > SEEDS && copies > SEEDS && owned > 0 && reads > SEEDS,
                "coverage: " + diffs + " diffs, " + copies + " copies, " + owned + " owned, " + reads + " reads inside");
    }

    @Test
    void aDiffWrittenBeforeTheCopiesAreInvalidatedIsFound() {
        String found = firstFailure(Diffs.Fault.APPLIED_BEFORE_INVALIDATION);
        assertTrue(found.contains("stale read"), found);
    }

    @Test
    void aLostDiffIsFound() {
        String found = firstFailure(Diffs.Fault.LOST);
        assertTrue(found.contains("stale read"), found);
    }

    /** @return the message of the first seed whose run fails with {@code fault}, which names the seed */
    private static String firstFailure(Diffs.Fault fault) {
        for (long seed = 1; seed <= SEEDS; seed++) {
            try {
                new DiffSimulation(seed, fault).run();
            } catch (AssertionError e) {
                System.out.println(fault + " found: " + e.getMessage());
                assertTrue(e.getMessage().startsWith("seed " + seed + ": "), e.getMessage());
                return e.getMessage();
            }
        }
        throw new AssertionError(fault + " was not found in " + SEEDS + " seeds");
    }
}
