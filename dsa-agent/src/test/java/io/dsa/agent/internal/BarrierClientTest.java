package io.dsa.agent.internal;

import static io.dsa.agent.internal.BarrierClient.CENTRAL_GLOBAL;
import static io.dsa.agent.internal.BarrierClient.KARY_GLOBAL;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.agent.AgentState;
import io.dsa.agent.BarrierKind;
import io.dsa.agent.ProxyMode;
import io.dsa.agent.wire.BarrierArriveMessage;
import io.dsa.agent.wire.BarrierReleaseMessage;
import io.dsa.agent.wire.StatusMessage;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The node side of barriers, in a whole node on a scripted transport: worker threads arrive, the
 * test plays the other nodes and node 0, and checks the exact arrivals sent (and from which thread),
 * the releases forwarded, the values each worker gets, and the generation checks.
 */
@Timeout(30)
class BarrierClientTest {
    static final String KARY = String.valueOf(KARY_GLOBAL);
    static final String CENTRAL = String.valueOf(CENTRAL_GLOBAL);
    ScriptedNode node;

    @AfterEach
    void close() { if (node != null) node.close(); }

    ScriptedNode node(int nodes, int threads, BarrierKind kind, int fanout, ProxyMode proxy, int nodeId) {
        node = new ScriptedNode(ScriptedNode.config(nodes, threads, kind, fanout, proxy), nodeId).connectAll();
        return node;
    }

    static List<CompletableFuture<long[]>> arrive(ScriptedNode n, long... values) {
        return Workers.start(0, values.length, i -> n.rt.barriers.global(i, new long[] {values[i]}));
    }

    static List<CompletableFuture<long[]>> arrivePlain(ScriptedNode n, int threads) {
        return Workers.start(0, threads, i -> n.rt.barriers.global(-1, Contributions.NONE));
    }

    static void assertAllGet(long[] expected, List<CompletableFuture<long[]>> workers) {
        for (CompletableFuture<long[]> w : workers) assertArrayEquals(expected, Workers.result(w));
    }

    // ---- TREE: the node's last arrival reports to node 0 ---------------------------------------------

    @Test
    void treeTheLastLocalArrivalSendsTheNodesValuesAndTheReleaseGivesEveryoneAll() {
        ScriptedNode n = node(2, 2, BarrierKind.TREE, 2, ProxyMode.FLOAT, 1);
        List<CompletableFuture<long[]>> workers = arrive(n, 10, 11);
        ScriptedNode.Sent arrival = n.awaitSent(0, "BarrierArrive(0, 0, 1, 2, [10, 11])");
        assertTrue(arrival.thread().startsWith("worker-"), "FLOAT: the last worker sends, not " + arrival.thread());
        assertFalse(workers.get(0).isDone());
        n.deliver(0, new BarrierReleaseMessage(0, 0, new long[] {1, 2, 10, 11}));
        assertAllGet(new long[] {1, 2, 10, 11}, workers);
        List<CompletableFuture<long[]>> plain = arrivePlain(n, 2);
        n.awaitSent(0, "BarrierArrive(0, 1, 1, 2, [])");
        n.deliver(0, new BarrierReleaseMessage(0, 1, new long[0]));
        assertAllGet(new long[0], plain);
        assertEquals(List.of("to 0: BarrierArrive(0, 0, 1, 2, [10, 11])", "to 0: BarrierArrive(0, 1, 1, 2, [])"), n.take());
    }

    @Test
    void treeAStashedNodePayloadTravelsWithTheNodesArrivalAndTheReleasedPayloadsReachEveryWorker() {
        ScriptedNode n = node(2, 2, BarrierKind.TREE, 2, ProxyMode.FLOAT, 1);
        assertTrue(n.rt.barriers.carriesNodePayloads());
        n.rt.barriers.stashNodePayload(new long[] {4, 5, 6});
        List<CompletableFuture<long[]>> workers = arrive(n, 10, 11);
        n.awaitSent(0, "BarrierArrive(0, 0, 1, 2, [10, 11], payload [4, 5, 6])");
        n.deliver(0, new BarrierReleaseMessage(0, 0, new long[] {1, 2, 10, 11}, new long[] {0, 3, 4, 5, 6}));
        assertAllGet(new long[] {1, 2, 10, 11}, workers);
        assertArrayEquals(new long[] {0, 3, 4, 5, 6}, n.rt.barriers.releasedPayloads());
        List<CompletableFuture<long[]>> plain = arrivePlain(n, 2);
        n.awaitSent(0, "BarrierArrive(0, 1, 1, 2, [])");
        assertEquals(List.of("to 0: BarrierArrive(0, 0, 1, 2, [10, 11], payload [4, 5, 6])", "to 0: BarrierArrive(0, 1, 1, 2, [])"),
                n.take(), "a payload goes with one arrival only");
        n.deliver(0, new BarrierReleaseMessage(0, 1, new long[0]));
        assertAllGet(new long[0], plain);
        assertArrayEquals(new long[0], n.rt.barriers.releasedPayloads());
    }

    @Test
    void theKaryAndCentralBarriersCarryNoNodePayloads() {
        for (BarrierKind kind : new BarrierKind[] {BarrierKind.KARY, BarrierKind.CENTRAL}) {
            ScriptedNode n = node(2, 1, kind, 2, ProxyMode.FLOAT, 1);
            assertFalse(n.rt.barriers.carriesNodePayloads());
            IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                    () -> n.rt.barriers.stashNodePayload(new long[] {1}));
            assertEquals("the " + kind + " global barrier carries no node payloads", e.getMessage());
            n.close();
        }
    }

    @Test
    void treeWithTheFixedProxyTheIoThreadSendsTheArrival() {
        ScriptedNode n = node(2, 2, BarrierKind.TREE, 2, ProxyMode.FIXED, 1);
        List<CompletableFuture<long[]>> workers = arrivePlain(n, 2);
        ScriptedNode.Sent arrival = n.awaitSent(0, "BarrierArrive(0, 0, 1, 2, [])");
        assertEquals("scripted-io-1", arrival.thread());
        n.deliver(0, new BarrierReleaseMessage(0, 0, new long[0]));
        assertAllGet(new long[0], workers);
    }

    @Test
    void someWorkersInACollectiveAndOthersInAPlainBarrierIsReportedAndTheAbortReleasesThem() {
        ScriptedNode n = node(2, 2, BarrierKind.TREE, 2, ProxyMode.FLOAT, 1);
        CompletableFuture<long[]> collective = Workers.start(0, 1, i -> n.rt.barriers.global(0, new long[] {7})).get(0);
        CompletableFuture<long[]> plain = Workers.start(1, 2, i -> n.rt.barriers.global(-1, Contributions.NONE)).get(0);
        String mismatch = "collective mismatch at node 1: thread 1 called a plain barrier, thread 2 passed 1 value";
        n.awaitSent(0, "Status(1, 2, " + mismatch + ")");
        assertEquals(List.of("to 0: Status(1, 2, " + mismatch + ")"), n.take(), "a mismatch sends no arrival");
        n.deliver(0, new StatusMessage(0, StatusMessage.ABORT, "collective mismatch at node 1"));
        assertEquals("job failed: collective mismatch at node 1", Workers.failure(collective).getMessage());
        assertEquals("job failed: collective mismatch at node 1", Workers.failure(plain).getMessage());
        DsaException late = org.junit.jupiter.api.Assertions.assertThrows(DsaException.class, () -> n.rt.barriers.global(-1, Contributions.NONE));
        assertEquals("job failed: collective mismatch at node 1", late.getMessage(), "a failed job lets nobody wait");
    }

    // ---- KARY: subtrees combine up, the release flows down ------------------------------------------------

    @Test
    void karyAnInnerNodeCombinesItsChildrenAndForwardsTheReleaseToThemFirst() {
        // 5 nodes, fanout 2: node 1's children are 3 and 4, its parent is 0
        ScriptedNode n = node(5, 1, BarrierKind.KARY, 2, ProxyMode.FLOAT, 1);
        n.deliver(4, new BarrierArriveMessage(KARY_GLOBAL, 0, 4, 1, new long[] {4, 400}));
        n.deliver(3, new BarrierArriveMessage(KARY_GLOBAL, 0, 3, 1, new long[] {3, 300}));
        assertEquals(List.of(), n.take(), "its own worker has not arrived");
        List<CompletableFuture<long[]>> worker = arrive(n, 100);
        n.awaitSent(0, "BarrierArrive(" + KARY + ", 0, 1, 3, [4, 400, 3, 300, 1, 100])");
        long[] all = {0, 100, 200, 300, 400};
        n.deliver(0, new BarrierReleaseMessage(KARY_GLOBAL, 0, all));
        assertAllGet(all, worker);
        assertEquals(List.of("to 0: BarrierArrive(" + KARY + ", 0, 1, 3, [4, 400, 3, 300, 1, 100])",
                "to 3: BarrierRelease(" + KARY + ", 0, [0, 100, 200, 300, 400])",
                "to 4: BarrierRelease(" + KARY + ", 0, [0, 100, 200, 300, 400])"), n.take());
        n.deliver(3, new BarrierArriveMessage(KARY_GLOBAL, 0, 3, 1, new long[0]));
        assertEquals(List.of("to 0: Status(1, 2, k-ary barrier at node 1 got an arrival for generation 0, expected 1)"), n.take());
    }

    @Test
    void karyTheRootPutsEveryBlockInThreadIdOrderAndReleasesItsChildren() {
        ScriptedNode n = node(3, 2, BarrierKind.KARY, 2, ProxyMode.FLOAT, 0);
        n.deliver(2, new BarrierArriveMessage(KARY_GLOBAL, 0, 2, 1, new long[] {2, 20, 21}));
        n.deliver(1, new BarrierArriveMessage(KARY_GLOBAL, 0, 1, 1, new long[] {1, 10, 11}));
        List<CompletableFuture<long[]>> workers = arrive(n, 0, 1);
        long[] all = {0, 1, 10, 11, 20, 21};
        assertAllGet(all, workers);
        assertEquals(List.of("to 1: BarrierRelease(" + KARY + ", 0, [0, 1, 10, 11, 20, 21])",
                "to 2: BarrierRelease(" + KARY + ", 0, [0, 1, 10, 11, 20, 21])"), n.take());
    }

    @Test
    void karyAtTheRootTheGateHoldsAPlainRelease() {
        ScriptedNode n = node(2, 1, BarrierKind.KARY, 2, ProxyMode.FLOAT, 0);
        CompletableFuture<Long> safePoint = n.rt.holdNextGlobalRelease();
        n.deliver(1, new BarrierArriveMessage(KARY_GLOBAL, 0, 1, 1, new long[0]));
        List<CompletableFuture<long[]>> worker = arrivePlain(n, 1);
        assertEquals(0L, Workers.result(safePoint));
        assertEquals(List.of(), n.take(), "held");
        assertFalse(worker.get(0).isDone());
        n.rt.releaseHeldGlobal();
        assertAllGet(new long[0], worker);
        assertEquals(List.of("to 1: BarrierRelease(" + KARY + ", 0, [])"), n.take());
    }

    // ---- CENTRAL: every worker reports to node 0 ------------------------------------------------------------

    @Test
    void centralEveryWorkerSendsItsOwnArrivalWithItsThreadAndValue() {
        ScriptedNode n = node(2, 2, BarrierKind.CENTRAL, 2, ProxyMode.FIXED, 1);
        List<CompletableFuture<long[]>> workers = arrive(n, 10, 11);
        n.awaitSent(0, "BarrierArrive(" + CENTRAL + ", 0, 1, 1, [0, 10])");
        n.awaitSent(0, "BarrierArrive(" + CENTRAL + ", 0, 1, 1, [1, 11])");
        n.deliver(0, new BarrierReleaseMessage(CENTRAL_GLOBAL, 0, new long[] {0, 1, 10, 11}));
        assertAllGet(new long[] {0, 1, 10, 11}, workers);
        List<CompletableFuture<long[]>> plain = arrivePlain(n, 1);
        n.awaitSent(0, "BarrierArrive(" + CENTRAL + ", 1, 1, 1, [0])");
        assertFalse(plain.get(0).isDone());
    }

    @Test
    void centralTheRootCountsEveryWorkerAndOrdersValuesByThreadId() {
        ScriptedNode n = node(2, 2, BarrierKind.CENTRAL, 2, ProxyMode.FLOAT, 0);
        n.deliver(1, new BarrierArriveMessage(CENTRAL_GLOBAL, 0, 1, 1, new long[] {1, 11}));
        List<CompletableFuture<long[]>> workers = arrive(n, 0, 1);
        n.deliver(1, new BarrierArriveMessage(CENTRAL_GLOBAL, 0, 1, 1, new long[] {0, 10}));
        assertAllGet(new long[] {0, 1, 10, 11}, workers);
        assertEquals(List.of("to 1: BarrierRelease(" + CENTRAL + ", 0, [0, 1, 10, 11])"), n.take());
        n.deliver(1, new BarrierArriveMessage(CENTRAL_GLOBAL, 5, 1, 1, new long[] {0}));
        // reported to node 0 itself, whose monitor aborts the job everywhere
        assertEquals(List.of("to 1: Status(0, 3, node 1 arrived at generation 5 of the central barrier, expected 1)"), n.take());
    }

    // ---- group and local barriers, failures, counters ------------------------------------------------------

    @Test
    void aGroupBarrierReportsEachArrivalAtItsCompletedGeneration() {
        ScriptedNode n = node(2, 1, BarrierKind.TREE, 2, ProxyMode.FLOAT, 1);
        CompletableFuture<Integer> first = Workers.start(0, 1, i -> { n.rt.barriers.group(5, "g"); return 1; }).get(0);
        n.awaitSent(0, "BarrierArrive(5, 0, 1, 1, [])");
        assertFalse(first.isDone());
        n.deliver(0, new BarrierReleaseMessage(5, 0, new long[0]));
        assertEquals(1, Workers.result(first));
        CompletableFuture<Integer> second = Workers.start(0, 1, i -> { n.rt.barriers.group(5, "g"); return 2; }).get(0);
        n.awaitSent(0, "BarrierArrive(5, 1, 1, 1, [])");
        n.deliver(0, new BarrierReleaseMessage(5, 1, new long[0]));
        assertEquals(2, Workers.result(second));
    }

    @Test
    void theLocalBarrierSendsNothing() {
        ScriptedNode n = node(2, 3, BarrierKind.TREE, 2, ProxyMode.FLOAT, 1);
        for (CompletableFuture<Integer> w : Workers.start(0, 3, i -> { n.rt.barriers.local(); return i; })) Workers.result(w);
        assertEquals(List.of(), n.take());
    }

    @Test
    void anAbortReleasesAWorkerWaitingAtTheGlobalBarrier() {
        ScriptedNode n = node(2, 2, BarrierKind.TREE, 2, ProxyMode.FLOAT, 1);
        CompletableFuture<long[]> waiting = Workers.start(0, 1, i -> n.rt.barriers.global(-1, Contributions.NONE)).get(0);
        n.deliver(0, new StatusMessage(0, StatusMessage.ABORT, "node 0 worker 0 failed: boom"));
        Throwable t = Workers.failure(waiting);
        assertTrue(t instanceof DsaException && t.getMessage().equals("job failed: node 0 worker 0 failed: boom"), t.toString());
    }

    @Test
    void theCountersMoveWithAStateAndTheNextArrivalCarriesTheGeneration() {
        ScriptedNode n = node(2, 1, BarrierKind.TREE, 2, ProxyMode.FLOAT, 1);
        List<CompletableFuture<long[]>> w = arrivePlain(n, 1);
        n.awaitSent(0, "BarrierArrive(0, 0, 1, 1, [])");
        n.deliver(0, new BarrierReleaseMessage(0, 0, new long[0]));
        Workers.result(w.get(0));
        AgentState.BarrierImage image = n.rt.barriers.snapshot();
        assertEquals(new AgentState.BarrierImage(1, 1, 0, 0, 0, Map.of()).toString(), image.toString());
        n.close();
        node = new ScriptedNode(ScriptedNode.config(2, 1, BarrierKind.TREE, 2, ProxyMode.FLOAT), 1).connectAll();
        node.rt.barriers.restore(image);
        arrivePlain(node, 1);
        node.awaitSent(0, "BarrierArrive(0, 1, 1, 1, [])");
    }
}
