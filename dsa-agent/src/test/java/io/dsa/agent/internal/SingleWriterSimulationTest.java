package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Messages delayed by seeded amounts but in order on each pair of nodes (TCP's guarantee, the
 * protocol's assumption) keep the arrays coherent: over many seeds no two nodes ever hold a
 * partition READ_WRITE at once, nor one READ_WRITE while another reads it, and no read is stale
 * ({@link SingleWriterSimulation}). {@code -Ddsa.test.seed=S} runs seed S alone.
 */
@Timeout(120)
class SingleWriterSimulationTest {
    static final int SEEDS = 100;

    @Test
    void delayedButInOrderMessagesNeverLeaveTwoWritersOrAWriterAndAReader() {
        long[] seeds = SimulatedNodes.seeds(SEEDS);
        long owned = 0;
        for (long seed : seeds) owned += new SingleWriterSimulation(seed, false).run().stepsWithRemoteOwner;
        System.out.println("SingleWriterSimulation: " + seeds.length + " seeds, " + owned + " steps checked with a partition owned away from its home");
        assertTrue(owned > seeds.length, "coverage: only " + owned + " steps had a partition owned away from its home");
    }

    /** The checks catch a broken order: messages overtaking others on their pair are found (a check or an engine's refusal), with the seed. */
    @Test
    void messagesOvertakingOthersOnTheirPairAreFound() {
        String found = SimulatedNodes.firstFailure(SEEDS, "reordering", seed -> new SingleWriterSimulation(seed, true).run());
        assertTrue(found.contains("at once") || found.contains("stale read") || found.contains("refused: "), found);
    }
}
