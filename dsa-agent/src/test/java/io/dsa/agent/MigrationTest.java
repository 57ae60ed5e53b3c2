package io.dsa.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.SharedDoubleArray;
import io.dsa.SharedLong;
import io.dsa.agent.mobility.Choreography;
import io.dsa.agent.mobility.MoveChoreography;
import io.dsa.agent.mobility.ScriptedPorts;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Live migration of nodes inside one JVM: safe point, state transfer, view update, resume at the epoch. */
@Timeout(60)
class MigrationTest {
    /** Says so in the report: a fault test prints its seed, or that it has none. */
    @org.junit.jupiter.api.BeforeAll
    static void sayThereIsNoSeed() {
        System.out.println("MigrationTest: no randomness (except randomMovesAtRandomEpochsKeepTheResult and randomMovesWithSelfInvalidationKeepTheResult, which print their seeds)");
    }

    /** Enough for moves at chosen epochs; the moves that fail start at iteration 5 and hold the workers within a few. */
    private static final int ITERATIONS = 160;
    /**
     * Bounds each planned run, below the test's own timeout: a run that hangs ends with the job's
     * first failure in the test's message (as the commit-order hang's "node 2 lost node 1" would
     * have), not with a bare timeout.
     */
    private static final java.time.Duration RUN_TIMEOUT = java.time.Duration.ofSeconds(40);
    /** Counted down by thread 0 once the job is under way. */
    static volatile CountDownLatch started = new CountDownLatch(1);

    /**
     * A resumable relaxation on two shared 1-D arrays (8 elements per thread, neighbours read
     * across nodes) and a shared counter; thread 0 reports the bits of the result.
     */
    public static final class Relax implements DsaProgram {
        private SharedDoubleArray[] a;
        private SharedLong count;
        private int iterations;

        /** For the cluster's per-node instances. */
        public Relax() {}

        @Override
        public boolean resumable() { return true; }

        @Override
        public void setup(DsaNode node) {
            iterations = Integer.parseInt(node.args().get(0));
            int length = node.network().getGlobalThreadCount() * 8;
            a = new SharedDoubleArray[] {node.createSharedDoubleArray("relax.a", length, 8),
                    node.createSharedDoubleArray("relax.b", length, 8)};
            count = node.createSharedLong("relax.count", 0);
        }

        @Override
        public void work(DsaWorker w) {
            int tid = w.threadId();
            int length = (int) a[0].layout().length();
            long e = w.epoch();
            if (e == 0) {
                for (int i = tid * 8; i < tid * 8 + 8; i++) a[0].write(i, i + 0.5);
                w.barrier();
            }
            for (long t = Math.max(0, w.epoch() - 1); t < iterations; t++) {
                SharedDoubleArray src = a[(int) (t % 2)];
                SharedDoubleArray dst = a[(int) ((t + 1) % 2)];
                for (int i = tid * 8; i < tid * 8 + 8; i++) {
                    double v = 0.5 * src.read(i) + 0.25 * (src.read((i + length - 1) % length) + src.read((i + 1) % length))
                            + t * 1e-3;
                    dst.write(i, v);
                }
                count.getAndAdd(1);
                if (tid == 0 && t == 5) started.countDown();
                w.barrier();
            }
            if (tid == 0) {
                SharedDoubleArray r = a[iterations % 2];
                long hash = 17;
                for (int i = 0; i < length; i++) hash = hash * 31 + Double.doubleToRawLongBits(r.read(i));
                w.node().report("relax " + Long.toHexString(hash) + " count " + count.get());
            }
        }
    }

    private static DsaConfig config(int nodes, BarrierKind kind) {
        return DsaConfig.builder().nodes(nodes).threadsPerNode(2).barrier(kind).build();
    }

    private static final java.util.Map<Integer, List<String>> BASELINES = new java.util.concurrent.ConcurrentHashMap<>();

    /** The report of a run without migration (computed once per node count). */
    private static List<String> baseline(int nodes) {
        return BASELINES.computeIfAbsent(nodes, n -> {
            try (DsaCluster c = DsaCluster.local(config(n, BarrierKind.TREE))) {
                return c.run(new Relax(), String.valueOf(ITERATIONS)).lines();
            }
        });
    }

    private static CompletableFuture<RunReport> start(DsaCluster cluster, DsaProgram program, String... args) {
        started = new CountDownLatch(1);
        CompletableFuture<RunReport> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(cluster.run(program, args));
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, "test-run");
        t.setDaemon(true);
        t.start();
        return f;
    }

    private static void awaitStarted() throws InterruptedException {
        assertTrue(started.await(30, TimeUnit.SECONDS), "the job did not start");
    }

    @ParameterizedTest
    @EnumSource(BarrierKind.class)
    void twoMigrationsDuringOneRunGiveABitwiseIdenticalResult(BarrierKind kind) throws Exception {
        List<String> expected = baseline(3);
        assertEquals(1, expected.size(), expected.toString());
        assertTrue(expected.get(0).endsWith("count " + ITERATIONS * 6), expected.toString());
        try (DsaCluster cluster = DsaCluster.local(config(3, kind))) {
            String before = cluster.agent(1).address();
            DsaCluster.PlannedRun planned = cluster.runWithMigrations(new Relax(), List.of(
                    new DsaCluster.PlannedMove(1, "127.0.0.1", ITERATIONS / 4),
                    new DsaCluster.PlannedMove(2, "127.0.0.1", ITERATIONS / 2)), RUN_TIMEOUT, String.valueOf(ITERATIONS));
            MigrationReport m1 = planned.migrations().get(0);
            MigrationReport m2 = planned.migrations().get(1);
            System.out.println(kind + ": " + m1 + "; " + m2);
            assertEquals(expected, planned.run().lines());
            assertEquals(before, m1.from());
            assertNotEquals(m1.from(), m1.to());
            assertEquals(m1.to(), cluster.agent(1).address());
            assertEquals(m2.to(), cluster.agent(2).address());
            assertEquals(m1.to(), cluster.agent(0).view().get(1), "node 0 learned node 1's new address");
            assertEquals(m2.to(), cluster.agent(1).view().get(2), "the moved node 1 learned node 2's new address");
            assertEquals(ITERATIONS / 4, m1.epoch(), m1.toString());
            assertEquals(ITERATIONS / 2, m2.epoch(), m2.toString());
            assertTrue(m1.dataBytes() >= 2 * 2 * 8 * Double.BYTES, "node 1 homes two partitions of each array: " + m1);
            assertTrue(m1.bytesMoved() > m1.dataBytes(), m1.toString());
        }
    }

    /**
     * Random moves (node and epoch drawn from a printed seed; {@code -Ddsa.test.seed=S} replays one)
     * under a random barrier kind: the result is bitwise that of a run without migration.
     */
    @Test
    void randomMovesAtRandomEpochsKeepTheResult() throws Exception {
        long seed = Long.getLong("dsa.test.seed", System.nanoTime());
        java.util.Random random = new java.util.Random(seed);
        BarrierKind kind = BarrierKind.values()[random.nextInt(BarrierKind.values().length)];
        int moves = 2 + random.nextInt(3);
        long[] epochs = new long[moves];
        int[] nodes = new int[moves];
        for (int i = 0; i < moves; i++) {
            epochs[i] = (i == 0 ? 1 : epochs[i - 1] + 1) + random.nextInt(ITERATIONS / (moves + 1));
            nodes[i] = 1 + random.nextInt(2);
        }
        String plan = "seed " + seed + ": " + kind + ", nodes " + java.util.Arrays.toString(nodes) + " at epochs "
                + java.util.Arrays.toString(epochs);
        System.out.println(plan);
        List<String> expected = baseline(3);
        try (DsaCluster cluster = DsaCluster.local(config(3, kind))) {
            List<DsaCluster.PlannedMove> planned = new java.util.ArrayList<>();
            for (int i = 0; i < moves; i++) planned.add(new DsaCluster.PlannedMove(nodes[i], "127.0.0.1", epochs[i]));
            DsaCluster.PlannedRun r = cluster.runWithMigrations(new Relax(), planned, RUN_TIMEOUT, String.valueOf(ITERATIONS));
            for (int i = 0; i < moves; i++) assertEquals(epochs[i], r.migrations().get(i).epoch(), plan + ": " + r.migrations());
            assertEquals(expected, r.run().lines(), plan);
        }
    }

    /**
     * Random moves (seeded as above) in a VM with self-invalidation ({@link DsaConfig#selfInvalidation()}):
     * the relaxation's neighbours rewrite the partitions a node reads every other epoch, so nodes drop
     * copies at the barriers where the moves happen, and a safe point must find every drop's PUT_S
     * answered (docs/runtime.md, "Self-invalidation"): the result is bitwise that of a run without
     * migration or self-invalidation.
     */
    @Test
    void randomMovesWithSelfInvalidationKeepTheResult() throws Exception {
        randomMovesKeepTheResult("self-invalidation", 2, DsaConfig.builder().nodes(3).threadsPerNode(2).selfInvalidation(true).build());
    }

    /**
     * Random moves (seeded as above) in a VM whose threads spin and drive their node's I/O while
     * they wait ({@link WaitStrategy#SPIN}, docs/runtime.md, "SPIN: the waiting thread does the
     * I/O"): a node moves away while its workers may hold its event loop's role, and its successor
     * starts with a loop of its own; the result is bitwise that of a run without migration.
     */
    @Test
    void randomMovesUnderSpinKeepTheResult() throws Exception {
        randomMovesKeepTheResult("SPIN", 1, DsaConfig.builder().nodes(3).threadsPerNode(2).waitStrategy(WaitStrategy.SPIN).build());
    }

    // Moves of node 1 or 2 at random epochs (at least leastMoves, up to two more; seeded, printed) in a run of config
    // (3 nodes): the result is bitwise that of a run without migration.
    private static void randomMovesKeepTheResult(String what, int leastMoves, DsaConfig config) throws Exception {
        long seed = Long.getLong("dsa.test.seed", System.nanoTime());
        java.util.Random random = new java.util.Random(seed);
        int moves = leastMoves + random.nextInt(3);
        List<DsaCluster.PlannedMove> planned = new java.util.ArrayList<>();
        long epoch = 0;
        for (int i = 0; i < moves; i++) {
            epoch += 1 + random.nextInt(ITERATIONS / (moves + 1));
            planned.add(new DsaCluster.PlannedMove(1 + random.nextInt(2), "127.0.0.1", epoch));
        }
        String plan = "seed " + seed + ": " + what + ", moves " + planned;
        System.out.println(plan);
        List<String> expected = baseline(3);
        try (DsaCluster cluster = DsaCluster.local(config)) {
            DsaCluster.PlannedRun r = cluster.runWithMigrations(new Relax(), planned, RUN_TIMEOUT, String.valueOf(ITERATIONS));
            assertEquals(moves, r.migrations().size(), plan + ": " + r.migrations());
            assertEquals(expected, r.run().lines(), plan);
        }
    }

    /**
     * A planned run with a timeout: the move is made, and the run, which would go on for hours,
     * fails saying that it timed out (before, a planned run had no bound); a timeout that is not
     * positive is refused naming it.
     */
    @Test
    void aPlannedRunThatDoesNotEndInTimeFailsSayingSo() {
        DsaConfig config = config(2, BarrierKind.TREE).toBuilder().failureTimeoutMs(1_000).build();
        try (DsaCluster cluster = DsaCluster.local(config)) {
            String before = cluster.agent(1).address();
            List<DsaCluster.PlannedMove> move = List.of(new DsaCluster.PlannedMove(1, "127.0.0.1", 3));
            IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
                    () -> cluster.runWithMigrations(new Relax(), move, java.time.Duration.ZERO, "10"));
            assertEquals("timeout 0 ms out of range [1, " + Long.MAX_VALUE + "]", zero.getMessage());
            DsaException e = assertThrows(DsaException.class, () -> cluster.runWithMigrations(new Relax(), move,
                    java.time.Duration.ofMillis(1_500), String.valueOf(Integer.MAX_VALUE)));
            assertTrue(e.getMessage().contains("the run timed out after 1500 ms"), e.getMessage());
            assertNotEquals(before, cluster.agent(1).address(), "node 1 moved before the time was up");
        }
    }

    @Test
    void theSameNodeMovesTwiceAndResultIsIdentical() throws Exception {
        List<String> expected = baseline(2);
        try (DsaCluster cluster = DsaCluster.local(config(2, BarrierKind.TREE))) {
            DsaCluster.PlannedRun r = cluster.runWithMigrations(new Relax(), List.of(
                    new DsaCluster.PlannedMove(1, "127.0.0.1", ITERATIONS / 4), new DsaCluster.PlannedMove(1, "127.0.0.1", 3 * ITERATIONS / 4)),
                    RUN_TIMEOUT, String.valueOf(ITERATIONS));
            MigrationReport m1 = r.migrations().get(0);
            MigrationReport m2 = r.migrations().get(1);
            assertEquals(m1.to(), m2.from());
            assertEquals(ITERATIONS / 4, m1.epoch());
            assertEquals(3 * ITERATIONS / 4, m2.epoch());
            assertEquals(expected, r.run().lines());
        }
    }

    @Test
    void aPlanBeyondTheJobOrMalformedIsRefusedAndTheJobStillCompletes() {
        try (DsaCluster cluster = DsaCluster.local(config(2, BarrierKind.TREE))) {
            DsaException late = assertThrows(DsaException.class, () -> cluster.runWithMigrations(new Relax(), List.of(
                    new DsaCluster.PlannedMove(1, "127.0.0.1", 50), new DsaCluster.PlannedMove(1, "127.0.0.1", ITERATIONS + 10)),
                    String.valueOf(ITERATIONS)));
            assertTrue(late.getMessage().startsWith("planned move 1 failed after [node 1 moved"), late.getMessage());
            assertTrue(late.getMessage().contains("the job ended first"), late.getMessage());
            assertTrue(!cluster.running(), "the job ran to its end before the refusal was reported");
        }
        try (DsaCluster cluster = DsaCluster.local(config(2, BarrierKind.TREE))) {
            DsaException order = assertThrows(DsaException.class, () -> cluster.runWithMigrations(new Relax(), List.of(
                    new DsaCluster.PlannedMove(1, "127.0.0.1", 50), new DsaCluster.PlannedMove(1, "127.0.0.1", 50)), "10"));
            assertEquals("planned move 1: epoch 50 must be above the previous move's 50", order.getMessage());
            DsaException node = assertThrows(DsaException.class, () -> cluster.runWithMigrations(new Relax(), List.of(
                    new DsaCluster.PlannedMove(0, "127.0.0.1", 5)), "10"));
            assertEquals("planned move 0: node 0 out of range [1, 2)", node.getMessage());
        }
    }

    @Test
    void node0IsRefusedWithTheReason() {
        try (DsaCluster cluster = DsaCluster.local(config(2, BarrierKind.TREE))) {
            DsaException e = assertThrows(DsaException.class, () -> cluster.migrate(0, "127.0.0.1"));
            assertTrue(e.getMessage().contains("node 0 cannot migrate: it is the monitor"), e.getMessage());
        }
    }

    @Test
    void aJobThatIsNotResumableIsRefused() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        DsaProgram blocking = new DsaProgram() {
            @Override
            public void work(DsaWorker w) throws Exception {
                started.countDown();
                assertTrue(release.await(30, TimeUnit.SECONDS));
            }
        };
        try (DsaCluster cluster = DsaCluster.local(config(2, BarrierKind.TREE))) {
            CompletableFuture<RunReport> run = start(cluster, blocking);
            awaitStarted();
            DsaException e = assertThrows(DsaException.class, () -> cluster.migrate(1, "127.0.0.1"));
            release.countDown();
            assertTrue(e.getMessage().contains("is not resumable()"), e.getMessage());
            run.get(30, TimeUnit.SECONDS);
        }
    }

    /** Runs a move of {@code node} whose steps fail right after the step of {@code state} was done. */
    private static Choreography<MoveChoreography.State> failingMove(DsaCluster cluster, int node, MoveChoreography.State state) {
        LocalMove move = new LocalMove(cluster, node, "127.0.0.1", 0, null, -1);
        return move.choreography(ScriptedPorts.failingAfter(MoveChoreography.Port.class, move, ScriptedPorts.step(state)));
    }

    @Test
    void aTargetLostAfterConnectingLeavesTheSourceAuthoritative() throws Exception {
        List<String> expected = baseline(3);
        try (DsaCluster cluster = DsaCluster.local(config(3, BarrierKind.KARY))) {
            String source = cluster.agent(2).address();
            CompletableFuture<RunReport> run = start(cluster, new Relax(), String.valueOf(ITERATIONS));
            awaitStarted();
            // every node holds the new agent's connection; then the move fails before the commit
            Choreography<MoveChoreography.State> move = failingMove(cluster, 2, MoveChoreography.State.AWAITING);
            DsaException e = assertThrows(DsaException.class, move::run);
            assertEquals(MoveChoreography.State.FAILED, move.state(), move.trace().toString());
            assertTrue(e.getMessage().contains("node 2 stays at " + source), e.getMessage());
            assertEquals(source, cluster.agent(0).view().get(2));
            assertEquals(source, cluster.agent(1).view().get(2));
            // the dropped connections are not taken for a lost node: the job completes, bitwise the same
            assertEquals(expected, run.get(50, TimeUnit.SECONDS).lines());
        }
    }

    @Test
    void aFailedRestoreLeavesTheSourceAuthoritative() throws Exception {
        List<String> expected = baseline(3);
        try (DsaCluster cluster = DsaCluster.local(config(3, BarrierKind.TREE))) {
            String source = cluster.agent(1).address();
            CompletableFuture<RunReport> run = start(cluster, new Relax(), String.valueOf(ITERATIONS));
            awaitStarted();
            // the new agent installed the state, then the transfer fails: the new agent is closed
            DsaException e = assertThrows(DsaException.class, failingMove(cluster, 1, MoveChoreography.State.TRANSFERRING)::run);
            assertTrue(e.getMessage().contains("stays at " + source) && e.getMessage().contains("injected after transfer"),
                    e.getMessage());
            assertEquals(source, cluster.agent(1).address());
            assertEquals(source, cluster.agent(0).view().get(1), "node 0 still talks to the source");
            // the gate is free again: a later migration of the same node works
            MigrationReport m = cluster.migrate(1, "127.0.0.1");
            assertEquals(source, m.from());
            assertEquals(expected, run.get(50, TimeUnit.SECONDS).lines());
        }
    }

    @ParameterizedTest
    @EnumSource(value = MoveChoreography.State.class, names = {"HOLDING", "EXPECTING", "TRANSFERRING", "CONNECTING"})
    void aMoveFailingAfterAnyStepBeforeTheCommitLeavesTheSourceServing(MoveChoreography.State state) throws Exception {
        List<String> expected = baseline(3);
        try (DsaCluster cluster = DsaCluster.local(config(3, BarrierKind.TREE))) {
            String source = cluster.agent(2).address();
            CompletableFuture<RunReport> run = start(cluster, new Relax(), String.valueOf(ITERATIONS));
            awaitStarted();
            Choreography<MoveChoreography.State> move = failingMove(cluster, 2, state);
            assertThrows(DsaException.class, move::run);
            assertEquals(MoveChoreography.State.FAILED, move.state(), move.trace().toString());
            for (int j = 0; j < 3; j++) assertEquals(source, cluster.agent(j).view().get(2), "node " + j + "'s view");
            assertEquals(expected, run.get(50, TimeUnit.SECONDS).lines());
        }
    }
}
