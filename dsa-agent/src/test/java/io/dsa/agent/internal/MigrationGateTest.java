package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Node 0's gate: which global releases it holds, and how a held one goes out. */
@Timeout(10)
class MigrationGateTest {
    final MigrationGate gate = new MigrationGate(0, new NodeCounters("vm", 0, () -> 0, () -> 0, true));
    final List<String> sent = new ArrayList<>();

    Runnable release(long generation) { return () -> sent.add("release " + generation); }

    @Test
    void aDisarmedGateLetsEveryReleasePass() {
        gate.releaseGlobal(0, true, release(0));
        gate.releaseGlobal(1, false, release(1));
        assertEquals(List.of("release 0", "release 1"), sent);
    }

    @Test
    void anArmedGateHoldsTheFirstPlainReleaseReachingItsEpochAndReleasesItOnce() {
        CompletableFuture<Long> safePoint = gate.hold(3);
        gate.releaseGlobal(1, true, release(1));   // brings the workers to epoch 2: too early
        gate.releaseGlobal(2, false, release(2));  // epoch 3, but a collective
        assertFalse(safePoint.isDone());
        gate.releaseGlobal(3, true, release(3));
        assertEquals(List.of("release 1", "release 2"), sent);
        assertEquals(3L, safePoint.getNow(-1L));
        gate.release();
        gate.release();
        assertEquals(List.of("release 1", "release 2", "release 3"), sent, "sent once");
        gate.releaseGlobal(4, true, release(4));
        assertEquals("release 4", sent.get(3), "disarmed");
    }

    /** A node moves only between scopes: while one is open at node 0, the armed gate lets releases pass. */
    @Test
    void anArmedGateHoldsNoReleaseWhileAScopeIsOpen() {
        int[] open = {1};
        MigrationGate scoped = new MigrationGate(0, new NodeCounters("vm", 0, () -> 0, () -> 0, true), () -> open[0]);
        CompletableFuture<Long> safePoint = scoped.hold(0);
        scoped.releaseGlobal(1, true, release(1)); // a barrier inside the scope
        assertFalse(safePoint.isDone());
        open[0] = 0;                                // the scope's last worker at node 0 tore it down
        scoped.releaseGlobal(2, true, release(2)); // the scope's closing barrier
        assertEquals(List.of("release 1"), sent);
        assertEquals(2L, safePoint.getNow(-1L));
    }

    @Test
    void releaseAndHoldArmsTheNextEpochInTheSameStep() {
        CompletableFuture<Long> first = gate.hold(0);
        gate.releaseGlobal(5, true, release(5));
        assertEquals(5L, first.getNow(-1L));
        CompletableFuture<Long> second = gate.releaseAndHold(8);
        assertEquals(List.of("release 5"), sent);
        gate.releaseGlobal(6, true, release(6));
        gate.releaseGlobal(7, true, release(7));
        assertEquals(7L, second.getNow(-1L));
        assertEquals(List.of("release 5", "release 6"), sent);
    }

    @Test
    void releasingAGateThatHeldNothingCancelsItsFuture() {
        CompletableFuture<Long> safePoint = gate.hold(0);
        gate.release();
        assertTrue(safePoint.isCancelled());
        assertEquals(List.of(), sent);
    }

    @Test
    void onlyNode0HoldsAndOnlyOneHoldAtATime() {
        gate.hold(0);
        assertEquals("a migration is already under way (the gate at node 0 is armed)",
                assertThrows(DsaException.class, () -> gate.hold(0)).getMessage());
        assertEquals("only node 0 (the barrier root) can hold a global barrier, not node 2",
                assertThrows(DsaException.class, () -> new MigrationGate(2, new NodeCounters("vm", 2, () -> 0, () -> 0, true)).hold(0)).getMessage());
    }
}
