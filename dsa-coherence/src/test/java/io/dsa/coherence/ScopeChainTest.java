package io.dsa.coherence;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The owner-computes steps of the jqwik chains ({@link SimulatedClusterChain#withOwnerComputes})
 * can fail: in 60 fixed seeded chains ({@link SeededChains}), an exit that copies the plain array
 * back without taking its partition again is caught (a copy served during the scope stays valid
 * and stale), while the same chains with correct exits all pass.
 */
class ScopeChainTest {
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anExitWithoutTakingThePartitionAgainIsCaughtAndCorrectExitsPass() {
        SeededChains.Tally t = SeededChains.run(60, 400, c -> c.exitWithoutOwnership = true, (m, rnd, kind, n, w, p, e, k) -> {
            switch (kind) {
                case 0 -> m.issue(n, w, SimulatedCluster.ARRAY_IDS[0], p, e, rnd.nextInt(3) == 0);
                case 1 -> m.ownerComputes(n, w, k);
                case 2 -> m.retry(k);
                case 3 -> m.push(k);
                default -> m.deliver(k);
            }
        }, c -> c.scopesExited);
        System.out.println("owner-computes scopes exited in " + t.seeds() + " correct chains: " + t.work() + "; exits without the partition"
                + " caught in " + t.caught() + " of " + t.seeds() + " chains"
                + (t.first() == null ? "" : ", first: " + t.first().getMessage().lines().findFirst().orElse("")));
        assertTrue(t.work() > t.seeds(), "the chains exit scopes: " + t.work());
        assertTrue(t.caught() >= t.seeds() / 2, "exits without the partition caught in " + t.caught() + " of " + t.seeds() + " chains");
    }
}
