package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.dsa.ArrayUse;
import io.dsa.DsaProgram;
import io.dsa.DsaScope;
import io.dsa.DsaWorker;
import io.dsa.SharedDoubleArray;
import io.dsa.agent.AgentState;
import io.dsa.agent.BarrierKind;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.ProxyMode;
import io.dsa.agent.RunReport;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A move requested while a release scope is open happens at its closing barrier, when every
 * diff has been written and no buffer is left, and the job's result is the same as without the
 * move; the moved node's workers open the next scopes in step with the others (they counted
 * their scopes from 0 again on the new agent, and the next opening failed the job with "workers
 * opened different scopes": a scope is named by its epoch now). On the VM and
 * the move of {@link InMemoryClusterTest} (3 nodes x 2 threads on the in-memory network).
 */
@Timeout(60)
class ReleaseScopeMoveTest {
    final InMemoryClusterTest vm = new InMemoryClusterTest();

    @AfterEach
    void close() {
        vm.close();
    }

    /**
     * Rounds of a release scope with a barrier inside: each worker rewrites its interleaved
     * elements from their values before the scope and its neighbours'; epochs: 1 after the set-up,
     * then 3 per round (opening, the barrier inside, closing), so a resume between scopes is at
     * an epoch of 1 + 3 k, and one inside a scope would be refused. Thread 0 reports the bits.
     */
    static final class ReleaseRounds implements DsaProgram {
        static final int ROUNDS = 4;

        @Override
        public boolean resumable() { return true; }

        @Override
        public void work(DsaWorker w) {
            int threads = w.node().network().getGlobalThreadCount();
            int length = threads * 4;
            SharedDoubleArray a = w.node().createSharedDoubleArray("a", length, 4);
            int tid = w.threadId();
            if (w.epoch() == 0) {
                for (int i = tid; i < length; i += threads) a.write(i, i + 0.5);
                w.barrier();
            }
            if ((w.epoch() - 1) % 3 != 0) throw new IllegalStateException("resumed inside a scope, at epoch " + w.epoch());
            for (long round = (w.epoch() - 1) / 3; round < ROUNDS; round++) {
                try (DsaScope scope = w.scope(ArrayUse.release(a))) {
                    double[] next = new double[4];
                    for (int k = 0; k < 4; k++) {
                        int i = tid + k * threads;
                        next[k] = 0.5 * a.read(i) + 0.25 * a.read((i + length - 1) % length) + round;
                    }
                    w.barrier(); // every read of the round before any write: reads then see the values from before
                    for (int k = 0; k < 4; k++) a.write(tid + k * threads, next[k]);
                }
            }
            reportBits(w, a);
        }
    }

    /** Thread 0 reports a hash of the bits of every element of {@code a}. */
    static void reportBits(DsaWorker w, SharedDoubleArray a) {
        if (w.threadId() != 0) return;
        long hash = 17;
        for (int i = 0; i < a.layout().length(); i++) hash = hash * 31 + Double.doubleToRawLongBits(a.read(i));
        w.node().report("bits " + Long.toHexString(hash));
    }

    @Test
    void aMoveInsideAReleaseScopeWaitsForItsClosingBarrierAndTheMovedNodeOpensTheNextScopesInStep() throws Exception {
        // epoch 3 is reached by the barrier inside round 0's scope: the gate lets it pass and holds the closing one
        moveNode2(ReleaseRounds::new, 3, 3);
    }

    /**
     * Runs {@code program} unmoved, then again with node 2 moved at the first release the gate may
     * hold from epoch {@code holdFrom} on, which must be generation {@code expected}; the result is
     * the unmoved one.
     */
    private void moveNode2(java.util.function.Supplier<DsaProgram> program, long holdFrom, long expected) throws Exception {
        DsaConfig base = InMemoryClusterTest.config(BarrierKind.TREE, ProxyMode.FLOAT);
        vm.start(base);
        List<CompletableFuture<RunReport>> unmoved = vm.run(program.get());
        List<String> baseline = Workers.result(unmoved.get(0), 30).lines();
        for (CompletableFuture<RunReport> r : unmoved) Workers.result(r, 30);
        vm.close();
        vm.nodes.clear();

        vm.start(base);
        NodeRuntime monitor = vm.nodes.get(0);
        CompletableFuture<Long> safePoint = monitor.holdGlobalRelease(holdFrom);
        List<CompletableFuture<RunReport>> runs = vm.run(program.get());
        assertEquals(expected, safePoint.get(30, TimeUnit.SECONDS), "the generation of the held release");
        List<CompletableFuture<?>> held = List.of(monitor.expectMove(2), vm.nodes.get(1).expectMove(2));
        AgentState state = AgentState.decode(vm.nodes.get(2).snapshot().encode());
        assertEquals(expected + 1, state.epoch());
        NodeRuntime target = vm.moveNode2(base, state, held, runs.get(2));
        CompletableFuture<RunReport> resumed = Workers.start(2, 3, i -> JobRunner.run(target, program.get(), List.of(),
                state.epoch())).get(0);
        assertEquals(baseline, Workers.result(runs.get(0), 30).lines());
        Workers.result(runs.get(1), 30);
        Workers.result(resumed, 30);
    }

    /**
     * A chain of scopes switched by {@link DsaScope#next}: after the set-up (epoch 1) one release
     * scope opens (epoch 2) and becomes a read cache and a release scope again {@code ROUNDS}
     * times (one round each), then closes: every round from the opening to the closing is inside
     * a scope, so a node may move only at the closing one, whose release brings epoch
     * {@code 3 + 2 ROUNDS}. Each round every worker rewrites its interleaved elements from the
     * read cache's values. Thread 0 reports the bits.
     */
    static final class NextRounds implements DsaProgram {
        static final int ROUNDS = 3;
        static final long CLOSED = 3 + 2 * ROUNDS;

        @Override
        public boolean resumable() { return true; }

        @Override
        public void work(DsaWorker w) {
            int threads = w.node().network().getGlobalThreadCount();
            int length = threads * 4;
            SharedDoubleArray a = w.node().createSharedDoubleArray("a", length, 4);
            int tid = w.threadId();
            if (w.epoch() == 0) {
                for (int i = tid; i < length; i += threads) a.write(i, i + 0.5);
                w.barrier();
            }
            if (w.epoch() != 1 && w.epoch() != CLOSED) throw new IllegalStateException("resumed inside a scope, at epoch " + w.epoch());
            if (w.epoch() == 1) {
                DsaScope scope = w.scope(ArrayUse.release(a));
                for (int round = 0; round < ROUNDS; round++) {
                    scope = scope.next(ArrayUse.readCache(a));
                    double[] next = new double[4];
                    for (int k = 0; k < 4; k++) {
                        int i = tid + k * threads;
                        next[k] = 0.5 * a.read(i) + 0.25 * a.read((i + length - 1) % length) + round;
                    }
                    scope = scope.next(ArrayUse.release(a));
                    for (int k = 0; k < 4; k++) a.write(tid + k * threads, next[k]);
                }
                scope.close();
            }
            reportBits(w, a);
        }
    }

    /**
     * No switch's round is a safe point (a switch's round carries the scopes' signatures, and the
     * gate holds only plain releases): the move waits for the chain's closing barrier, and the
     * result is the one without the move.
     */
    @Test
    void aMoveAskedForInAChainOfScopeSwitchesWaitsForTheChainsClosing() throws Exception {
        // epoch 2 is the chain's opening: every release after it but the closing one is a switch, inside the scopes
        moveNode2(NextRounds::new, 2, NextRounds.CLOSED - 1);
    }
}
