package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.SharedLongArray;
import io.dsa.agent.BarrierKind;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.ProxyMode;
import io.dsa.agent.RunReport;
import io.dsa.coherence.CoherenceOp;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The coherence protocol over the in-memory network with a {@link FaultPlan}, whole nodes (3 x 2
 * threads, the real runtime and codec). The protocol assumes what TCP gives: no message lost,
 * duplicated or reordered on a connection, any delay. Delays that keep each connection's order
 * change no result; a duplicate or a reordering, which TCP never makes, is refused by the engine
 * that sees it (the job fails naming the message) or changes nothing, never a wrong result in
 * silence. Each plan prints its seed; {@code -Ddsa.test.seed=S} replays it.
 */
@Timeout(120)
class CoherenceUnderFaultsTest {
    private static final int NODES = InMemoryClusterTest.NODES;
    private static final int SEEDS = 6;
    private InMemoryVm vm;

    @AfterEach
    void close() {
        if (vm != null) vm.close();
        vm = null;
    }

    List<CompletableFuture<RunReport>> run(InMemoryNetwork net, DsaProgram program) {
        return run(net, program, InMemoryClusterTest.config(BarrierKind.TREE, ProxyMode.FLOAT));
    }

    List<CompletableFuture<RunReport>> run(InMemoryNetwork net, DsaProgram program, DsaConfig config) {
        vm = new InMemoryVm(net, config);
        return Workers.start(0, NODES, i -> JobRunner.run(vm.node(i), program, List.of()));
    }

    /**
     * Every thread in turn writes elements homed at every node, which every thread then reads: reads
     * and writes of partitions cached, owned and shared elsewhere (every coherence op). Thread 0
     * reports a hash of what all threads read.
     */
    static final class Turns implements DsaProgram {
        static final int ROUNDS = 12;

        @Override
        public void work(DsaWorker w) {
            int threads = w.node().network().getGlobalThreadCount();
            SharedLongArray a = w.node().createSharedLongArray("turns", threads * 2, 2);
            // each thread records its hash every round in a one-element partition of its own, written whole (an overwrite)
            SharedLongArray seen = w.node().createSharedLongArray("seen", threads * ROUNDS, 1);
            long hash = 0;
            for (int t = 0; t < ROUNDS; t++) {
                if (w.threadId() == t % threads) for (int i = 0; i < threads * 2; i += 2) a.write(i, a.read(i) + t * 31 + i);
                w.barrier();
                for (int i = 0; i < threads * 2; i += 2) hash = hash * 31 + a.read(i);
                seen.writePartition(t * threads + w.threadId(), new long[] {hash});
                w.barrier();
            }
            w.barrier();
            if (w.threadId() == 0) {
                long all = 17;
                for (int k = 0; k < threads; k++) all = all * 31 + seen.read((ROUNDS - 1) * threads + k);
                w.node().report("turns " + Long.toHexString(all));
            }
        }
    }

    /** @return the lines node 0 reports for {@code program} on a network without faults */
    String[] baseline(DsaProgram program) {
        try (InMemoryNetwork plain = new InMemoryNetwork()) {
            List<CompletableFuture<RunReport>> runs = run(plain, program);
            List<String> lines = Workers.result(runs.get(0), 30).lines();
            for (CompletableFuture<RunReport> r : runs) Workers.result(r, 30);
            return lines.toArray(String[]::new);
        } finally {
            close();
        }
    }

    /**
     * The outcome of a run under a fault TCP never makes: every node's run fails, naming the
     * coherence message its engine refused ({@code refused}), or the job ends with {@code expected}.
     *
     * @return whether the runtime refused the message
     */
    boolean refusedOrUnchanged(FaultPlan plan, List<CompletableFuture<RunReport>> runs, String[] expected, String refused) {
        try {
            List<String> lines = runs.get(0).get(30, TimeUnit.SECONDS).lines();
            assertEquals(List.of(expected), lines, plan.describe() + "\nthe job ended with another result");
            for (CompletableFuture<RunReport> r : runs) Workers.result(r, 30);
            return false;
        } catch (ExecutionException e) {
            for (int k = 0; k < NODES; k++) {
                Throwable t = Workers.failure(runs.get(k));
                assertTrue(t instanceof DsaException && t.getMessage().contains("failed handling CoherenceMessage")
                        && t.getMessage().contains(refused), plan.describe() + "\nnode " + k + ": " + t);
            }
            return true;
        } catch (InterruptedException | TimeoutException e) {
            throw new AssertionError(plan.describe() + "\nnode 0's run did not end: " + e, e);
        }
    }

    /**
     * What TCP keeps and the protocol assumes, with every message still late by a seeded amount:
     * coherence and barrier messages held back (and what follows them on their connection) for up
     * to 8 other deliveries or 5 ms. Both programs end bitwise as without delays, over many seeds.
     */
    @Test
    void delaysThatKeepEachConnectionsOrderLeaveTheResultsBitwiseTheSame() {
        String[] turns = baseline(new Turns());
        String[] relax = baseline(new InMemoryClusterTest.Relax());
        long delayed = 0;
        for (long seed : SimulatedNodes.seeds(SEEDS)) {
            for (DsaProgram program : List.of(new Turns(), new InMemoryClusterTest.Relax())) {
                FaultPlan plan = new FaultPlan(seed);
                FaultPlan.Rule coherence = plan.on("COHERENCE").probability(0.3).delay(8, 5);
                FaultPlan.Rule barriers = plan.on("BARRIER_ARRIVE", "BARRIER_RELEASE").probability(0.2).delay(4, 3);
                List<CompletableFuture<RunReport>> runs = run(new InMemoryNetwork(plan), program);
                assertEquals(List.of(program instanceof Turns ? turns : relax), Workers.result(runs.get(0), 30).lines(), plan.describe());
                for (CompletableFuture<RunReport> r : runs) Workers.result(r, 30);
                delayed += coherence.fired() + barriers.fired();
                close();
            }
        }
        System.out.println("CoherenceUnderFaultsTest: " + delayed + " messages delayed in order over " + SimulatedNodes.seeds(SEEDS).length
                + " seeds, results bitwise the same");
        assertTrue(delayed > SimulatedNodes.seeds(SEEDS).length, "only " + delayed + " messages were delayed");
    }

    /**
     * A coherence message delivered twice (the seeded 2nd to 5th of its op): the engine that gets
     * the copy refuses it ("unexpected ...") and the job fails on every node naming it, or the
     * job's result is unchanged; never a silent wrong result. {@link Turns} sends no FWD_GET_M (nor
     * FWD_GET_M_OVERWRITE) and no OWNER_RELEASE, and no PUSH_S or PUSH_ACK (reader pushes are off by default); its
     * {@code writePartition}s of partitions homed elsewhere send GET_M_OVERWRITE.
     */
    @ParameterizedTest
    @EnumSource(value = CoherenceOp.class, names = {"FWD_GET_M", "FWD_GET_M_OVERWRITE", "OWNER_RELEASE", "PUSH_S", "PUSH_ACK",
            "PUT_S", "PUT_ACK"}, mode = EnumSource.Mode.EXCLUDE)
    void aDuplicatedCoherenceMessageIsRefusedNamingItOrChangesNothing(CoherenceOp op) {
        String[] expected = baseline(new Turns());
        FaultPlan plan = new FaultPlan(FaultPlan.seed());
        FaultPlan.Rule duplicate = plan.on("COHERENCE").ops(op).skip(1 + (int) Math.floorMod(plan.seed, 4L)).times(1).duplicate();
        List<CompletableFuture<RunReport>> runs = run(new InMemoryNetwork(plan), new Turns());
        boolean refused = refusedOrUnchanged(plan, runs, expected, "unexpected " + op);
        assertEquals(1, duplicate.fired(), plan.describe());
        System.out.println("CoherenceUnderFaultsTest: a duplicated " + op + (refused ? " was refused" : " changed nothing"));
    }

    /**
     * The same with reader pushes on ({@link ReaderPushes}: {@link Turns}' home writes push the
     * partitions to the nodes that read them every round): a duplicated PUSH_S or PUSH_ACK (the
     * seeded 2nd to 5th) is refused naming it or changes nothing, and the result without faults is
     * the one without pushes.
     */
    @ParameterizedTest
    @EnumSource(value = CoherenceOp.class, names = {"PUSH_S", "PUSH_ACK"})
    void aDuplicatedPushIsRefusedNamingItOrChangesNothing(CoherenceOp op) {
        duplicatedUnder(op, DsaConfig.builder().nodes(NODES).threadsPerNode(InMemoryClusterTest.THREADS).barrierFanout(2)
                .readerPushes(true).randomSecret().startupTimeoutMs(20_000).build(), "with pushes");
    }

    /**
     * Runs {@link Turns} under {@code config} without faults (the result must be the baseline's),
     * then with the seeded 2nd to 5th {@code op} duplicated: refused naming it, or the result unchanged.
     */
    private void duplicatedUnder(CoherenceOp op, DsaConfig config, String setting) {
        String[] expected = baseline(new Turns());
        try (InMemoryNetwork plain = new InMemoryNetwork()) {
            List<CompletableFuture<RunReport>> runs = run(plain, new Turns(), config);
            assertEquals(List.of(expected), Workers.result(runs.get(0), 30).lines(), setting + ", without faults");
            for (CompletableFuture<RunReport> r : runs) Workers.result(r, 30);
        } finally {
            close();
        }
        FaultPlan plan = new FaultPlan(FaultPlan.seed());
        FaultPlan.Rule duplicate = plan.on("COHERENCE").ops(op).skip(1 + (int) Math.floorMod(plan.seed, 4L)).times(1).duplicate();
        List<CompletableFuture<RunReport>> runs = run(new InMemoryNetwork(plan), new Turns(), config);
        boolean refused = refusedOrUnchanged(plan, runs, expected, "unexpected " + op);
        assertEquals(1, duplicate.fired(), plan.describe());
        System.out.println("CoherenceUnderFaultsTest: a duplicated " + op + (refused ? " was refused" : " changed nothing"));
    }

    /**
     * The same with self-invalidation on ({@link SelfDrops}: {@link Turns}' readers drop the copies
     * their homes rewrite every round): a duplicated PUT_S or PUT_ACK (the seeded 2nd to 5th) is
     * refused naming it or changes nothing, and the result without faults is the one without drops.
     */
    @ParameterizedTest
    @EnumSource(value = CoherenceOp.class, names = {"PUT_S", "PUT_ACK"})
    void aDuplicatedDropIsRefusedNamingItOrChangesNothing(CoherenceOp op) {
        duplicatedUnder(op, DsaConfig.builder().nodes(NODES).threadsPerNode(InMemoryClusterTest.THREADS).barrierFanout(2)
                .selfInvalidation(true).randomSecret().startupTimeoutMs(20_000).build(), "with self-invalidation");
    }

    /**
     * Coherence messages overtaken by the next one or two on their connection (a fifth of them held back, up
     * to 5 ms): refused naming the message, or the result is unchanged, over many seeds; and some were overtaken
     * (the network counts them: a message that waited out its bound was only delayed).
     */
    @Test
    void reorderedCoherenceMessagesAreRefusedOrChangeNothing() {
        String[] expected = baseline(new Turns());
        int refused = 0;
        long reordered = 0;
        long overtaken = 0;
        for (long seed : SimulatedNodes.seeds(SEEDS)) {
            FaultPlan plan = new FaultPlan(seed);
            FaultPlan.Rule reorder = plan.on("COHERENCE").probability(0.2).reorder(2, 5);
            InMemoryNetwork network = new InMemoryNetwork(plan);
            if (refusedOrUnchanged(plan, run(network, new Turns()), expected, "unexpected ")) refused++;
            reordered += reorder.fired();
            overtaken += network.overtaken();
            close();
        }
        System.out.println("CoherenceUnderFaultsTest: " + reordered + " coherence messages reordered over " + SimulatedNodes.seeds(SEEDS).length
                + " seeds, " + overtaken + " of them overtaken by later ones; refused in " + refused + " runs, the same result in the others");
        assertTrue(overtaken > 0, "no message was overtaken (" + reordered + " held back)");
    }
}
