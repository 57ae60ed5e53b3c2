package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaProgram;
import io.dsa.ReduceOp;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.RunReport;
import io.dsa.agent.WaitStrategy;
import io.dsa.agent.transport.LaneChannel;
import io.dsa.agent.wire.BarrierReleaseMessage;
import java.io.EOFException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Barrier lanes (docs/runtime.md, "Barrier lanes") on real nodes of this JVM (Netty connections,
 * Unix-domain lanes): collectives that agree bit for bit under every wait strategy while the lanes
 * carry them, a lane hello with a wrong token refused while the job goes on, and lanes off.
 */
@Timeout(60)
class LanesTest {
    static final int NODES = 3;
    static final int THREADS = 2;
    static final int ROUNDS = 100;
    final List<NodeRuntime> nodes = new ArrayList<>();

    @AfterEach
    void close() {
        for (NodeRuntime n : nodes) n.close();
    }

    void start(DsaConfig base) {
        NodeRuntime monitor = NodeRuntime.start(base);
        nodes.add(monitor);
        for (int k = 1; k < base.nodes(); k++) {
            nodes.add(NodeRuntime.start(base.toBuilder().nodeId(k).monitorAddress(monitor.address()).build()));
        }
    }

    static DsaConfig config(WaitStrategy wait, boolean lanes) {
        return DsaConfig.builder().nodes(NODES).threadsPerNode(THREADS).waitStrategy(wait).barrierLanes(lanes)
                .randomSecret().startupTimeoutMs(20_000).build();
    }

    void run(DsaProgram program) throws Exception {
        List<CompletableFuture<RunReport>> runs = Workers.start(0, nodes.size(), i -> JobRunner.run(nodes.get(i), program, List.of()));
        for (CompletableFuture<RunReport> r : runs) r.get(50, TimeUnit.SECONDS);
    }

    /**
     * Each round, every worker contributes {@code round * 100 + threadId} to a sum, a max and a
     * vector sum, then passes a plain barrier; every worker checks the exact results.
     */
    static final DsaProgram ROUNDS_PROGRAM = rounds(ROUNDS);

    static DsaProgram rounds(int count) {
        return w -> {
        int workers = NODES * THREADS;
        for (int round = 0; round < count; round++) {
            long v = round * 100L + w.threadId();
            long sum = w.allReduce(v, ReduceOp.SUM);
            long expected = round * 100L * workers + (long) workers * (workers - 1) / 2;
            if (sum != expected) throw new AssertionError("round " + round + " worker " + w.threadId() + ": sum " + sum + ", expected " + expected);
            double max = w.allReduce((double) v, ReduceOp.MAX);
            if (max != round * 100.0 + workers - 1) throw new AssertionError("round " + round + ": max " + max);
            w.barrier();
        }
        };
    }

    /**
     * POLL opens no lane where its I/O threads poll (the machine's nodes fit its cores): every
     * message reaches a node through its I/O thread, which is awake while a thread waits. Where
     * they do not fit, POLL waits as PARK does, and the lanes carry the barrier again.
     */
    @Test
    void underPollTheBarriersGoOverTheConnectionsWhereTheIoThreadsPoll() throws Exception {
        boolean polls = Waiting.pollersFit(0, NODES, THREADS);
        start(config(WaitStrategy.POLL, true));
        run(rounds(ROUNDS));
        for (int k = 1; k < NODES; k++) {
            assertEquals(!polls, nodes.get(0).lanes.hasLane(k), "node 0's lane to node " + k + " (polling I/O threads: " + polls + ")");
            assertEquals(!polls, nodes.get(k).lanes.hasLane(0), "node " + k + "'s lane to node 0");
            if (polls) assertEquals(0, nodes.get(k).lanes.sent.sum(), "node " + k + " sent nothing over a lane");
            else assertTrue(nodes.get(k).lanes.sent.sum() > ROUNDS, "node " + k + " sent its arrivals over its lane");
        }
    }

    @ParameterizedTest
    @EnumSource(value = WaitStrategy.class, names = "POLL", mode = EnumSource.Mode.EXCLUDE)
    void collectivesAgreeWhileTheLanesCarryTheGlobalBarrier(WaitStrategy wait) throws Exception {
        DsaConfig config = config(wait, true);
        start(config);
        // shared memory where the lane's poller spins (SPIN; ADAPTIVE with a core per spinning worker), sockets alone where it blocks
        boolean rings = Waiting.laneSpinNs(wait, config.machineThreads(), THREADS) >= Lanes.RING_SPIN_NS;
        // six spinning workers and three I/O threads share two cores under SPIN: fewer rounds
        int rounds = wait == WaitStrategy.SPIN ? ROUNDS / 3 : ROUNDS;
        run(rounds(rounds));
        for (int k = 1; k < NODES; k++) {
            assertTrue(nodes.get(0).lanes.hasLane(k), "node 0 has a lane to node " + k);
            assertTrue(nodes.get(k).lanes.hasLane(0), "node " + k + " has a lane to node 0");
            // the first two barriers set the lane up over the connection; the rest ride the lane
            assertTrue(nodes.get(k).lanes.sent.sum() > rounds, "node " + k + " sent " + nodes.get(k).lanes.sent.sum() + " arrivals over its lane");
            assertTrue(nodes.get(k).lanes.received.sum() > rounds, "node " + k + " received " + nodes.get(k).lanes.received.sum() + " releases");
            assertEquals(rings, nodes.get(0).lanes.hasRing(k) && nodes.get(k).lanes.hasRing(0), "node " + k + "'s lane has shared memory");
            if (rings) {
                // the lane's frames travel in shared memory, its socket only rings
                assertTrue(nodes.get(k).lanes.ringFrames(0) > rounds, "node " + k + " sent " + nodes.get(k).lanes.ringFrames(0) + " arrivals through it");
                assertTrue(nodes.get(0).lanes.ringFrames(k) > rounds, "node 0 sent " + nodes.get(0).lanes.ringFrames(k) + " releases through it");
            }
        }
        assertTrue(nodes.get(0).lanes.received.sum() > 2L * rounds, "node 0 received " + nodes.get(0).lanes.received.sum() + " arrivals");
        // each dialer removed its lane's file once it had mapped it
        Path ringDir = nodes.get(0).lanes.ringDirectory();
        try (var left = java.nio.file.Files.list(ringDir)) {
            assertEquals(List.of(), left.filter(p -> !p.getFileName().toString().equals("l")).toList(), "lane files left in " + ringDir);
        }
    }

    /**
     * Two nodes of one worker under ADAPTIVE, a core for each spinning worker: the lane has
     * shared memory. Worker 1 dawdles every third round (0.2 ms and more), so node 0's poller
     * spins out, blocks, and is woken by the doorbell of the arrival that lands in its ring;
     * every round's sum is exact.
     */
    @Test
    void aPollerThatBlocksIsWokenByTheDoorbellOfItsRing() throws Exception {
        DsaConfig config = DsaConfig.builder().nodes(2).threadsPerNode(1).waitStrategy(WaitStrategy.ADAPTIVE).barrierLanes(true)
                .randomSecret().startupTimeoutMs(20_000).build();
        org.junit.jupiter.api.Assumptions.assumeTrue(Waiting.laneSpinNs(WaitStrategy.ADAPTIVE, config.machineThreads(), 1) >= Lanes.RING_SPIN_NS,
                "this machine has fewer cores than two spinning workers");
        start(config);
        run(w -> {
            for (int round = 0; round < 60; round++) {
                if (w.threadId() == 1 && round % 3 == 0) java.util.concurrent.locks.LockSupport.parkNanos(200_000 + round * 10_000L);
                long sum = w.allReduce((long) round * 10 + w.threadId(), ReduceOp.SUM);
                if (sum != round * 20L + 1) throw new AssertionError("round " + round + ": sum " + sum + ", expected " + (round * 20L + 1));
            }
        });
        assertTrue(nodes.get(0).lanes.hasRing(1) && nodes.get(1).lanes.hasRing(0), "the lane has shared memory");
        assertTrue(nodes.get(1).lanes.ringFrames(0) > 50, "node 1 sent " + nodes.get(1).lanes.ringFrames(0) + " arrivals through it");
        assertTrue(nodes.get(1).lanes.bells(0) > 0, "node 1 rang for node 0's blocked poller");
    }

    /**
     * Vector collectives of 1,500 doubles a worker: every release (6 workers x 1,500 values, 72 KB)
     * is beyond a lane's 64 KiB frame and comes over the connection, between small rounds that ride
     * the lanes; a poller blocked on its lane must be woken by the release from the connection.
     */
    @Test
    void collectivesBeyondALaneFrameTakeTheConnectionBetweenLaneRounds() throws Exception {
        start(config(WaitStrategy.PARK, true));
        run(w -> {
            int workers = NODES * THREADS;
            double[] v = new double[1_500];
            for (int round = 0; round < 20; round++) {
                for (int i = 0; i < v.length; i++) v[i] = round + i + w.threadId();
                double[] sum = w.allReduce(v, ReduceOp.SUM);
                for (int i = 0; i < v.length; i += 97) {
                    double expected = workers * (double) (round + i) + (double) workers * (workers - 1) / 2;
                    if (sum[i] != expected) throw new AssertionError("round " + round + " element " + i + ": " + sum[i] + ", expected " + expected);
                }
                long small = w.allReduce((long) w.threadId(), ReduceOp.SUM);
                if (small != (long) workers * (workers - 1) / 2) throw new AssertionError("round " + round + ": small sum " + small);
            }
        });
        for (int k = 1; k < NODES; k++) {
            assertTrue(nodes.get(k).lanes.received.sum() > 0, "node " + k + " received the small rounds' releases over its lane");
        }
    }

    @Test
    void withLanesOffTheConnectionsCarryEverything() throws Exception {
        start(config(WaitStrategy.PARK, false));
        run(ROUNDS_PROGRAM);
        for (NodeRuntime n : nodes) {
            assertEquals(0, n.lanes.sent.sum() + n.lanes.received.sum(), "node " + n.nodeId + " used a lane");
            assertNull(n.lanes.listenerPath());
        }
    }

    /**
     * Someone on the machine who can reach node 0's listener (only its own user can) but did not
     * get a token over the authenticated connection: its hello, claiming node 1 and carrying a
     * release for a generation far ahead, is closed unread, and the job's collectives stay exact.
     * Node 0 has a token out for node 1 when the rogue says hello, so the token check alone stops
     * it: with that check seeded away (the hello's token not compared) the rogue's release reaches
     * node 0's barrier and the job fails ("collective at thread 1 got 0 values, expected 6").
     */
    @Test
    void aHelloWithoutTheOfferedTokenIsClosedAndTheJobGoesOn() throws Exception {
        start(config(WaitStrategy.PARK, true));
        Path path = nodes.get(0).lanes.listenerPath();
        assertNotNull(path, "node 0 listens for lanes");
        // node 0 has a token out for node 1 (as if node 1 had asked), so only the token check stands in the rogue's way
        nodes.get(0).lanes.onRequest(1, new io.dsa.agent.wire.LaneRequestMessage(1));
        byte[] guess = new byte[LaneChannel.TOKEN_BYTES];
        try (LaneChannel rogue = LaneChannel.dial(path, 1, guess)) {
            assertTrue(rogue.trySend(new BarrierReleaseMessage(MonitorRole.GLOBAL_BARRIER, 1_000_000, new long[0])));
            run(ROUNDS_PROGRAM); // node 0's poller accepts the rogue lane during the job's first barriers
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            boolean closed = false;
            while (!closed && System.nanoTime() < deadline) {
                try {
                    rogue.receive(m -> { throw new AssertionError("node 0 sent " + m + " on a lane it never bound"); });
                    Thread.onSpinWait();
                } catch (EOFException e) {
                    closed = true;
                }
            }
            assertTrue(closed, "node 0 closed the lane whose hello carried a wrong token");
        }
        assertTrue(nodes.get(1).lanes.hasLane(0), "node 1's own lane is up");
        assertFalse(nodes.get(0).lanes.received.sum() == 0, "node 0 received arrivals over the real lanes");
    }

    @Test
    void aLaneRefusesMessagesItDoesNotCarry() throws Exception {
        start(config(WaitStrategy.PARK, true));
        try (LaneChannel c = LaneChannel.dial(nodes.get(0).lanes.listenerPath(), 1, new byte[LaneChannel.TOKEN_BYTES])) {
            assertFalse(c.trySend(new io.dsa.agent.wire.LaneRequestMessage(1)), "a lane carries only barrier messages");
            assertFalse(c.trySend(new BarrierReleaseMessage(MonitorRole.GLOBAL_BARRIER, 1, new long[LaneChannel.MAX_FRAME_BYTES / 8])),
                    "a release beyond the lane's frame goes over the connection");
        }
        assertThrows(IllegalArgumentException.class, () -> LaneChannel.dial(Path.of("/nonexistent"), 1, new byte[3]));
    }

    private static void assertNull(Object o) { assertEquals(null, o); }
}
