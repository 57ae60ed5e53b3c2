package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.ArraySpec;
import io.dsa.Distribution;
import io.dsa.ElementType;
import io.dsa.agent.wire.BarrierArriveMessage;
import io.dsa.agent.wire.JoinMessage;
import io.dsa.agent.wire.LockMessage;
import io.dsa.agent.wire.RegisterMessage;
import io.dsa.agent.wire.ReportMessage;
import io.dsa.agent.wire.StatusMessage;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Node 0's monitor role on a recording network, 3 nodes x 2 threads: each test delivers messages
 * and asserts the exact messages it sends (a send to all is one per node, node 0 last) and the
 * states reached.
 */
@Timeout(10)
class MonitorRoleTest {
    static final String ARRAY_PARAMS = "[0, 16, 16, 4, 4, 0, 0]";
    final RecordingNetwork network = new RecordingNetwork(0, 3);
    final MigrationGate gate = new MigrationGate(0, new NodeCounters("vm", 0, () -> 0, () -> 0, true));
    final MonitorRole monitor = new MonitorRole(network, gate, 3, 2);

    MonitorRoleTest() {
        monitor.bound("127.0.0.1:5000");
    }

    static List<String> toAll(String text) {
        return List.of("to 1: " + text, "to 2: " + text, "to 0: " + text);
    }

    static long[] params(int rows, int cols) {
        return Specs.toParams(ArraySpec.of("A", ElementType.DOUBLE, rows, cols, 4, 4, Distribution.BLOCK));
    }

    void joinAll() {
        assertNull(monitor.onJoin(1, new JoinMessage(1, "h1", 5001)));
        assertNull(monitor.onJoin(2, new JoinMessage(2, "h2", 5002)));
        network.take();
    }

    // ---- membership ---------------------------------------------------------------------------------

    @Test
    void theViewGoesToEveryNodeOnceTheLastNodeJoined() {
        assertNull(monitor.onJoin(1, new JoinMessage(1, "h1", 5001)));
        monitor.maybeSendView();
        assertEquals(List.of(), network.take(), "two of three nodes joined: no view yet");
        assertNull(monitor.onJoin(2, new JoinMessage(2, "h2", 5002)));
        assertEquals(toAll("View(2, [127.0.0.1:5000, h1:5001, h2:5002])"), network.take());
        monitor.maybeSendView();
        assertEquals(List.of(), network.take(), "the view is sent once");
    }

    @Test
    void joinsWithABadIdOrTwiceAreRefusedWithTheReason() {
        assertEquals("node id 3 out of range [1, 3)", monitor.onJoin(3, new JoinMessage(3, "h", 1)));
        assertEquals("node id 0 out of range [1, 3)", monitor.onJoin(0, new JoinMessage(0, "h", 1)));
        assertEquals("join as node 2 on a connection authenticated as node 1", monitor.onJoin(1, new JoinMessage(2, "h", 1)));
        assertNull(monitor.onJoin(1, new JoinMessage(1, "h1", 5001)));
        assertEquals("node 1 joined twice", monitor.onJoin(1, new JoinMessage(1, "h1", 5001)));
        assertEquals(List.of(), network.take());
    }

    @Test
    void aOneNodeVmSendsItsViewOnlyOnceNode0IsBound() {
        RecordingNetwork alone = new RecordingNetwork(0, 1);
        MonitorRole m = new MonitorRole(alone, new MigrationGate(0, new NodeCounters("vm", 0, () -> 0, () -> 0, true)), 1, 4);
        m.maybeSendView();
        assertEquals(List.of(), alone.take(), "no address of its own yet");
        m.bound("127.0.0.1:6000");
        m.maybeSendView();
        assertEquals(List.of("to 0: View(4, [127.0.0.1:6000])"), alone.take());
    }

    @Test
    void aMovedNodesAddressReplacesItsOldOneInTheRegistry() {
        joinAll();
        monitor.onMoved(2, "h9:6000");
        assertEquals(List.of("127.0.0.1:5000", "h1:5001", "h9:6000"), monitor.addresses());
        assertEquals(List.of(), network.take());
    }

    // ---- registry ---------------------------------------------------------------------------------------

    @Test
    void theFirstRegistrationDefinesAnArrayEverywhereLaterOnesFindIt() {
        monitor.onRegister(1, new RegisterMessage(5, RegisterMessage.ARRAY, "A", params(16, 16)));
        assertEquals(List.of(
                "to 0: Define(1, 1, 0, A, " + ARRAY_PARAMS + ")",
                "to 1: Define(1, 1, 0, A, " + ARRAY_PARAMS + ")",
                "to 2: Define(1, 1, 0, A, " + ARRAY_PARAMS + ")",
                "to 1: Registered(5, 1, 0, )"), network.take());
        monitor.onRegister(2, new RegisterMessage(9, RegisterMessage.ARRAY, "A", params(16, 16)));
        assertEquals(List.of("to 2: Registered(9, 1, 0, )"), network.take());
        monitor.onRegister(0, new RegisterMessage(3, RegisterMessage.ARRAY, "B", params(16, 16)));
        assertEquals("to 0: Registered(3, 2, 0, )", network.take().get(3), "the next array gets the next id");
    }

    @Test
    void eachKindHasItsOwnNamespaceAndVariablesAreHomedByIdModuloNodes() {
        monitor.onRegister(1, new RegisterMessage(1, RegisterMessage.VARIABLE, "A", new long[] {1, 42}));
        assertEquals(List.of("to 0: Define(2, 1, 1, A, [1, 42])", "to 1: Define(2, 1, 1, A, [1, 42])",
                "to 2: Define(2, 1, 1, A, [1, 42])", "to 1: Registered(1, 1, 1, )"), network.take());
        monitor.onRegister(1, new RegisterMessage(2, RegisterMessage.VARIABLE, "v", new long[] {1, 0}));
        assertEquals("to 1: Registered(2, 2, 2, )", network.take().get(3));
        monitor.onRegister(2, new RegisterMessage(3, RegisterMessage.BARRIER, "A", new long[] {4}));
        assertEquals(List.of("to 2: Registered(3, 1, 0, )"), network.take(), "barriers and locks are not defined at the nodes");
        monitor.onRegister(2, new RegisterMessage(4, RegisterMessage.LOCK, "A", new long[0]));
        assertEquals(List.of("to 2: Registered(4, 1, 0, )"), network.take());
    }

    /** Found by the monitor-messages fuzz target's checks: an unknown kind indexed an array, null params were cloned. */
    @Test
    void aRegistrationWithAnUnknownKindOrBadParametersIsRefusedWithTheReasonAndRegistersNothing() {
        monitor.onRegister(1, new RegisterMessage(1, 9, "x", new long[0]));
        monitor.onRegister(1, new RegisterMessage(2, RegisterMessage.ARRAY, "A", null));
        monitor.onRegister(1, new RegisterMessage(3, RegisterMessage.ARRAY, "A", new long[] {7, 16, 16, 4, 4, 0, 0}));
        monitor.onRegister(2, new RegisterMessage(4, RegisterMessage.BARRIER, "b", new long[] {7}));
        monitor.onRegister(2, new RegisterMessage(5, RegisterMessage.VARIABLE, "v", new long[] {1}));
        assertEquals(List.of("to 1: Registered(1, -1, -1, 'x' has object kind 9, expected 1 to 4)",
                "to 1: Registered(2, -1, -1, registration of kind 1 without parameters)",
                "to 1: Registered(3, -1, -1, element type 7 out of range [0, 3] for 'A')",
                "to 2: Registered(4, -1, -1, parties 7 out of range [1, 6] for 'b')",
                "to 2: Registered(5, -1, -1, shared variable params of 'v' have 1 values, expected 2)"), network.take());
        monitor.onRegister(1, new RegisterMessage(6, RegisterMessage.ARRAY, "A", params(16, 16)));
        assertTrue(network.take().contains("to 1: Registered(6, 1, 0, )"), "the refused registrations registered nothing");
    }

    @Test
    void aJoinFromAnAddressThatIsNotHostPortIsRefusedBeforeItReachesTheView() {
        assertEquals("node 1 joined from port 0 in 'h1:0' out of range [1, 65535]", monitor.onJoin(1, new JoinMessage(1, "h1", 0)));
        assertEquals("node 1 joined from address ':5001' is not host:port", monitor.onJoin(1, new JoinMessage(1, "", 5001)));
        assertNull(monitor.onJoin(1, new JoinMessage(1, "h1", 5001)), "the refused joins left node 1 free to join");
    }

    @Test
    void aRegistrationWithOtherParametersFailsNamingBoth() {
        monitor.onRegister(1, new RegisterMessage(1, RegisterMessage.ARRAY, "A", params(16, 16)));
        network.take();
        monitor.onRegister(2, new RegisterMessage(2, RegisterMessage.ARRAY, "A", params(16, 8)));
        assertEquals(List.of("to 2: Registered(2, -1, -1, array 'A' already exists as DOUBLE[16x16] partitions 4x4 BLOCK, "
                + "requested DOUBLE[16x8] partitions 4x4 BLOCK)"), network.take());
        monitor.onRegister(1, new RegisterMessage(3, RegisterMessage.VARIABLE, "v", new long[] {1, 0}));
        network.take();
        monitor.onRegister(1, new RegisterMessage(4, RegisterMessage.VARIABLE, "v", new long[] {3, 0}));
        assertEquals(List.of("to 1: Registered(4, -1, -1, shared variable 'v' already exists with type/initial value [1, 0], "
                + "requested [3, 0])"), network.take());
        monitor.onRegister(1, new RegisterMessage(5, RegisterMessage.BARRIER, "b", new long[] {2}));
        network.take();
        monitor.onRegister(1, new RegisterMessage(6, RegisterMessage.BARRIER, "b", new long[] {3}));
        assertEquals(List.of("to 1: Registered(6, -1, -1, barrier 'b' already exists with 2 parties, requested 3)"), network.take());
    }

    // ---- the global barrier (TREE: the monitor is the root) -------------------------------------------

    static BarrierArriveMessage tree(long gen, int node, long... values) {
        return new BarrierArriveMessage(MonitorRole.GLOBAL_BARRIER, gen, node, 2, values);
    }

    @Test
    void theGlobalReleaseCarriesEveryValueInThreadIdOrderWhateverTheArrivalOrder() {
        monitor.onArrive(2, tree(0, 2, 20, 21));
        monitor.onArrive(0, tree(0, 0, 0, 1));
        assertEquals(List.of(), network.take());
        monitor.onArrive(1, tree(0, 1, 10, 11));
        assertEquals(toAll("BarrierRelease(0, 0, [0, 1, 10, 11, 20, 21])"), network.take());
        // the next generation: plain
        for (int n = 0; n < 3; n++) monitor.onArrive(n, tree(1, n));
        assertEquals(toAll("BarrierRelease(0, 1, [])"), network.take());
    }

    @Test
    void theGlobalReleaseCarriesEveryNodesPayloadInNodeOrderAndIsNoSafePoint() {
        CompletableFuture<Long> safePoint = gate.hold(0);
        monitor.onArrive(2, new BarrierArriveMessage(0, 0, 2, 2, new long[0], new long[] {7, 8}));
        monitor.onArrive(0, new BarrierArriveMessage(0, 0, 0, 2, new long[0], new long[] {5}));
        monitor.onArrive(1, new BarrierArriveMessage(0, 0, 1, 2, new long[0]));
        assertEquals(toAll("BarrierRelease(0, 0, [], payload [1, 5, 0, 2, 7, 8])"), network.take(),
                "each node's payload as its length and its longs, node 0 first; a node without one gives length 0");
        assertFalse(safePoint.isDone(), "a round with payloads is no safe point");
        for (int n = 0; n < 3; n++) monitor.onArrive(n, tree(1, n));
        assertEquals(List.of(), network.take(), "the payloads are gone: the next plain round is held");
        gate.release();
        assertEquals(toAll("BarrierRelease(0, 1, [])"), network.take());
    }

    @Test
    void anArrivalAtAnotherGenerationOrTwiceFailsTheJob() {
        monitor.onArrive(1, tree(1, 1));
        assertEquals(toAll("Status(0, 3, node 1 arrived at generation 1 of barrier 0, expected 0)"), network.take());
        monitor.onArrive(2, tree(0, 2));
        monitor.onArrive(2, tree(0, 2));
        assertEquals(List.of(), network.take(), "only the first failure is broadcast");
    }

    @Test
    void aNodeArrivingTwiceAtOneGenerationIsAFailure() {
        monitor.onArrive(2, tree(0, 2));
        monitor.onArrive(2, tree(0, 2));
        assertEquals(toAll("Status(0, 3, node 2 arrived twice at global barrier generation 0)"), network.take());
    }

    @Test
    void someNodesWithValuesAndOthersPlainIsACollectiveMismatch() {
        monitor.onArrive(0, tree(0, 0, 1, 2));
        monitor.onArrive(1, tree(0, 1));
        monitor.onArrive(2, tree(0, 2, 5, 6));
        assertEquals(toAll("Status(0, 3, collective mismatch at global barrier generation 0: node 0 passed 1 value per thread, "
                + "node 1 called a plain barrier)"), network.take(), "no release");
    }

    @Test
    void anArrivalAtAnUnknownBarrierFailsTheJob() {
        monitor.onArrive(1, new BarrierArriveMessage(7, 0, 1, 1, new long[0]));
        assertEquals(toAll("Status(0, 3, arrival at unknown barrier 7 from node 1)"), network.take());
    }

    @Test
    void anArmedGateHoldsThePlainGlobalReleaseAndLetsACollectiveOnePass() {
        CompletableFuture<Long> safePoint = gate.hold(0);
        for (int n = 0; n < 3; n++) monitor.onArrive(n, tree(0, n, n, n));
        assertEquals(toAll("BarrierRelease(0, 0, [0, 0, 1, 1, 2, 2])"), network.take(), "a collective is no safe point");
        assertFalse(safePoint.isDone());
        for (int n = 0; n < 3; n++) monitor.onArrive(n, tree(1, n));
        assertEquals(List.of(), network.take(), "held");
        assertEquals(1L, safePoint.getNow(-1L));
        gate.release();
        assertEquals(toAll("BarrierRelease(0, 1, [])"), network.take());
    }

    // ---- group barriers ------------------------------------------------------------------------------------

    @Test
    void aGroupBarrierReleasesWhenItsPartiesArrivedFromAnyNodes() {
        monitor.onRegister(1, new RegisterMessage(1, RegisterMessage.BARRIER, "g", new long[] {3}));
        network.take();
        monitor.onArrive(1, new BarrierArriveMessage(1, 0, 1, 1, new long[0]));
        monitor.onArrive(1, new BarrierArriveMessage(1, 0, 1, 1, new long[0]));
        assertEquals(List.of(), network.take());
        monitor.onArrive(2, new BarrierArriveMessage(1, 0, 2, 1, new long[0]));
        assertEquals(toAll("BarrierRelease(1, 0, [])"), network.take());
        monitor.onArrive(2, new BarrierArriveMessage(1, 1, 2, 2, new long[0]));
        monitor.onArrive(0, new BarrierArriveMessage(1, 1, 0, 2, new long[0]));
        assertEquals(toAll("Status(0, 3, barrier 1 got 4 arrivals, it has 3 parties)"), network.take());
    }

    // ---- locks -----------------------------------------------------------------------------------------------

    @Test
    void aLockIsGrantedInRequestOrderAndACancelledRequestIsAcknowledged() {
        monitor.onRegister(1, new RegisterMessage(1, RegisterMessage.LOCK, "L", new long[0]));
        network.take();
        monitor.onLock(1, new LockMessage(1, LockMessage.ACQUIRE, 1, 3));
        assertEquals(List.of("to 1: Lock(1, 2, 1, 3)"), network.take(), "granted at once");
        monitor.onLock(2, new LockMessage(1, LockMessage.ACQUIRE, 2, 4));
        monitor.onLock(0, new LockMessage(1, LockMessage.ACQUIRE, 0, 8));
        assertEquals(List.of(), network.take(), "queued");
        monitor.onLock(2, new LockMessage(1, LockMessage.CANCEL, 2, 4));
        assertEquals(List.of("to 2: Lock(1, 5, 2, 4)"), network.take(), "withdrawn while queued: CANCEL_ACK");
        monitor.onLock(1, new LockMessage(1, LockMessage.RELEASE, 1, 0));
        assertEquals(List.of("to 0: Lock(1, 2, 0, 8)"), network.take(), "the next in line gets it");
        monitor.onLock(0, new LockMessage(1, LockMessage.CANCEL, 0, 8));
        assertEquals(List.of(), network.take(), "a cancel after the grant is answered by the grant");
        monitor.onLock(1, new LockMessage(1, LockMessage.RELEASE, 1, 0));
        assertEquals(toAll("Status(0, 3, node 1 released lock 1 held by node 0)"), network.take());
    }

    @Test
    void aMessageForAnUnknownLockFailsTheJob() {
        monitor.onLock(2, new LockMessage(9, LockMessage.ACQUIRE, 2, 1));
        assertEquals(toAll("Status(0, 3, lock message for unknown lock 9 from node 2)"), network.take());
    }

    // ---- the job's lifecycle ---------------------------------------------------------------------------------

    @Test
    void theFirstFailureIsBroadcastOnceAndFinishedCarriesItWhenAllAreDone() {
        monitor.onStatus(2, new StatusMessage(2, StatusMessage.FAILED, "node 2 worker 4 failed: boom"));
        assertEquals(toAll("Status(0, 3, node 2 worker 4 failed: boom)"), network.take());
        monitor.onStatus(1, new StatusMessage(1, StatusMessage.FAILED, "later"));
        assertEquals(List.of(), network.take());
        monitor.onStatus(0, new StatusMessage(0, StatusMessage.DONE, ""));
        monitor.onStatus(2, new StatusMessage(2, StatusMessage.DONE, ""));
        monitor.onStatus(2, new StatusMessage(2, StatusMessage.DONE, ""));
        assertEquals(List.of(), network.take(), "node 1 is not done");
        monitor.onStatus(1, new StatusMessage(1, StatusMessage.DONE, ""));
        assertEquals(toAll("Status(0, 4, node 2 worker 4 failed: boom)"), network.take());
    }

    @Test
    void whenEveryNodeIsDoneWithoutFailureFinishedIsEmpty() {
        for (int n = 0; n < 3; n++) monitor.onStatus(n, new StatusMessage(n, StatusMessage.DONE, ""));
        assertEquals(toAll("Status(0, 4, )"), network.take());
    }

    @Test
    void aNodeLostBeforeItIsDoneFailsTheJobNamingWhereItRanAndCountsAsDone() {
        joinAll();
        monitor.onStatus(1, new StatusMessage(1, StatusMessage.DONE, ""));
        monitor.onNodeLost(1, "connection reset");
        assertEquals(List.of(), network.take(), "node 1 was done and homes nothing: its connection may close");
        monitor.onNodeLost(2, "connection reset");
        assertEquals(toAll("Status(0, 3, lost node 2 at h2:5002: connection reset)"), network.take());
        monitor.onStatus(0, new StatusMessage(0, StatusMessage.DONE, ""));
        assertEquals(toAll("Status(0, 4, lost node 2 at h2:5002: connection reset)"), network.take());
        monitor.onNodeLost(1, "closed");
        assertEquals(List.of(), network.take(), "after the end a close is no failure");
    }

    /** Before: a node lost after its DONE was ignored, and the nodes still reading its partitions hung until their timeout. */
    @Test
    void aNodeLostAfterItIsDoneStillFailsTheJobWhenItHomesWhatOthersMayNeed() {
        joinAll();
        monitor.onRegister(1, new RegisterMessage(5, RegisterMessage.ARRAY, "A", params(16, 16)));
        monitor.onRegister(1, new RegisterMessage(6, RegisterMessage.VARIABLE, "v", new long[] {1, 0}));
        network.take();
        monitor.onStatus(1, new StatusMessage(1, StatusMessage.DONE, ""));
        monitor.onNodeLost(1, "nothing heard from node 1 for 3000 ms");
        assertEquals(toAll("Status(0, 3, lost node 1 at h1:5001 after it finished its own work (it homed array 'A'"
                + " partitions [6, 7, 8, 9, 10] of 16; variable 'v'): nothing heard from node 1 for 3000 ms)"), network.take());
    }

    @Test
    void aNodeLostBeforeItJoinedIsNamedSo() {
        monitor.onNodeLost(2, "connection reset");
        assertEquals(toAll("Status(0, 3, lost node 2 before it joined: connection reset)"), network.take());
    }

    @Test
    void whatALostNodeHomedListsAtMostSixteenPartitionsPerArrayAndCountsTheRest() {
        io.dsa.ArrayLayout layout = io.dsa.ArrayLayout.of(
                ArraySpec.oneDimensional("x", ElementType.INT, 100, 1, Distribution.BLOCK_CYCLIC), 2, 1);
        assertEquals("array 'x' partitions [1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31, ... 34 more] of 100",
                LostNode.homed(1, List.of(layout), List.of()));
        assertEquals("", LostNode.homed(2, List.of(layout), List.of()));
    }

    @Test
    void reportLinesAreKeptInArrivalOrderWithTheirNode() {
        monitor.onReport(new ReportMessage(2, "sum = 4"));
        monitor.onReport(new ReportMessage(0, "time 3 ms"));
        assertEquals(List.of("node 2: sum = 4", "node 0: time 3 ms"), monitor.lines());
        assertTrue(network.take().isEmpty());
    }
}
