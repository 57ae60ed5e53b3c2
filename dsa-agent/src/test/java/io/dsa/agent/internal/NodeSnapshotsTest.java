package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.ArraySpec;
import io.dsa.Distribution;
import io.dsa.DsaException;
import io.dsa.ElementType;
import io.dsa.agent.AgentState;
import io.dsa.agent.BarrierKind;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.ProxyMode;
import io.dsa.agent.wire.DefineMessage;
import io.dsa.agent.wire.RegisterMessage;
import io.dsa.agent.wire.VarOpMessage;
import io.dsa.agent.wire.ViewMessage;
import io.dsa.coherence.Access;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A node's state at a safe point and its restore, in whole nodes on a scripted transport: node 1
 * of 2 (2 threads) holds array 4 "A" (8 doubles, partition 0 homed at node 0 and cached here,
 * partition 1 homed here) and variable 2, homed here.
 */
@Timeout(10)
class NodeSnapshotsTest {
    static final DsaConfig CONFIG = ScriptedNode.config(2, 2, BarrierKind.TREE, 2, ProxyMode.FLOAT).toBuilder().nodeId(1)
            .monitorAddress("127.0.0.1:7000").build();
    static final List<String> VIEW = List.of("127.0.0.1:7000", "127.0.0.1:7001");
    static final long[] PARAMS = Specs.toParams(ArraySpec.oneDimensional("A", ElementType.DOUBLE, 8, 4, Distribution.BLOCK));
    ScriptedNode node;
    ScriptedNode restored;

    @AfterEach
    void close() {
        if (node != null) node.close();
        if (restored != null) restored.close();
    }

    /** Node 1 with its view, array A (home partition written: first byte 9; partition 0 cached: first byte 7) and variable 2 = 77. */
    static ScriptedNode prepared() {
        ScriptedNode n = new ScriptedNode(CONFIG, 1);
        n.deliver(0, new ViewMessage(2, VIEW));
        n.connectAll();
        n.deliver(0, new DefineMessage(RegisterMessage.ARRAY, 4, 0, "A", PARAMS));
        n.deliver(0, new DefineMessage(RegisterMessage.VARIABLE, 2, 1, "v", new long[] {1, 77}));
        ArrayState a = n.rt.arrays.array(4);
        // a write to the home partition (its bytes are allocated on the I/O thread), then a miss on the other
        ((io.dsa.SharedDoubleArray) n.rt.localArray("A")).write(4, Double.longBitsToDouble(9));
        n.rt.arrays.post(a, 0, Access.READ);
        n.awaitSent(0, "Coherence(GET_S, 4, 0, 1, 0, 1, null)");
        byte[] copy = new byte[32];
        copy[0] = 7;
        n.deliver(0, new CoherenceMessage(CoherenceOp.DATA_S, 4, 0, 0, 1, 1, copy));
        assertEquals(List.of("to 0: Coherence(GET_S, 4, 0, 1, 0, 1, null)"), n.take());
        return n;
    }

    static List<String> describe(AgentState s) {
        List<String> out = new java.util.ArrayList<>();
        out.add("node " + s.nodeId() + " of " + s.vmName() + " epoch " + s.epoch() + ", " + s.nodes() + " x " + s.threadsPerNode()
                + ", view " + s.view() + ", variables " + s.variables() + ", barriers " + s.barriers());
        out.addAll(ArrayDirectoryTest.describe(s.arrays()));
        return out;
    }

    @Test
    void theStateAtASafePointHoldsArraysVariablesCountersAndTheViewAndRestoresUnchanged() {
        node = prepared();
        node.rt.snapshots.addWorker(new WorkerImpl(node.rt, null, 0, 5));
        node.rt.snapshots.addWorker(new WorkerImpl(node.rt, null, 1, 5));
        AgentState state = AgentState.decode(node.rt.snapshot().encode());
        List<String> expected = List.of(
                "node 1 of " + CONFIG.vmName() + " epoch 6, 2 x 2, view " + VIEW + ", variables [VariableImage[id=2, bits=77]], "
                        + "barriers BarrierImage[globalGeneration=0, globalCompleted=0, treeGeneration=0, centralGeneration=0, "
                        + "localGeneration=0, groupsCompleted={}]",
                "4 A",
                "PartitionImage(0, 1, 1, -1, [], 32 bytes) 7",
                "PartitionImage(1, 0, 0, -1, [], 32 bytes) 9");
        assertEquals(expected, describe(state));

        restored = new ScriptedNode(1, f -> NodeRuntime.restore(CONFIG, state, f));
        assertEquals(VIEW, restored.rt.view());
        assertEquals(expected.subList(1, 4), ArrayDirectoryTest.describe(restored.rt.arrays.images()));
        restored.connectAll();
        restored.deliver(0, new VarOpMessage(3, 2, VarOpMessage.GET, 0, 0));
        assertEquals(List.of("to 0: VarResult(3, 77, true)"), restored.take());
        assertEquals(List.of(), restored.dialled(), "a restored agent joins nobody until connectMoved");
    }

    @Test
    void aNodeWhoseWorkersAreNotAllWaitingAtOneEpochIsNoSafePoint() {
        node = prepared();
        assertEquals("node 1 is not at a safe point: 0 of 2 workers started",
                assertThrows(DsaException.class, node.rt::snapshot).getMessage());
        node.rt.snapshots.addWorker(new WorkerImpl(node.rt, null, 0, 5));
        node.rt.snapshots.addWorker(new WorkerImpl(node.rt, null, 1, 6));
        assertEquals("node 1 is not at a safe point: its workers are at epochs 5 and 6",
                assertThrows(DsaException.class, node.rt::snapshot).getMessage());
    }

    @Test
    void aStateThatDoesNotFitTheAgentIsRefusedAndAFailedRestoreClosesTheNewAgent() {
        node = prepared();
        AgentState state = node.rt.snapshotForClone(2);
        assertEquals("agent state of node 2 is a clone's (ids >= 2): restore it with restoreClone", assertThrows(DsaException.class,
                () -> NodeRuntime.restore(CONFIG, state, new InMemoryNetwork())).getMessage());
        AgentState own = new AgentState(1, "vm", 1, 3, 2, VIEW, List.of(), List.of(), state.barriers());
        assertEquals("agent state of node 1 (3 nodes x 2 threads) does not fit the agent of node 1 (2 x 2)",
                assertThrows(DsaException.class, () -> NodeRuntime.restore(CONFIG, own, new InMemoryNetwork())).getMessage());
        // fits the agent, but one partition image does not fit its array: the install fails after the transport bound
        AgentState.ArrayImage a = state.arrays().get(0);
        AgentState.ArrayImage broken = new AgentState.ArrayImage(a.id(), a.name(), a.params(),
                List.of(new AgentState.PartitionImage(99, AgentState.ROLE_HOME, 0, -1, new int[0], null)));
        AgentState fits = new AgentState(1, "vm", 1, 2, 2, VIEW, List.of(broken), List.of(), state.barriers());
        java.util.concurrent.atomic.AtomicBoolean transportClosed = new java.util.concurrent.atomic.AtomicBoolean();
        NodeTransport.Factory recording = (c, id) -> new NodeTransport() {
            @Override public IoThread ioThread() { return IoThread.CALLER; }
            @Override public void listen(io.dsa.agent.transport.InboundHandler inbound) {}
            @Override public int port() { return 7001; }
            @Override public java.util.concurrent.CompletableFuture<io.dsa.agent.transport.Connection> connect(String h, int p) {
                return java.util.concurrent.CompletableFuture.failedFuture(new DsaException("no network"));
            }
            @Override public void close() { transportClosed.set(true); }
        };
        assertEquals("agent state: partition 99 of array 'A' out of range [0, 2)", assertThrows(DsaException.class,
                () -> NodeRuntime.restore(CONFIG, fits, recording)).getMessage());
        assertTrue(transportClosed.get(), "the new agent is closed: the old one stays authoritative");
    }
}
