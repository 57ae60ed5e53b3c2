package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.dsa.DsaException;
import io.dsa.SharedDoubleArray;
import io.dsa.agent.AgentState;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A clone of node 1 ({@link NodeSnapshotsTest#prepared()}): what it copies, its start, and its registration at the homes. */
@Timeout(10)
class CloningTest {
    ScriptedNode node;
    ScriptedNode clone;

    @AfterEach
    void close() {
        if (node != null) node.close();
        if (clone != null) clone.close();
    }

    @Test
    void aCloneGetsASharedCopyOfEveryValidPartitionAndServesReadsFromIt() {
        node = NodeSnapshotsTest.prepared();
        AgentState state = AgentState.decode(node.rt.snapshotForClone(2).encode());
        assertEquals(List.of("4 A", "PartitionImage(0, 1, 1, -1, [], 32 bytes) 7", "PartitionImage(1, 1, 1, -1, [], 32 bytes) 9"),
                ArrayDirectoryTest.describe(state.arrays()), "both as SHARED cached copies");
        assertEquals(2, state.nodeId());
        assertEquals(1, state.epoch());
        assertEquals(List.of(), state.variables());
        assertEquals(Map.of(4, List.of(0, 1)).toString(), toLists(NodeRuntime.clonePartitions(state)).toString());

        clone = new ScriptedNode(2, f -> NodeRuntime.restoreClone(NodeSnapshotsTest.CONFIG, state, f));
        assertArrayEquals(new int[] {0, 2}, clone.rt.partitionCounts(), "a clone is home of nothing");
        SharedDoubleArray a = (SharedDoubleArray) clone.rt.localArray("A");
        assertEquals(Double.longBitsToDouble(9), a.read(4));
        assertEquals(List.of(), clone.take(), "a read of a valid copy sends nothing");
        assertEquals("node 2 knows no array named 'B'", assertThrows(DsaException.class, () -> clone.rt.localArray("B"))
                .getMessage());
    }

    @Test
    void theHomesRegisterTheCloneAsASharerSoThatWritesInvalidateIt() {
        node = NodeSnapshotsTest.prepared();
        AgentState state = node.rt.snapshotForClone(2);
        node.rt.admitClone(2);
        node.rt.registerCloneSharers(state);
        assertEquals("PartitionImage(1, 0, 1, -1, [2], 32 bytes)", WireText.of(node.rt.arrays.images().get(0).partitions().get(1)),
                "partition 1 is homed here: SHARED with the clone; partition 0's home is node 0's business");
    }

    @Test
    void aPartitionAnotherNodeOwnsIsNotCopied() {
        node = NodeSnapshotsTest.prepared();
        node.deliver(0, new CoherenceMessage(CoherenceOp.GET_M, 4, 1, 0, 1, 0, null));
        assertEquals(List.of("to 0: Coherence(DATA_M, 4, 1, 1, 0, 0, 32 bytes)"), node.take());
        AgentState state = node.rt.snapshotForClone(3);
        assertEquals(List.of("4 A", "PartitionImage(0, 1, 1, -1, [], 32 bytes) 7"), ArrayDirectoryTest.describe(state.arrays()));
    }

    @Test
    void cloneIdsStartAboveTheVmsNodesAndAStateMustBeAClonesOfThisVm() {
        node = NodeSnapshotsTest.prepared();
        assertEquals("clone id 1 out of range [2, ...): ids below are the VM's nodes",
                assertThrows(DsaException.class, () -> node.rt.snapshotForClone(1)).getMessage());
        AgentState notAClone = new AgentState(1, "vm", 1, 2, 2, NodeSnapshotsTest.VIEW, List.of(), List.of(),
                node.rt.snapshotForClone(2).barriers());
        assertEquals("agent state of node 1 (2 nodes x 2 threads) is not a clone of this VM of 2 x 2", assertThrows(DsaException.class,
                () -> NodeRuntime.restoreClone(NodeSnapshotsTest.CONFIG, notAClone, new InMemoryNetwork())).getMessage());
    }

    private static Map<Integer, List<Integer>> toLists(Map<Integer, int[]> held) {
        Map<Integer, List<Integer>> out = new java.util.TreeMap<>();
        held.forEach((k, v) -> out.put(k, java.util.Arrays.stream(v).boxed().toList()));
        return out;
    }
}
