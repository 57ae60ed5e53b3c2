package io.dsa.agent.internal;

import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link DiffPropertiesTest}'s release property with a seeded bug of the home
 * ({@link Diffs.Fault#APPLIED_BEFORE_INVALIDATION}: a diff written before the copies elsewhere
 * are invalidated). It must fail. Not a test on its own (the name keeps Surefire from selecting
 * it): {@link DiffPropertyFailsTest} runs it through the JUnit Platform and checks that jqwik
 * finds the bug and shrinks the schedule.
 */
class BrokenDiffProperty {
    static final String SEED = "20261129";

    @Property(tries = 25, seed = SEED)
    void aDiffWrittenBeforeTheCopiesAreInvalidatedIsCaught(@ForAll("schedules") List<Integer> choices) {
        new DiffSimulation(new SimulatedNodes.Schedule(choices), Diffs.Fault.APPLIED_BEFORE_INVALIDATION).run();
    }

    @Provide
    Arbitrary<List<Integer>> schedules() {
        return DiffPropertiesTest.schedules();
    }
}
