package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.AgentState;
import io.dsa.agent.Await;
import io.dsa.agent.BarrierKind;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.ProxyMode;
import io.dsa.agent.RunReport;
import io.dsa.agent.checkpoint.CheckpointStore;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkpoint taken while a coherence request is on its way (the in-memory network holds it): a
 * node asked another for a copy of a partition (an asynchronous {@code requestPartitionCopy}) just
 * before the global barrier of the checkpoint. The checkpoint waits for the answer, so both sides'
 * files agree (the home's directory lists the requester as a sharer, the requester holds the copy),
 * and a VM restarted from it invalidates that copy at the home's next write: the requester reads
 * 2.0, not the stale 1.0.
 */
@Timeout(60)
class CheckpointConsistencyTest {
    /** Says so in the report: a fault test prints its seed, or that it has none. */
    @org.junit.jupiter.api.BeforeAll
    static void sayThereIsNoSeed() {
        System.out.println("CheckpointConsistencyTest: no randomness (the held messages are chosen)");
    }

    private static final int NODES = InMemoryClusterTest.NODES;
    private final InMemoryNetwork network = new InMemoryNetwork();
    private final List<NodeRuntime> nodes = new ArrayList<>();

    @TempDir
    Path dir;

    @AfterEach
    void close() {
        for (NodeRuntime n : nodes) n.close();
    }

    /** Node 0 (the checkpoint's coordinator) asks node 2. */
    @Test
    void aCopyNode0RequestedBeforeTheCheckpointsBarrierIsInBothSidesFilesAndTheRestartReadsTheNewValue() throws Exception {
        copyOnItsWayAtTheCheckpoint(0, 2);
    }

    /**
     * Node 2 asks node 1, which node 0 finds quiescent before the request reaches it: the files are
     * written only after node 2 is quiescent too, so node 1's lists node 2 as a sharer.
     */
    @Test
    void aCopyBetweenTwoOtherNodesOnItsWayAtTheCheckpointIsInBothSidesFiles() throws Exception {
        copyOnItsWayAtTheCheckpoint(2, 1);
    }

    /** Starts a VM of {@code restart}'s nodes from checkpoint {@code cp} into {@code nodes}: node 0 (with the monitor's file), then the others. */
    static void startFromCheckpoint(List<NodeRuntime> nodes, DsaConfig restart, CheckpointStore.Checkpoint cp) {
        nodes.add(NodeRuntime.startFromCheckpoint(restart, AgentState.decode(cp.payload(CheckpointStore.nodeFile(0))),
                cp.payload(CheckpointStore.MONITOR_FILE)));
        for (int k = 1; k < restart.nodes(); k++) {
            nodes.add(NodeRuntime.startFromCheckpoint(restart.toBuilder().nodeId(k).monitorAddress(nodes.get(0).address()).build(),
                    AgentState.decode(cp.payload(CheckpointStore.nodeFile(k))), null));
        }
    }

    private void copyOnItsWayAtTheCheckpoint(int requesterNode, int homeNode) throws Exception {
        DsaConfig base = InMemoryClusterTest.config(BarrierKind.TREE, ProxyMode.FLOAT).toBuilder().checkpoints(2, dir).build();
        nodes.add(NodeRuntime.start(base, network));
        for (int k = 1; k < NODES; k++) {
            nodes.add(NodeRuntime.start(base.toBuilder().nodeId(k).monitorAddress(nodes.get(0).address()).build(), network));
        }
        network.holdFrom(requesterNode, homeNode, m -> m instanceof CoherenceMessage c && c.op() == CoherenceOp.GET_S);
        List<CompletableFuture<RunReport>> runs = Workers.start(0, NODES,
                i -> JobRunner.run(nodes.get(i), new InMemoryClusterTest.LateCopy(requesterNode, homeNode), List.of()));
        Await.until("node " + requesterNode + "'s request held and the checkpoint waiting for it", 20_000,
                () -> network.held() == 1 && nodes.get(requesterNode).arrays.quiescenceWaiters() > 0);
        Path epoch2 = CheckpointStore.epochDir(dir, 2);
        assertFalse(Files.exists(epoch2.resolve(CheckpointStore.MANIFEST)), "a checkpoint was taken while a request was on its way");
        network.releaseHeld();
        assertEquals(List.of("node " + requesterNode + ": read 2.0"), Workers.result(runs.get(0), 30).lines());
        for (CompletableFuture<RunReport> r : runs) Workers.result(r, 30);

        CheckpointStore.Checkpoint cp = new CheckpointStore.Checkpoint(epoch2, CheckpointStore.manifest(epoch2));
        AgentState home = AgentState.decode(cp.payload(CheckpointStore.nodeFile(homeNode)));
        AgentState requester = AgentState.decode(cp.payload(CheckpointStore.nodeFile(requesterNode)));
        AgentState.PartitionImage entry = home.arrays().get(0).partitions().stream().filter(p -> p.role() == AgentState.ROLE_HOME
                && p.sharers().length > 0).findFirst().orElseThrow(() -> new AssertionError("node " + homeNode + "'s file lists no sharer"));
        assertArrayEquals(new int[] {requesterNode}, entry.sharers());
        assertTrue(requester.arrays().get(0).partitions().stream().anyMatch(p -> p.partition() == entry.partition()
                && p.role() == AgentState.ROLE_CACHE && p.data() != null), "the requester's file holds its copy");

        for (NodeRuntime n : nodes) n.close();
        nodes.clear();
        startFromCheckpoint(nodes, base.toBuilder().checkpoints(0, null).build(), cp);
        List<CompletableFuture<RunReport>> resumed = Workers.start(0, NODES,
                i -> JobRunner.run(nodes.get(i), new InMemoryClusterTest.LateCopy(requesterNode, homeNode), List.of(), 2));
        assertEquals(List.of("node " + requesterNode + ": read 2.0"), Workers.result(resumed.get(0), 30).lines());
        for (CompletableFuture<RunReport> r : resumed) Workers.result(r, 30);
    }
}
