package io.dsa.coherence;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.ActionChainArbitrary;
import net.jqwik.api.state.Transformer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The state of a jqwik action chain over a {@link SimulatedCluster}: instead of the cluster's own
 * random loop, every step (a worker issuing a read or a write, a worker upgrading a shared copy to
 * a write, a worker retrying its miss, one message delivered from a chosen pair queue, and where
 * asked a push, an overwrite, or an update sent, arriving, written or answered) is a jqwik
 * action, so jqwik generates the interleaving and shrinks a failing one to a short sequence.
 *
 * <p>The cluster's own checks apply: every read compares with the last completed write, and
 * {@link #checkInvariants()} (one writer or many readers; engine and store agree) runs after every
 * step. {@link #drainAndCheckCompletion()} at the end of a chain proves every request completes.
 */
final class SimulatedClusterChain {
    final SimulatedCluster cluster;
    /** test-only mutation of the oracle: forget the writes of this node (-1: a correct oracle) */
    final int forgetWritesOf;
    final List<String> steps = new ArrayList<>();

    SimulatedClusterChain(SimulatedCluster cluster, int forgetWritesOf) {
        this.cluster = cluster;
        this.forgetWritesOf = forgetWritesOf;
    }

    /** The chain over a cluster of the given shape; {@code seed} fixes the homes and the end-of-chain drain order. */
    static ActionChainArbitrary<SimulatedClusterChain> chains(long seed, int nodes, int arrays, int partitions, int elements,
                                                      int workersPerNode, int forgetWritesOf, int maxSteps) {
        return chains(seed, nodes, arrays, partitions, elements, workersPerNode, forgetWritesOf, maxSteps, 0);
    }

    /** The same with pushes ({@link #push}) of weight {@code pushWeight} among the actions (0: none). */
    static ActionChainArbitrary<SimulatedClusterChain> chains(long seed, int nodes, int arrays, int partitions, int elements,
                                                      int workersPerNode, int forgetWritesOf, int maxSteps, int pushWeight) {
        return chains(seed, nodes, arrays, partitions, elements, workersPerNode, forgetWritesOf, maxSteps, pushWeight, 0);
    }

    /**
     * The same with overwrites ({@link #overwrite}: a worker writes every element of a partition, asking
     * for ownership without data) of weight {@code overwriteWeight} among the actions (0: none).
     */
    static ActionChainArbitrary<SimulatedClusterChain> chains(long seed, int nodes, int arrays, int partitions, int elements,
                                                      int workersPerNode, int forgetWritesOf, int maxSteps, int pushWeight,
                                                      int overwriteWeight) {
        ActionChainArbitrary<SimulatedClusterChain> chains = ActionChain.<SimulatedClusterChain>startWith(() -> new SimulatedClusterChain(
                        new SimulatedCluster(seed, nodes, arrays, partitions, elements, workersPerNode), forgetWritesOf))
                .withAction(4, issue(nodes, arrays, partitions, elements, workersPerNode))
                .withAction(1, upgrade(nodes, workersPerNode))
                .withAction(3, retry())
                .withAction(5, deliver())
                .withMaxTransformations(maxSteps);
        if (pushWeight > 0) chains = chains.withAction(pushWeight, push());
        if (overwriteWeight > 0) chains = chains.withAction(overwriteWeight, overwrite(nodes, arrays, partitions, workersPerNode));
        return chains;
    }

    /**
     * The same with updates among the actions, of weight {@code updateWeight}: a worker sends a diff
     * of one element or an accumulate into it to the partition's home ({@link #update}), an update
     * in flight arrives there and is written if the home may write the partition, a home writes the
     * updates that wait for its access, an answer reaches its worker.
     */
    static ActionChainArbitrary<SimulatedClusterChain> withUpdates(ActionChainArbitrary<SimulatedClusterChain> chains, int nodes, int arrays,
                                                           int partitions, int elements, int workersPerNode, int updateWeight) {
        return chains.withAction(updateWeight, update(nodes, arrays, partitions, elements, workersPerNode))
                .withAction(updateWeight, new Action.Independent<>() {
                    @Override
                    public boolean precondition(SimulatedClusterChain m) { return m.cluster.anyUpdate(); }

                    @Override
                    public Arbitrary<Transformer<SimulatedClusterChain>> transformer() {
                        return Combinators.combine(Arbitraries.integers().between(0, 2), Arbitraries.integers().between(0, 1000))
                                .as((what, k) -> step("update step " + what + " #" + k, m -> m.updateStep(what, k)));
                    }
                });
    }

    /** An idle worker sends a diff of one element, or an accumulate into it, to the partition's home (a busy one retries instead). */
    static Action<SimulatedClusterChain> update(int nodes, int arrays, int partitions, int elements, int workersPerNode) {
        Arbitrary<Transformer<SimulatedClusterChain>> steps = Combinators.combine(Arbitraries.integers().between(0, nodes - 1),
                        Arbitraries.integers().between(0, workersPerNode - 1), Arbitraries.integers().between(0, arrays - 1),
                        Arbitraries.integers().between(0, partitions - 1), Arbitraries.integers().between(0, elements - 1),
                        Arbitraries.of(false, true))
                .as((n, w, a, p, e, acc) -> step((acc ? "accumulate n" : "diff n") + n + "w" + w + " " + SimulatedCluster.ARRAY_IDS[a] + ":"
                        + p + "[" + e + "]", m -> m.update(n, w, SimulatedCluster.ARRAY_IDS[a], p, e, acc)));
        return new Action.Independent<>() {
            @Override
            public Arbitrary<Transformer<SimulatedClusterChain>> transformer() { return steps; }
        };
    }

    void update(int node, int worker, int arrayId, int partition, int element, boolean accumulate) {
        SimulatedCluster.Worker w = cluster.workers[node][worker];
        if (w.busy) {
            record("retry " + w);
            complete(w);
            return;
        }
        if (inScopeAt(node, arrayId, partition)) {
            record("n" + node + "w" + worker + " leaves " + arrayId + ":" + partition + " alone: owner computes at its node");
            return;
        }
        cluster.sendUpdate(w, arrayId, partition, element, accumulate);
        record("send " + (accumulate ? "accumulate " : "diff ") + "from " + w);
    }

    /** {@code what}: 0 an update in flight arrives, 1 a home writes the updates waiting for it, 2 an answer arrives (each the k-th, modulo). */
    void updateStep(int what, int k) {
        if (what == 0) {
            record(cluster.deliverUpdate(k));
        } else if (what == 1) {
            List<SimulatedCluster.Update> heads = new ArrayList<>();
            for (List<SimulatedCluster.Update> w : cluster.updatesWaiting.values()) if (!w.isEmpty()) heads.add(w.get(0));
            if (heads.isEmpty()) {
                record("write updates: none waits");
                return;
            }
            SimulatedCluster.Update u = heads.get(k % heads.size());
            record("home of " + u.arrayId() + ":" + u.partition() + " writes the updates waiting");
            cluster.writeUpdates(u.arrayId(), u.partition());
        } else {
            record(cluster.deliverAnswer(k));
        }
    }

    /**
     * The same with owner-computes scopes among the actions, of weight {@code scopeWeight}: an idle
     * worker outside a scope enters one over a partition its node homes ({@link #ownerComputes}),
     * one inside its scope exits it; meanwhile the node's other workers leave that partition alone
     * (the scope caps them) and the other nodes' reads, writes, pushes and updates go on.
     */
    static ActionChainArbitrary<SimulatedClusterChain> withOwnerComputes(ActionChainArbitrary<SimulatedClusterChain> chains, int nodes,
                                                                 int workersPerNode, int scopeWeight) {
        Arbitrary<Transformer<SimulatedClusterChain>> steps = Combinators.combine(Arbitraries.integers().between(0, nodes - 1),
                        Arbitraries.integers().between(0, workersPerNode - 1), Arbitraries.integers().between(0, 1000))
                .as((n, w, k) -> step("owner computes n" + n + "w" + w + " #" + k, m -> m.ownerComputes(n, w, k)));
        return chains.withAction(scopeWeight, new Action.Independent<>() {
            @Override
            public Arbitrary<Transformer<SimulatedClusterChain>> transformer() { return steps; }
        });
    }

    /**
     * Worker {@code worker} of {@code node}: a busy one retries; one inside an owner-computes scope
     * exits it; any other enters one over the k-th partition (modulo their number) its node homes
     * and no other worker of the node has in a scope.
     */
    void ownerComputes(int node, int worker, int k) {
        SimulatedCluster.Worker w = cluster.workers[node][worker];
        if (w.busy) {
            record("retry " + w);
            complete(w);
            return;
        }
        if (w.scopeArray >= 0) {
            w.startScope(w.scopeArray, w.scopePartition, 2);
        } else {
            List<int[]> homed = new ArrayList<>();
            for (int a = 0; a < cluster.arrays; a++) {
                for (int p = 0; p < cluster.partitions; p++) {
                    int arrayId = SimulatedCluster.ARRAY_IDS[a];
                    if (cluster.home[a][p] == node && !inScopeAt(node, arrayId, p)) homed.add(new int[] {arrayId, p});
                }
            }
            if (homed.isEmpty()) {
                record("owner computes n" + node + ": no partition homed there outside a scope");
                return;
            }
            int[] ap = homed.get(k % homed.size());
            w.startScope(ap[0], ap[1], 1);
        }
        record("issue " + w);
        complete(w);
    }

    /** @return whether a worker of {@code node} is inside an owner-computes scope over the partition (or on its way in or out) */
    boolean inScopeAt(int node, int arrayId, int partition) {
        for (SimulatedCluster.Worker o : cluster.workers[node]) {
            boolean scoped = o.scopeArray == arrayId && o.scopePartition == partition
                    || o.busy && o.scopeStep > 0 && o.arrayId == arrayId && o.partition == partition;
            if (scoped) return true;
        }
        return false;
    }

    /** An idle worker starts an overwrite of a whole partition (a busy one retries instead). */
    static Action<SimulatedClusterChain> overwrite(int nodes, int arrays, int partitions, int workersPerNode) {
        Arbitrary<Transformer<SimulatedClusterChain>> steps = Combinators.combine(Arbitraries.integers().between(0, nodes - 1),
                        Arbitraries.integers().between(0, workersPerNode - 1), Arbitraries.integers().between(0, arrays - 1),
                        Arbitraries.integers().between(0, partitions - 1))
                .as((n, w, a, p) -> step("overwrite n" + n + "w" + w + " " + SimulatedCluster.ARRAY_IDS[a] + ":" + p,
                        m -> m.issue(n, w, SimulatedCluster.ARRAY_IDS[a], p, 0, true, true)));
        return new Action.Independent<>() {
            @Override
            public Arbitrary<Transformer<SimulatedClusterChain>> transformer() { return steps; }
        };
    }

    /** A home pushes the k-th partition it may push now (modulo their number) to a node that holds no copy. */
    static Action<SimulatedClusterChain> push() {
        return new Action.Independent<>() {
            @Override
            public Arbitrary<Transformer<SimulatedClusterChain>> transformer() {
                return Arbitraries.integers().between(0, 1000).map(k -> step("push #" + k, s -> s.push(k)));
            }
        };
    }

    /** A node drops the k-th shared copy it may drop now (modulo their number), telling its home (PUT_S). */
    static Action<SimulatedClusterChain> drop() {
        return new Action.Independent<>() {
            @Override
            public Arbitrary<Transformer<SimulatedClusterChain>> transformer() {
                return Arbitraries.integers().between(0, 1000).map(k -> step("drop #" + k, s -> s.drop(k)));
            }
        };
    }

    /** {@code chains} with drops ({@link #drop}: self-invalidation) of weight {@code dropWeight} among the actions. */
    static ActionChainArbitrary<SimulatedClusterChain> withDrops(ActionChainArbitrary<SimulatedClusterChain> chains, int dropWeight) {
        return chains.withAction(dropWeight, drop());
    }

    /** An idle worker starts a read or a write of one element (a busy one retries instead). */
    static Action<SimulatedClusterChain> issue(int nodes, int arrays, int partitions, int elements, int workersPerNode) {
        Arbitrary<Integer> node = Arbitraries.integers().between(0, nodes - 1);
        Arbitrary<Integer> worker = Arbitraries.integers().between(0, workersPerNode - 1);
        Arbitrary<Integer> array = Arbitraries.integers().between(0, arrays - 1);
        Arbitrary<Integer> partition = Arbitraries.integers().between(0, partitions - 1);
        Arbitrary<Integer> element = Arbitraries.integers().between(0, elements - 1);
        Arbitrary<Boolean> write = Arbitraries.of(false, true);
        Arbitrary<Transformer<SimulatedClusterChain>> steps = Combinators.combine(node, worker, array, partition, element, write)
                .as((n, w, a, p, e, wr) -> step(
                        (wr ? "write n" : "read n") + n + "w" + w + " " + SimulatedCluster.ARRAY_IDS[a] + ":" + p + "[" + e + "]",
                        m -> m.issue(n, w, SimulatedCluster.ARRAY_IDS[a], p, e, wr)));
        return new Action.Independent<>() {
            @Override
            public Arbitrary<Transformer<SimulatedClusterChain>> transformer() { return steps; }
        };
    }

    /** A node that holds a readable copy writes to it: an upgrade from SHARED (or a hit when exclusive). */
    static Action<SimulatedClusterChain> upgrade(int nodes, int workersPerNode) {
        return new Action.Independent<>() {
            @Override
            public Arbitrary<Transformer<SimulatedClusterChain>> transformer() {
                return Combinators.combine(Arbitraries.integers().between(0, nodes - 1),
                                Arbitraries.integers().between(0, workersPerNode - 1), Arbitraries.integers().between(0, 1000))
                        .as((n, w, k) -> step("upgrade n" + n + "w" + w + " #" + k, m -> m.upgrade(n, w, k)));
            }
        };
    }

    /** The k-th busy worker (modulo their number) retries its access, as a woken worker thread would. */
    static Action<SimulatedClusterChain> retry() {
        return new Action.Independent<>() {
            @Override
            public boolean precondition(SimulatedClusterChain m) { return m.cluster.anyBusyWorker(); }

            @Override
            public Arbitrary<Transformer<SimulatedClusterChain>> transformer() {
                return Arbitraries.integers().between(0, 1000)
                        .map(k -> step("retry #" + k, s -> s.retry(k)));
            }
        };
    }

    /** The head of the k-th non-empty pair queue (modulo their number) is delivered: FIFO per pair, any order across pairs. */
    static Action<SimulatedClusterChain> deliver() {
        return new Action.Independent<>() {
            @Override
            public boolean precondition(SimulatedClusterChain m) { return m.cluster.anyMessage(); }

            @Override
            public Arbitrary<Transformer<SimulatedClusterChain>> transformer() {
                return Arbitraries.integers().between(0, 1000)
                        .map(k -> step("deliver #" + k, s -> s.deliver(k)));
            }
        };
    }

    /** A named step; a failure inside it names the cluster's seed and trace and every step of the chain. */
    static Transformer<SimulatedClusterChain> step(String name, java.util.function.Consumer<SimulatedClusterChain> body) {
        return Transformer.mutate(name, m -> {
            try {
                body.accept(m);
            } catch (AssertionError | RuntimeException e) {
                throw m.failure(e);
            }
        });
    }

    void issue(int node, int worker, int arrayId, int partition, int element, boolean write) {
        issue(node, worker, arrayId, partition, element, write, false);
    }

    void issue(int node, int worker, int arrayId, int partition, int element, boolean write, boolean overwrite) {
        SimulatedCluster.Worker w = cluster.workers[node][worker];
        if (w.busy) {
            record("retry " + w);
            complete(w);
            return;
        }
        if (inScopeAt(node, arrayId, partition)) {   // the scope caps the node's workers: a real access there fails
            record("n" + node + "w" + worker + " leaves " + arrayId + ":" + partition + " alone: owner computes at its node");
            return;
        }
        w.start(arrayId, partition, element, write, overwrite, false);
        record("issue " + w);
        complete(w);
    }

    void upgrade(int node, int worker, int k) {
        List<int[]> readable = new ArrayList<>();
        for (int a : java.util.Arrays.copyOf(SimulatedCluster.ARRAY_IDS, cluster.arrays)) {
            for (int p = 0; p < cluster.partitions; p++) {
                if (cluster.store[node].access(a, p).allows(Access.READ)) readable.add(new int[] {a, p});
            }
        }
        if (readable.isEmpty()) {
            record("upgrade n" + node + ": no readable copy");
            return;
        }
        int[] ap = readable.get(k % readable.size());
        issue(node, worker, ap[0], ap[1], k % cluster.elements, true);
    }

    void retry(int k) {
        List<SimulatedCluster.Worker> busy = new ArrayList<>();
        for (SimulatedCluster.Worker[] ws : cluster.workers) for (SimulatedCluster.Worker w : ws) if (w.busy) busy.add(w);
        if (busy.isEmpty()) return;
        SimulatedCluster.Worker w = busy.get(k % busy.size());
        record("retry " + w);
        complete(w);
    }

    void deliver(int k) {
        List<ArrayDeque<CoherenceMessage>> ready = new ArrayList<>();
        for (ArrayDeque<CoherenceMessage> q : cluster.queues) if (!q.isEmpty()) ready.add(q);
        if (ready.isEmpty()) return;
        CoherenceMessage m = ready.get(k % ready.size()).removeFirst();
        cluster.messages++;
        record("deliver " + m);
        cluster.answered(m);
        cluster.engine[m.destination()].onMessage(m);
    }

    void drop(int k) {
        String dropped = cluster.drop(k);
        record(dropped == null ? "drop: none possible" : dropped);
    }

    void push(int k) {
        String pushed = cluster.push(k);
        record(pushed == null ? "push: none possible" : pushed);
    }

    /** Performs the access if the copy allows it (checking a read against the oracle), else (re)requests; an update waits for its answer. */
    void complete(SimulatedCluster.Worker w) {
        if (w.update) return;
        boolean performs = cluster.store[w.node].access(w.arrayId, w.partition).allows(w.needed());
        long key = cluster.elementKey(w.arrayId, w.partition, w.element);
        Integer before = cluster.oracle.get(key);
        cluster.tryComplete(w);
        if (performs && w.write && w.node == forgetWritesOf) {
            // the deliberately broken oracle of the checker's own test
            if (before == null) cluster.oracle.remove(key);
            else cluster.oracle.put(key, before);
        }
    }

    void record(String what) {
        cluster.step++;
        cluster.event(what);
        steps.add(what);
    }

    void checkInvariants() {
        try {
            cluster.checkInvariants();
        } catch (AssertionError | RuntimeException e) {
            throw failure(e);
        }
    }

    /** Workers keep retrying while messages flow (in the cluster's seeded order) until all is quiet, then checks completion. */
    void drainAndCheckCompletion() {
        try {
            drain();
        } catch (AssertionError | RuntimeException e) {
            throw failure(e);
        }
    }

    private void drain() {
        int guard = 0;
        for (SimulatedCluster.Worker[] ws : cluster.workers) {   // every owner-computes scope closes
            for (SimulatedCluster.Worker w : ws) {
                if (!w.busy && w.scopeArray >= 0) w.startScope(w.scopeArray, w.scopePartition, 2);
            }
        }
        while (cluster.anyBusyWorker() || cluster.anyMessage() || cluster.anyUpdate()) {
            if (++guard > 100_000) throw new AssertionError("no progress while draining");
            for (SimulatedCluster.Worker[] ws : cluster.workers) {
                for (SimulatedCluster.Worker w : ws) {
                    if (w.busy) complete(w);
                    if (!w.busy && w.scopeArray >= 0) w.startScope(w.scopeArray, w.scopePartition, 2);   // entered while draining
                }
            }
            cluster.drainUpdatesOnce();
            cluster.deliverOne();
            cluster.checkInvariants();
        }
        cluster.drainAndCheckCompletion();
    }

    /** The failure with the cluster's trace and every step of this chain. */
    AssertionError failure(Throwable cause) {
        StringBuilder b = new StringBuilder(cluster.failure(cause.toString())).append("\nchain of ").append(steps.size()).append(" steps:");
        for (String s : steps) b.append("\n  ").append(s);
        return new AssertionError(b.toString(), cause);
    }

    @Override
    public String toString() {
        return "cluster seed " + cluster.seed + " after " + steps.size() + " steps";
    }
}
