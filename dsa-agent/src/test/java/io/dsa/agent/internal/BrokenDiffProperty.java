package io.dsa.agent.internal;

import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link DiffPropertiesTest}'s properties, each with a seeded bug: the home writing a diff before
 * the copies elsewhere are invalidated, or an accumulate scope's combined updates instead of
 * combining them; a read cache opened before its copies arrive; owner computes without recalling
 * the other copies; an accumulate applied twice at its home. Each must fail. Not a test on its own
 * (the name keeps Surefire from selecting it): {@link DiffPropertyFailsTest} runs it through the
 * JUnit Platform and checks that jqwik finds each bug.
 */
class BrokenDiffProperty {
    static final String SEED = "20261129";

    @Property(tries = 25, seed = SEED, edgeCases = EdgeCasesMode.NONE)
    void aDiffWrittenBeforeTheCopiesAreInvalidatedIsCaught(@ForAll("schedules") List<Integer> choices) {
        new DiffSimulation(new SimulatedNodes.Schedule(choices), Diffs.Fault.APPLIED_BEFORE_INVALIDATION).run();
    }

    @Property(tries = 25, seed = SEED, edgeCases = EdgeCasesMode.NONE)
    void anAccumulateScopesUpdatesWrittenInsteadOfCombinedAreCaught(@ForAll("schedules") List<Integer> choices) {
        new DiffSimulation(new SimulatedNodes.Schedule(choices), Diffs.Fault.ACCUMULATE_WRITTEN).run();
    }

    @Property(tries = 25, seed = SEED, edgeCases = EdgeCasesMode.NONE)
    void aReadCacheOpenedBeforeItsCopiesArriveIsCaught(@ForAll("schedules") List<Integer> choices) {
        new ScopeSimulation(new SimulatedNodes.Schedule(choices), ScopeDirectory.Fault.FILL_NOT_AWAITED).run();
    }

    @Property(tries = 25, seed = SEED, edgeCases = EdgeCasesMode.NONE)
    void ownerComputesWithoutRecallingTheOtherCopiesIsCaught(@ForAll("schedules") List<Integer> choices) {
        new ScopeSimulation(new SimulatedNodes.Schedule(choices), ScopeDirectory.Fault.HOMES_READ_NOT_OWNED).run();
    }

    @Property(tries = 25, seed = SEED, edgeCases = EdgeCasesMode.NONE)
    void anAccumulateAppliedTwiceIsCaught(@ForAll("schedules") List<Integer> choices) {
        new AccumulateSimulation(new SimulatedNodes.Schedule(choices), Accumulator.Fault.APPLIED_TWICE).run();
    }

    @Provide
    Arbitrary<List<Integer>> schedules() {
        return DiffPropertiesTest.schedules();
    }
}
