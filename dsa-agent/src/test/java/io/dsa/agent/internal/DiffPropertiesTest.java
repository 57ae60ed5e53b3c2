package io.dsa.agent.internal;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.statistics.Statistics;

/**
 * The scope paths as jqwik properties: {@link DiffSimulation} (release diffs and accumulate
 * scopes' combined updates written at the homes, racing plain MSI traffic on another array),
 * {@link ScopeSimulation} (read caches filled in bulk, owner computes taken and written back,
 * scope entry and exit racing plain traffic) and {@link AccumulateSimulation} (accumulates
 * outside scopes applied at the homes), each run on the real directories, engines and codec with every choice (the
 * workloads and the order of every step: I/O tasks, message deliveries, worker steps) taken from
 * a list jqwik generates ({@link SimulatedNodes.Schedule}). A failing list shrinks to a shorter
 * one, or smaller choices: a simpler schedule with the same bug. The seeded simulations
 * ({@code DiffSimulationTest}, {@code ScopeSimulationTest}) run many fixed seeds; these explore
 * and shrink. {@code DiffPropertyFailsTest} shows each path's seeded bug failing its property.
 */
class DiffPropertiesTest {
    /** Choices a run draws at most from its list; past it every choice is the first option. */
    static final int MAX_CHOICES = 6000;

    @Property(tries = 25, seed = "20261129")
    void releaseAndAccumulateDiffsRacingPlainTrafficLoseNothing(@ForAll("schedules") List<Integer> choices) {
        SimulatedNodes.Schedule schedule = new SimulatedNodes.Schedule(choices);
        DiffSimulation s = new DiffSimulation(schedule, null).run();
        Statistics.label("diffs").collect(s.diffsSent > 0 ? "some" : "none");
        Statistics.label("copies invalidated by a diff").collect(s.copiesAtReleaseEntry > 0 ? "some" : "none");
    }

    @Property(tries = 25, seed = "20261129")
    void scopeEntryAndExitRacingPlainTrafficLeaveNoStaleCopy(@ForAll("schedules") List<Integer> choices) {
        ScopeSimulation s = new ScopeSimulation(new SimulatedNodes.Schedule(choices), null).run();
        Statistics.label("read-cache fills").collect(s.regionFills > 0 ? "some" : "none");
    }

    @Property(tries = 25, seed = "20261129")
    void accumulatesAtTheHomesRacingPlainTrafficAddEveryAmountOnce(@ForAll("schedules") List<Integer> choices) {
        AccumulateSimulation s = new AccumulateSimulation(new SimulatedNodes.Schedule(choices), null).run();
        Statistics.label("accumulate parts").collect(s.partsSent > 0 ? "some" : "none");
    }

    /** Lists of choices, each in [0, 2^16]: {@code c % k} picks among {@code k} options. */
    @Provide
    static Arbitrary<List<Integer>> schedules() {
        // list lengths spread evenly up to a whole run's choices (jqwik's default favours short lists)
        return Arbitraries.integers().between(0, 1 << 16).list().ofMaxSize(MAX_CHOICES)
                .withSizeDistribution(RandomDistribution.uniform());
    }
}
