package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.agent.transport.Connection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Connection switching when node 1 of 3 moves, seen from node 2 (and node 0's registry), and from the restored agent. */
@Timeout(10)
class MoveSwitchTest {
    static final List<String> ADDRESSES = List.of("h0:5000", "h1:5001", "h2:5002");
    final RecordingNetwork network = new RecordingNetwork(2, 3);
    final JobLifecycle job = new JobLifecycle(2, network, text -> {});
    final Membership membership = new Membership(2, 3, 1, 5_000, network, job);
    final MoveSwitch moves = new MoveSwitch(2, 3, network, membership, null);
    final FakeConnection old = new FakeConnection(1);

    MoveSwitchTest() {
        membership.install(ADDRESSES);
        network.attach(1, old);
    }

    @Test
    void theNewAgentsConnectionIsHeldUntilTheCommitThenReplacesTheOldOneWhichIsRetired() {
        CompletableFuture<Connection> arrived = moves.expect(1);
        assertSame(arrived, moves.expect(1));
        FakeConnection fresh = new FakeConnection(1);
        assertFalse(moves.offer(new FakeConnection(0)), "node 0 is not moving");
        assertTrue(moves.offer(fresh));
        assertSame(fresh, arrived.getNow(null));
        assertSame(old, network.connection(1), "held aside until the commit");
        moves.commit(1, "h9:6001");
        assertSame(fresh, network.connection(1));
        assertFalse(old.isOpen());
        assertTrue(moves.isRetired(old));
        assertFalse(moves.isRetired(fresh));
        assertEquals("h9:6001", membership.address(1));
        assertTrue(moves.closedRetired(old), "its close is expected");
        assertFalse(moves.closedRetired(old));
        assertFalse(moves.offer(new FakeConnection(1)), "the move is over");
    }

    @Test
    void anAbandonedMoveClosesTheHeldConnectionAndKeepsTheOldOne() {
        moves.expect(1);
        FakeConnection fresh = new FakeConnection(1);
        moves.offer(fresh);
        moves.abandon(1);
        assertFalse(fresh.isOpen());
        assertTrue(moves.isRetired(fresh), "what it still carries is dropped");
        assertSame(old, network.connection(1));
        assertEquals("h1:5001", membership.address(1));
    }

    @Test
    void aMoveAbandonedBeforeTheNewAgentDialledEndsTheWaitWithNoConnection() {
        CompletableFuture<Connection> arrived = moves.expect(1);
        moves.abandon(1);
        assertNull(arrived.getNow(new FakeConnection(9)));
        assertFalse(moves.offer(new FakeConnection(1)));
    }

    @Test
    void aCommitWithoutTheNewAgentsConnectionIsRefused() {
        moves.expect(1);
        assertEquals("node 2 has no connection from the new agent of node 1",
                assertThrows(DsaException.class, () -> moves.commit(1, "h9:6001")).getMessage());
        assertSame(old, network.connection(1));
    }

    @Test
    void atNode0TheAddressRegistryFollowsTheCommit() {
        RecordingNetwork net0 = new RecordingNetwork(0, 3);
        MonitorRole monitor = new MonitorRole(net0, new MigrationGate(0, new NodeCounters("vm", 0, () -> 0, () -> 0, true)), 3, 1);
        monitor.bound("h0:5000");
        Membership m0 = new Membership(0, 3, 1, 5_000, net0, job);
        m0.install(ADDRESSES);
        MoveSwitch at0 = new MoveSwitch(0, 3, net0, m0, monitor);
        at0.expect(1);
        at0.offer(new FakeConnection(1));
        at0.commit(1, "h9:6001");
        assertEquals("h9:6001", monitor.addresses().get(1));
    }

    @Test
    void theRestoredAgentDialsEveryOtherNodeAndAttachesEachConnection() throws Exception {
        RecordingNetwork net1 = new RecordingNetwork(1, 3);
        Membership m1 = new Membership(1, 3, 1, 5_000, net1, job);
        m1.install(ADDRESSES);
        MoveSwitch restored = new MoveSwitch(1, 3, net1, m1, null);
        FakeDialer dialer = new FakeDialer();
        CompletableFuture<Void> connected = restored.connectToPeers(dialer);
        assertEquals(List.of("h0:5000", "h2:5002"), dialer.dialled());
        FakeConnection to0 = new FakeConnection(0);
        dialer.answer("h0:5000", to0);
        assertFalse(connected.isDone());
        FakeConnection to2 = new FakeConnection(2);
        net1.attach(2, to2);   // a higher node's connection is attached by onConnected before the dial completes
        dialer.answer("h2:5002", to2);
        connected.get(5, TimeUnit.SECONDS);
        assertSame(to0, net1.connection(0));
        assertSame(to2, net1.connection(2));
    }

    @Test
    void reachingTheWrongNodeFailsTheRestoredAgentsConnect() {
        RecordingNetwork net1 = new RecordingNetwork(1, 3);
        Membership m1 = new Membership(1, 3, 1, 5_000, net1, job);
        m1.install(ADDRESSES);
        FakeDialer dialer = new FakeDialer();
        CompletableFuture<Void> connected = new MoveSwitch(1, 3, net1, m1, null).connectToPeers(dialer);
        FakeConnection stranger = new FakeConnection(2);
        dialer.answer("h0:5000", stranger);
        dialer.answer("h2:5002", new FakeConnection(2));   // the result waits for every dial
        ExecutionException e = assertThrows(ExecutionException.class, () -> connected.get(5, TimeUnit.SECONDS));
        assertEquals("node 1 reached node 2 at h0:5000, expected node 0", e.getCause().getMessage());
        assertFalse(stranger.isOpen());
    }
}
