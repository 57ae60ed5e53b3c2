package io.dsa.coherence;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.state.ActionChain;

/**
 * The property of {@link CoherencePropertiesTest} checked with a deliberately broken oracle that
 * forgets every write of node 1, on 2 nodes and 1 partition. It must fail. Not a test on its own
 * (the name keeps Surefire from selecting it): {@link CoherencePropertyFailsTest} runs it through
 * the JUnit Platform and checks that jqwik catches the failure and shrinks it.
 */
class BrokenOracleProperty {
    static final String SEED = "20261123";

    @Property(tries = 200, seed = SEED)
    void oracleForgettingNodeOnesWritesIsCaught(@ForAll("tiny") ActionChain<SimulatedClusterChain> chain) {
        CoherencePropertiesTest.runAndDrain(chain);
    }

    @Provide
    Arbitrary<ActionChain<SimulatedClusterChain>> tiny() {
        return SimulatedClusterChain.chains(7, 2, 1, 1, 2, 1, 1, 40);
    }
}
