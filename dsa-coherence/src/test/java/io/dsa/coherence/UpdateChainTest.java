package io.dsa.coherence;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The update steps of the jqwik chains ({@link SimulatedClusterChain#withUpdates}) can fail: driven
 * by a seeded {@link Random} instead of jqwik (so each seed is one fixed chain, printed on failure),
 * a home that writes updates once it may only read the partition, before the other copies are
 * invalidated, is caught by a stale read, while the same chains with correct homes all pass.
 */
class UpdateChainTest {
    static final int SEEDS = 60;
    static final int STEPS = 400;

    /** The outcome of one chain: its failure (null if it passed: drained, every update answered) and the updates its homes wrote. */
    private record Outcome(AssertionError failure, int updatesWritten) {}

    private static Outcome run(long seed, boolean fault) {
        SimulatedClusterChain m = new SimulatedClusterChain(new SimulatedCluster(seed, 4, 1, 2, 4, 2), -1);
        m.cluster.updateBeforeInvalidation = fault;
        Random rnd = new Random(seed);
        try {
            for (int i = 0; i < STEPS; i++) {
                int n = rnd.nextInt(4), w = rnd.nextInt(2), p = rnd.nextInt(2), e = rnd.nextInt(4), k = rnd.nextInt(1000);
                switch (rnd.nextInt(6)) {
                    case 0 -> m.issue(n, w, SimulatedCluster.ARRAY_IDS[0], p, e, rnd.nextInt(3) == 0);
                    case 1 -> m.update(n, w, SimulatedCluster.ARRAY_IDS[0], p, e, rnd.nextBoolean());
                    case 2 -> m.retry(k);
                    case 3 -> m.deliver(k);
                    default -> m.updateStep(rnd.nextInt(3), k);
                }
                m.checkInvariants();
            }
            m.drainAndCheckCompletion();
            return new Outcome(null, m.cluster.updatesWritten);
        } catch (AssertionError err) {
            return new Outcome(m.failure(err), m.cluster.updatesWritten);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aHomeWritingUpdatesBeforeInvalidatingIsCaughtAndCorrectHomesPass() {
        int caught = 0;
        long written = 0;
        AssertionError first = null;
        for (long seed = 1; seed <= SEEDS; seed++) {
            Outcome correct = run(seed, false);
            if (correct.failure() != null) throw new AssertionError("seed " + seed + " fails with correct homes", correct.failure());
            written += correct.updatesWritten();
            AssertionError broken = run(seed, true).failure();
            if (broken != null) {
                caught++;
                if (first == null) first = broken;
            }
        }
        assertTrue(written > SEEDS * 10L, "the correct chains' homes wrote " + written + " updates");
        AssertionError shown = first;
        assertTrue(caught > 0, "the bug is caught in some of " + SEEDS + " seeds");
        assertTrue(shown.getMessage().contains("stale read"), () -> shown.getMessage());
        System.out.println("updates written before invalidating: caught in " + caught + " of " + SEEDS + " seeds; first:\n"
                + shown.getMessage().lines().limit(3).reduce((a, b) -> a + "\n" + b).orElse(""));
    }
}
