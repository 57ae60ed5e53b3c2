package io.dsa.coherence;

import java.util.Random;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;

/**
 * Fixed chains of {@link SimulatedClusterChain} steps driven by a seeded {@link Random} instead of
 * jqwik (each seed is one chain, printed on failure), each run twice: with correct nodes, which
 * must pass (drained, everything completed), and with a seeded bug, which the checks should catch.
 * The tests of the chains' update and owner-computes steps use it to show those steps can fail.
 */
final class SeededChains {
    /** The chains: 4 nodes, 1 array of 2 partitions of 4 elements, 2 workers per node. */
    static final int NODES = 4;
    static final int WORKERS = 2;
    static final int PARTITIONS = 2;
    static final int ELEMENTS = 4;

    /** What the seeds gave: chains whose bug was caught, work the correct chains did, and the first failure of a broken chain (or null). */
    record Tally(int seeds, int caught, long work, AssertionError first) {}

    private SeededChains() {}

    /**
     * Runs seeds 1 to {@code seeds}, each chain {@code steps} random steps then the drain.
     *
     * @param bug turns the bug on in a fresh cluster (the broken run)
     * @param step one random step of the chain: its arguments drawn from the chain's {@link Random}
     * @param work what a correct chain did that the test wants to see done (counted over the seeds)
     * @throws AssertionError naming the seed if a correct chain fails
     */
    static Tally run(int seeds, int steps, Consumer<SimulatedCluster> bug, Step step, ToIntFunction<SimulatedCluster> work) {
        int caught = 0;
        long done = 0;
        AssertionError first = null;
        for (long seed = 1; seed <= seeds; seed++) {
            SimulatedClusterChain correct = new SimulatedClusterChain(new SimulatedCluster(seed, NODES, 1, PARTITIONS, ELEMENTS, WORKERS), -1);
            AssertionError failure = drive(correct, seed, steps, step);
            if (failure != null) throw new AssertionError("seed " + seed + " fails without the bug", failure);
            done += work.applyAsInt(correct.cluster);
            SimulatedClusterChain broken = new SimulatedClusterChain(new SimulatedCluster(seed, NODES, 1, PARTITIONS, ELEMENTS, WORKERS), -1);
            bug.accept(broken.cluster);
            failure = drive(broken, seed, steps, step);
            if (failure != null) {
                caught++;
                if (first == null) first = failure;
            }
        }
        return new Tally(seeds, caught, done, first);
    }

    /** One step of a chain, given the chain and the values the seeded {@link Random} drew for it. */
    @FunctionalInterface
    interface Step {
        /**
         * @param kind which step, in [0, 6)
         * @param node a node, worker, partition, element and a number for "the k-th" choices
         */
        void apply(SimulatedClusterChain m, Random rnd, int kind, int node, int worker, int partition, int element, int k);
    }

    // @return the chain's failure (with its seed and steps), or null if it passed
    private static AssertionError drive(SimulatedClusterChain m, long seed, int steps, Step step) {
        Random rnd = new Random(seed);
        try {
            for (int i = 0; i < steps; i++) {
                int n = rnd.nextInt(NODES), w = rnd.nextInt(WORKERS), p = rnd.nextInt(PARTITIONS), e = rnd.nextInt(ELEMENTS), k = rnd.nextInt(1000);
                step.apply(m, rnd, rnd.nextInt(6), n, w, p, e, k);
                m.checkInvariants();
            }
            m.drainAndCheckCompletion();
            return null;
        } catch (AssertionError err) {
            return m.failure(err);
        }
    }
}
