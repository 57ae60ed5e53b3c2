package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.agent.AgentState;
import io.dsa.agent.BarrierKind;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.ProxyMode;
import io.dsa.agent.RunReport;
import io.dsa.agent.checkpoint.CheckpointCopy;
import io.dsa.agent.checkpoint.CheckpointManifest;
import io.dsa.agent.checkpoint.CheckpointStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A clone as its node's in-memory checkpoint (docs/failures.md, "Clone promotion"), on the
 * in-memory network, 3 nodes x 2 threads running {@link InMemoryClusterTest.Relax} with checkpoints:
 * node 1 is cloned (id 3) at epoch 2; every checkpoint after sends node 1's payload to the clone,
 * which acknowledges it and takes the manifest, so each manifest lists the clone's copy, equal to
 * node 1's file byte for byte; a VM restarted with node 1 started from the clone's copy ends with
 * the uninterrupted run's result. A clone whose copies are dropped is never listed, and the run
 * goes on; the seeded bug that lists a clone without its acknowledgement is caught.
 */
@Timeout(90)
class CloneCheckpointTest {
    private static final int NODES = InMemoryClusterTest.NODES;
    private static final int CLONE = NODES;
    private static final String CLONE_HOST = "127.0.0.9:7070";
    private final List<NodeRuntime> nodes = new ArrayList<>();
    private NodeRuntime clone;
    private InMemoryNetwork network;

    @TempDir
    Path dir;

    @AfterEach
    void close() {
        for (NodeRuntime n : nodes) n.close();
        if (clone != null) clone.close();
    }

    @Test
    void everyCheckpointAfterTheCloningListsTheClonesCopyAndARestartFromItEndsWithTheSameResult() throws Exception {
        System.out.println("CloneCheckpointTest: no randomness (no faults)");
        List<String> baseline = uninterrupted();
        network = new InMemoryNetwork();
        DsaConfig base = config(4);
        List<String> lines = runWithClone(base);
        assertEquals(baseline, lines);
        // node 0 hands out clone ids above every admitted one, each once; a clone given a taken id anyway is refused at admission
        assertEquals(CLONE + 1, nodes.get(0).allocateCloneId());
        assertEquals(CLONE + 2, nodes.get(0).allocateCloneId());
        assertEquals("node 2 hands out no clone ids: node 0 does", assertThrows(DsaException.class, () -> nodes.get(2).allocateCloneId())
                .getMessage());
        assertEquals("clone id 3 is taken: a clone with that id is connected to node 2",
                assertThrows(DsaException.class, () -> nodes.get(2).admitClone(CLONE)).getMessage());

        Path epoch20 = CheckpointStore.epochDir(dir, 20);
        CheckpointStore.Checkpoint cp = new CheckpointStore.Checkpoint(epoch20, CheckpointStore.manifest(epoch20));
        CheckpointManifest.FileEntry node1 = cp.manifest().files().get(1);
        byte[] node1Payload = cp.payload(CheckpointStore.nodeFile(1));
        assertEquals(List.of(new CheckpointManifest.CloneCopy(1, CLONE, node1Payload.length, node1.crc32c(), CLONE_HOST)),
                cp.manifest().clones(), "the clone's copy: node 1's payload (its file less the header), the same CRC32C");
        assertArrayEquals(new long[] {20, 16}, clone.cloneCheckpointEpochs(), "the two newest committed copies are kept");
        CheckpointCopy copy = clone.cloneCheckpoint(20);
        assertArrayEquals(node1Payload, copy.payload(), "the clone's copy is node 1's file's payload");
        assertEquals("clone 3 of node 1 keeps no committed copy of the checkpoint at epoch 12 (it keeps epochs [20, 16])",
                assertThrows(DsaException.class, () -> clone.cloneCheckpoint(12)).getMessage());

        // node 1 is lost: the VM restarts from epoch 16, node 1 from the clone's copy, the others from their files
        Path epoch16 = CheckpointStore.epochDir(dir, 16);
        CheckpointStore.Checkpoint at16 = new CheckpointStore.Checkpoint(epoch16, CheckpointStore.manifest(epoch16));
        byte[] fromClone = clone.cloneCheckpoint(16).payload();
        for (NodeRuntime n : nodes) n.close();
        nodes.clear();
        clone.close();
        clone = null;
        DsaConfig restart = base.toBuilder().checkpoints(0, null).build();
        nodes.add(NodeRuntime.startFromCheckpoint(restart, AgentState.decode(at16.payload(CheckpointStore.nodeFile(0))),
                at16.payload(CheckpointStore.MONITOR_FILE)));
        DsaConfig joining = restart.toBuilder().monitorAddress(nodes.get(0).address()).build();
        nodes.add(NodeRuntime.startFromCheckpoint(joining.toBuilder().nodeId(1).build(), AgentState.decode(fromClone), null));
        nodes.add(NodeRuntime.startFromCheckpoint(joining.toBuilder().nodeId(2).build(),
                AgentState.decode(at16.payload(CheckpointStore.nodeFile(2))), null));
        List<CompletableFuture<RunReport>> resumed = Workers.start(0, NODES,
                i -> JobRunner.run(nodes.get(i), new InMemoryClusterTest.Relax(), List.of(), 16));
        assertEquals(baseline, Workers.result(resumed.get(0), 30).lines());
        for (CompletableFuture<RunReport> r : resumed) Workers.result(r, 30);
    }

    @Test
    void aCloneWhoseCopiesAreDroppedIsNeverListedAndTheRunGoesOn() throws Exception {
        List<String> baseline = uninterrupted();
        FaultPlan plan = new FaultPlan(FaultPlan.seed());
        plan.on("BUDDY_COPY").to(CLONE).drop();
        network = new InMemoryNetwork(plan);
        assertEquals(baseline, runWithClone(config(8)));
        assertNoCloneListedWithoutItsCopy(List.of(8L, 16L));
    }

    @Test
    void listingACloneWithoutItsAcknowledgementIsCaught() throws Exception {
        FaultPlan plan = new FaultPlan(FaultPlan.seed());
        plan.on("BUDDY_COPY").to(CLONE).drop();
        network = new InMemoryNetwork(plan);
        runWithClone(config(8), Checkpoints.Fault.CLONE_LISTED_UNACKNOWLEDGED);
        AssertionError caught = assertThrows(AssertionError.class, () -> assertNoCloneListedWithoutItsCopy(List.of(8L, 16L)));
        assertTrue(caught.getMessage().contains("lists clone 3"), caught.getMessage());
    }

    // Every manifest of `epochs` lists only clones that keep a committed copy of that epoch.
    private void assertNoCloneListedWithoutItsCopy(List<Long> epochs) {
        for (long e : epochs) {
            CheckpointManifest m = CheckpointStore.manifest(CheckpointStore.epochDir(dir, e));
            for (CheckpointManifest.CloneCopy c : m.clones()) {
                try {
                    clone.cloneCheckpoint(e);
                } catch (DsaException ex) {
                    throw new AssertionError("the manifest of epoch " + e + " lists clone " + c.cloneId() + ", which keeps no copy: "
                            + ex.getMessage());
                }
            }
        }
    }

    private DsaConfig config(long every) {
        return InMemoryClusterTest.config(BarrierKind.TREE, ProxyMode.FLOAT).toBuilder().checkpoints(every, dir).failureTimeoutMs(1_000)
                .build();
    }

    // The result of a run without checkpoints or clones.
    private List<String> uninterrupted() throws Exception {
        try (InMemoryVm vm = new InMemoryVm(new InMemoryNetwork(), InMemoryClusterTest.config(BarrierKind.TREE, ProxyMode.FLOAT))) {
            List<CompletableFuture<RunReport>> runs = Workers.start(0, NODES,
                    i -> JobRunner.run(vm.node(i), new InMemoryClusterTest.Relax(), List.of()));
            List<String> lines = Workers.result(runs.get(0), 30).lines();
            for (CompletableFuture<RunReport> r : runs) Workers.result(r, 30);
            return lines;
        }
    }

    private List<String> runWithClone(DsaConfig base) throws Exception { return runWithClone(base, null); }

    /** Runs Relax on a new VM of {@code base}, with node 1 cloned at the safe point of epoch 2; @return node 0's report lines */
    private List<String> runWithClone(DsaConfig base, Checkpoints.Fault fault) throws Exception {
        nodes.add(NodeRuntime.start(base, network));
        for (int k = 1; k < NODES; k++) {
            nodes.add(NodeRuntime.start(base.toBuilder().nodeId(k).monitorAddress(nodes.get(0).address()).build(), network));
        }
        nodes.get(0).checkpoints.fault = fault;
        NodeRuntime monitor = nodes.get(0);
        CompletableFuture<Long> safePoint = monitor.holdGlobalRelease(2);
        List<CompletableFuture<RunReport>> runs = Workers.start(0, NODES,
                i -> JobRunner.run(nodes.get(i), new InMemoryClusterTest.Relax(), List.of()));
        safePoint.get(30, TimeUnit.SECONDS);
        // the cloning, as DsaCluster.cloneNode does it
        AgentState state = nodes.get(1).snapshotForClone(CLONE);
        for (NodeRuntime n : nodes) n.admitClone(CLONE);
        clone = NodeRuntime.restoreClone(base.toBuilder().nodeId(1).monitorAddress(monitor.address()).hostAddress(CLONE_HOST).build(),
                AgentState.decode(state.encode()), network);
        clone.connectMoved().get(10, TimeUnit.SECONDS);
        for (NodeRuntime n : nodes) n.registerCloneSharers(state);
        monitor.releaseHeldGlobal();
        List<String> lines = Workers.result(runs.get(0), 30).lines();
        for (CompletableFuture<RunReport> r : runs) Workers.result(r, 30);
        return lines;
    }
}
