package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Accumulates at the home racing plain coherence traffic, in the seeded
 * {@link AccumulateSimulation} on the real directories, engines, codec and {@link Accumulator}:
 * every update is applied exactly once and no stale copy survives over many seeds; and each
 * seeded bug of the home ({@link Accumulator.Fault}) is found, with its seed.
 * {@code -Ddsa.test.seed=S} runs seed S alone.
 */
@Timeout(120)
class AccumulateSimulationTest {
    static final int SEEDS = 100;

    @Test
    void accumulatesRacingPlainTrafficApplyEachUpdateOnceAndLeaveNoStaleCopy() {
        long parts = 0;
        long copies = 0;
        long owned = 0;
        long reads = 0;
        for (long seed : SimulatedNodes.seeds(SEEDS)) {
            AccumulateSimulation s = new AccumulateSimulation(seed, null).run();
            parts += s.partsSent;
            copies += s.copiesAtEntry;
            owned += s.ownedAtEntry;
            reads += s.racingReads;
        }
        System.out.println("AccumulateSimulation: " + parts + " accumulate parts, " + copies + " read copies and " + owned
                + " owned copies elsewhere at phase entry, " + reads + " reads racing the updates");
        // the races the check is about did happen: copies to invalidate and owners to recall when the updates arrived
        assertTrue(parts > 0 && copies > 0 && owned > 0 && reads > 0,
                "coverage: " + parts + " parts, " + copies + " copies, " + owned + " owned, " + reads + " racing reads");
    }

    @Test
    void anUpdateAppliedBeforeTheCopiesAreInvalidatedIsFound() {
        assertFound(Accumulator.Fault.APPLIED_BEFORE_INVALIDATION);
    }

    @Test
    void anUpdateAppliedTwiceIsFound() {
        assertFound(Accumulator.Fault.APPLIED_TWICE);
    }

    @Test
    void aLostUpdateIsFound() {
        assertFound(Accumulator.Fault.LOST);
    }

    private static void assertFound(Accumulator.Fault fault) {
        String found = SimulatedNodes.firstFailure(SEEDS, fault.toString(), seed -> new AccumulateSimulation(seed, fault).run());
        assertTrue(found.contains("stale read"), found);
    }
}
