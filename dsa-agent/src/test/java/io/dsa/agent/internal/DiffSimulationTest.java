package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Release and accumulate scopes' diffs racing plain coherence traffic, in the seeded {@link DiffSimulation} on
 * the real directories, engines and codec: nothing is lost and no stale copy survives over many
 * seeds; and each seeded bug of the home ({@link Diffs.Fault}) is found, with its seed.
 * {@code -Ddsa.test.seed=S} runs seed S alone.
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
        long accumulates = 0;
        long[] seeds = SimulatedNodes.seeds(SEEDS);
        for (long seed : seeds) {
            DiffSimulation s = new DiffSimulation(seed, null).run();
            diffs += s.diffsSent;
            copies += s.copiesAtReleaseEntry;
            owned += s.ownedAtReleaseEntry;
            reads += s.readsInside;
            accumulates += s.accumulateDiffsSent;
        }
        System.out.println("DiffSimulation: " + seeds.length + " seeds, " + diffs + " diffs, " + copies + " read copies and " + owned
                + " owned copies elsewhere at scope entry, " + reads + " reads inside, " + accumulates + " accumulate diffs");
        // the races the check is about did happen: copies to invalidate and owners to recall when the diffs arrived
        assertTrue(diffs > seeds.length && copies > seeds.length && owned > 0 && reads > seeds.length && accumulates > seeds.length,
                "coverage: " + diffs + " diffs, " + copies + " copies, " + owned + " owned, " + reads + " reads inside, "
                        + accumulates + " accumulate diffs");
    }

    @Test
    void aDiffWrittenBeforeTheCopiesAreInvalidatedIsFound() {
        assertFound(Diffs.Fault.APPLIED_BEFORE_INVALIDATION);
    }

    @Test
    void anAccumulateDiffWrittenInsteadOfCombinedIsFound() {
        assertFound(Diffs.Fault.ACCUMULATE_WRITTEN);
    }

    @Test
    void aLostDiffIsFound() {
        assertFound(Diffs.Fault.LOST);
    }

    private static void assertFound(Diffs.Fault fault) {
        String found = SimulatedNodes.firstFailure(SEEDS, fault.toString(), seed -> new DiffSimulation(seed, fault).run());
        assertTrue(found.contains("stale read"), found);
    }
}
