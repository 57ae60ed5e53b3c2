package io.dsa.coherence;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The update steps of the jqwik chains ({@link SimulatedClusterChain#withUpdates}) can fail: in 60
 * fixed seeded chains ({@link SeededChains}), a home that writes updates once it may only read the
 * partition, before the other copies are invalidated, is caught by a stale read, while the same
 * chains with correct homes all pass.
 */
class UpdateChainTest {
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aHomeWritingUpdatesBeforeInvalidatingIsCaughtAndCorrectHomesPass() {
        SeededChains.Tally t = SeededChains.run(60, 400, c -> c.updateBeforeInvalidation = true, (m, rnd, kind, n, w, p, e, k) -> {
            switch (kind) {
                case 0 -> m.issue(n, w, SimulatedCluster.ARRAY_IDS[0], p, e, rnd.nextInt(3) == 0);
                case 1 -> m.update(n, w, SimulatedCluster.ARRAY_IDS[0], p, e, rnd.nextBoolean());
                case 2 -> m.retry(k);
                case 3 -> m.deliver(k);
                default -> m.updateStep(rnd.nextInt(3), k);
            }
        }, c -> c.updatesWritten);
        assertTrue(t.work() > t.seeds() * 10L, "the correct chains' homes wrote " + t.work() + " updates");
        assertTrue(t.caught() > 0, "the bug is caught in some of " + t.seeds() + " seeds");
        AssertionError shown = t.first();
        assertTrue(shown.getMessage().contains("stale read"), () -> shown.getMessage());
        System.out.println("updates written before invalidating: caught in " + t.caught() + " of " + t.seeds() + " seeds; first:\n"
                + shown.getMessage().lines().limit(3).reduce((a, b) -> a + "\n" + b).orElse(""));
    }
}
