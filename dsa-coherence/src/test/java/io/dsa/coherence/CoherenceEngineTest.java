package io.dsa.coherence;

import io.dsa.CacheState;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One engine per node on a hand-driven wire: each test delivers messages one by one and asserts the
 * exact messages emitted ("OP src->dst req r", "+data" when data is attached), the store calls, and
 * the states reached. Partition 0 of array {@value #A} is homed at node 0; nodes 1..3 are caches.
 */
class CoherenceEngineTest {
    static final int A = 7;
    static final int P = 0;
    static final int NODES = 4;
    static final int BYTES = 16;
    static final HomeResolver HOMES = (arrayId, partition) -> partition % NODES;

    final List<CoherenceMessage> wire = new ArrayList<>();
    final CoherenceEngine[] engine = new CoherenceEngine[NODES];
    final RecordingPartitionStore[] store = new RecordingPartitionStore[NODES];

    @BeforeEach
    void setUp() {
        for (int n = 0; n < NODES; n++) {
            store[n] = new RecordingPartitionStore(n, HOMES, BYTES);
            engine[n] = new CoherenceEngine(n, NODES, HOMES, store[n], wire::add);
        }
    }

    // ------------------------------------------------------------------ read misses

    @Test
    void readMissAtHomeOnlyTakesTwoMessages() {
        store[0].writeInt(A, P, 1, 42);
        assertFalse(engine[1].request(A, P, Access.READ));
        CoherenceMessage getS = single("GET_S 1->0 req 1");
        deliver(getS);
        assertEquals(List.of("setAccess 7:0 READ", "snapshot 7:0"), store[0].takeCalls(), "lower access before the snapshot");
        CoherenceMessage dataS = single("DATA_S 0->1 req 1 +data");
        assertEquals(DirectoryState.SHARED, engine[0].directoryState(A, P));
        assertArrayEquals(new int[] {1}, engine[0].sharers(A, P));
        assertEquals(Access.READ, engine[0].access(A, P));
        deliver(dataS);
        assertEquals(List.of("install 7:0 READ"), store[1].takeCalls());
        assertEquals(42, store[1].readInt(A, P, 1));
        assertEquals(Access.READ, engine[1].access(A, P));
        assertEquals(CacheState.SHARED, engine[1].cacheState(A, P));
        assertEquals(Access.NONE, engine[1].pendingRequest(A, P));
        assertTrue(engine[1].request(A, P, Access.READ));
        assertTrue(wire.isEmpty());
        // a second reader is served from the home memory: 2 messages again
        assertFalse(engine[2].request(A, P, Access.READ));
        deliver(single("GET_S 2->0 req 2"));
        deliver(single("DATA_S 0->2 req 2 +data"));
        assertArrayEquals(new int[] {1, 2}, engine[0].sharers(A, P));
    }

    @Test
    void readMissWithThirdNodeOwnerIsForwardedInFourMessages() {
        makeOwner(1);
        store[1].writeInt(A, P, 2, 99);
        assertFalse(engine[2].request(A, P, Access.READ));
        deliver(single("GET_S 2->0 req 2"));
        deliver(single("FWD_GET_S 0->1 req 2"));
        assertTrue(engine[0].busy(A, P));
        assertEquals(List.of("setAccess 7:0 READ", "snapshot 7:0"), store[1].takeCalls(), "downgrade before the snapshot");
        assertEquals(Access.READ, engine[1].access(A, P));
        CoherenceMessage ownerData = single("OWNER_DATA 1->0 req 2 +data");
        deliver(ownerData);
        assertEquals(List.of("install 7:0 READ"), store[0].takeCalls());
        assertEquals(99, store[0].readInt(A, P, 2), "home memory refreshed with the owner's data");
        CoherenceMessage dataS = single("DATA_S 0->2 req 2 +data");
        assertFalse(store[0].owns(dataS.data()), "the requester must get its own copy, not the home memory");
        deliver(dataS);
        assertEquals(99, store[2].readInt(A, P, 2));
        assertEquals(DirectoryState.SHARED, engine[0].directoryState(A, P));
        assertArrayEquals(new int[] {1, 2}, engine[0].sharers(A, P));
        assertFalse(engine[0].busy(A, P));
        assertEquals(Access.READ, engine[0].access(A, P));
        assertEquals(Access.READ, engine[2].access(A, P));
    }

    // ------------------------------------------------------------------ write misses

    @Test
    void writeMissWithTwoSharersAwaitsBothAcksBeforeDataM() {
        makeSharer(1);
        makeSharer(2);
        store[0].writeInt(A, P, 0, 5);
        assertFalse(engine[3].request(A, P, Access.READ_WRITE));
        deliver(single("GET_M 3->0 req 3"));
        List<CoherenceMessage> invs = take("INV 0->1 req 3", "INV 0->2 req 3");
        assertEquals(Access.NONE, engine[0].access(A, P));
        assertTrue(engine[0].busy(A, P));
        deliver(invs.get(0));
        assertEquals(List.of("setAccess 7:0 NONE"), store[1].takeCalls());
        deliver(single("INV_ACK 1->0 req 3"));
        assertTrue(wire.isEmpty(), "no grant before every ack");
        assertTrue(engine[0].busy(A, P));
        deliver(invs.get(1));
        deliver(single("INV_ACK 2->0 req 3"));
        CoherenceMessage dataM = single("DATA_M 0->3 req 3 +data");
        deliver(dataM);
        assertEquals(5, store[3].readInt(A, P, 0));
        assertEquals(DirectoryState.EXCLUSIVE, engine[0].directoryState(A, P));
        assertEquals(3, engine[0].owner(A, P));
        assertArrayEquals(new int[0], engine[0].sharers(A, P));
        assertEquals(Access.READ_WRITE, engine[3].access(A, P));
        assertEquals(Access.NONE, engine[1].access(A, P));
        assertEquals(Access.NONE, engine[2].access(A, P));
        assertEquals(Access.NONE, engine[0].access(A, P));
    }

    @Test
    void writeMissWithRemoteOwnerIsForwardedInFourMessages() {
        makeOwner(1);
        store[1].writeInt(A, P, 3, 77);
        assertFalse(engine[2].request(A, P, Access.READ_WRITE));
        deliver(single("GET_M 2->0 req 2"));
        deliver(single("FWD_GET_M 0->1 req 2"));
        assertEquals(List.of("setAccess 7:0 NONE", "snapshot 7:0"), store[1].takeCalls());
        deliver(single("OWNER_RELEASE 1->0 req 2 +data"));
        assertEquals(List.of(), store[0].takeCalls(), "the home memory is bypassed");
        deliver(single("DATA_M 0->2 req 2 +data"));
        assertEquals(77, store[2].readInt(A, P, 3));
        assertEquals(2, engine[0].owner(A, P));
        assertEquals(Access.NONE, engine[1].access(A, P));
        assertEquals(Access.NONE, engine[0].access(A, P));
    }

    @Test
    void upgradeBySoleSharerNeedsNoData() {
        makeSharer(1);
        assertFalse(engine[1].request(A, P, Access.READ_WRITE));
        deliver(single("GET_M 1->0 req 1"));
        deliver(single("DATA_M 0->1 req 1"));
        assertEquals(List.of("setAccess 7:0 READ_WRITE"), store[1].takeCalls(), "the shared copy is kept");
        assertEquals(Access.READ_WRITE, engine[1].access(A, P));
        assertEquals(1, engine[0].owner(A, P));
    }

    @Test
    void upgradeWithOtherSharersInvalidatesThemAndSendsNoData() {
        makeSharer(1);
        makeSharer(2);
        assertFalse(engine[1].request(A, P, Access.READ_WRITE));
        deliver(single("GET_M 1->0 req 1"));
        deliver(single("INV 0->2 req 1"));
        deliver(single("INV_ACK 2->0 req 1"));
        deliver(single("DATA_M 0->1 req 1"));
        assertEquals(Access.READ_WRITE, engine[1].access(A, P));
    }

    // ------------------------------------------------------------------ coalescing

    @Test
    void concurrentMissesOfOneNodeSendOneRequest() {
        assertFalse(engine[1].request(A, P, Access.READ));
        assertFalse(engine[1].request(A, P, Access.READ));
        CoherenceMessage getS = single("GET_S 1->0 req 1");
        assertEquals(Access.READ, engine[1].pendingRequest(A, P));
        assertFalse(engine[2].request(A, P, Access.READ_WRITE));
        assertFalse(engine[2].request(A, P, Access.READ), "a pending write covers reads");
        assertFalse(engine[2].request(A, P, Access.READ_WRITE));
        CoherenceMessage getM = single("GET_M 2->0 req 2");
        deliver(getS);
        deliver(single("DATA_S 0->1 req 1 +data"));
        deliver(getM);
        deliver(single("INV 0->1 req 2"));
        deliver(single("INV_ACK 1->0 req 2"));
        deliver(single("DATA_M 0->2 req 2 +data"));
        assertTrue(engine[2].request(A, P, Access.READ));
        assertTrue(engine[2].quiescent());
    }

    @Test
    void concurrentMissesAtTheHomeSendOneForward() {
        makeOwner(1);
        assertFalse(engine[0].request(A, P, Access.READ));
        assertFalse(engine[0].request(A, P, Access.READ));
        single("FWD_GET_S 0->1 req 0");
        assertEquals(Access.READ, engine[0].pendingRequest(A, P));
    }

    @Test
    void writeWantedDuringPendingReadFollowsTheSharedCopy() {
        assertFalse(engine[1].request(A, P, Access.READ));
        CoherenceMessage getS = single("GET_S 1->0 req 1");
        assertFalse(engine[1].request(A, P, Access.READ_WRITE));
        assertTrue(wire.isEmpty(), "no second request while the read is under way");
        assertTrue(engine[1].wantsWrite(A, P));
        deliver(getS);
        deliver(single("DATA_S 0->1 req 1 +data"));
        assertEquals(Access.READ, engine[1].access(A, P), "readers may proceed on the shared copy");
        assertEquals(Access.READ_WRITE, engine[1].pendingRequest(A, P));
        assertFalse(engine[1].wantsWrite(A, P));
        deliver(single("GET_M 1->0 req 1"));
        deliver(single("DATA_M 0->1 req 1"));
        assertEquals(Access.READ_WRITE, engine[1].access(A, P));
    }

    // ------------------------------------------------------------------ serialisation at the home

    @Test
    void requestsQueuedWhileBusyAreServedInOrder() {
        makeOwner(1);
        engine[2].request(A, P, Access.READ);
        engine[3].request(A, P, Access.READ_WRITE);
        List<CoherenceMessage> gets = take("GET_S 2->0 req 2", "GET_M 3->0 req 3");
        deliver(gets.get(0));
        CoherenceMessage fwd = single("FWD_GET_S 0->1 req 2");
        deliver(gets.get(1));
        assertTrue(wire.isEmpty(), "GET_M waits behind the forward");
        assertFalse(engine[0].request(A, P, Access.READ));
        assertTrue(wire.isEmpty(), "the home's own read waits too");
        assertEquals(2, engine[0].queuedRequests(A, P));
        deliver(fwd);
        deliver(single("OWNER_DATA 1->0 req 2 +data"));
        // 2's read is answered, then 3's write starts invalidating both sharers; the home's read waits
        List<CoherenceMessage> next = take("DATA_S 0->2 req 2 +data", "INV 0->1 req 3", "INV 0->2 req 3");
        assertEquals(1, engine[0].queuedRequests(A, P));
        deliver(next.get(0));
        deliver(next.get(1));
        deliver(next.get(2));
        List<CoherenceMessage> acks = take("INV_ACK 1->0 req 3", "INV_ACK 2->0 req 3");
        deliver(acks.get(0));
        deliver(acks.get(1));
        List<CoherenceMessage> grant = take("DATA_M 0->3 req 3 +data", "FWD_GET_S 0->3 req 0");
        deliver(grant.get(0));
        deliver(grant.get(1));
        deliver(single("OWNER_DATA 3->0 req 0 +data"));
        assertTrue(wire.isEmpty());
        assertEquals(Access.READ, engine[0].access(A, P));
        assertArrayEquals(new int[] {3}, engine[0].sharers(A, P));
        assertTrue(engine[0].quiescent());
    }

    @Test
    void queuedHomeReadSatisfiedWhenDequeuedCompletesWithoutMessages() {
        makeOwner(1);
        engine[2].request(A, P, Access.READ);
        deliver(single("GET_S 2->0 req 2"));
        CoherenceMessage fwd = single("FWD_GET_S 0->1 req 2");
        assertFalse(engine[0].request(A, P, Access.READ));
        assertEquals(1, engine[0].queuedRequests(A, P));
        deliver(fwd);
        deliver(single("OWNER_DATA 1->0 req 2 +data"));
        single("DATA_S 0->2 req 2 +data");
        assertEquals(Access.NONE, engine[0].pendingRequest(A, P));
        assertEquals(0, engine[0].queuedRequests(A, P));
        assertTrue(engine[0].request(A, P, Access.READ));
    }

    // ------------------------------------------------------------------ the home's own accesses

    @Test
    void homeLocalReadWithRemoteOwnerTakesTwoMessages() {
        makeOwner(1);
        store[1].writeInt(A, P, 0, 11);
        assertFalse(engine[0].request(A, P, Access.READ));
        deliver(single("FWD_GET_S 0->1 req 0"));
        deliver(single("OWNER_DATA 1->0 req 0 +data"));
        assertTrue(wire.isEmpty());
        assertEquals(List.of("install 7:0 READ"), store[0].takeCalls());
        assertEquals(11, store[0].readInt(A, P, 0));
        assertEquals(DirectoryState.SHARED, engine[0].directoryState(A, P));
        assertArrayEquals(new int[] {1}, engine[0].sharers(A, P));
        assertEquals(Access.READ, engine[0].access(A, P));
        assertEquals(Access.READ, engine[1].access(A, P));
    }

    @Test
    void homeLocalWriteWithRemoteOwnerTakesTwoMessages() {
        makeOwner(1);
        store[1].writeInt(A, P, 0, 12);
        assertFalse(engine[0].request(A, P, Access.READ_WRITE));
        deliver(single("FWD_GET_M 0->1 req 0"));
        deliver(single("OWNER_RELEASE 1->0 req 0 +data"));
        assertTrue(wire.isEmpty());
        assertEquals(List.of("install 7:0 READ_WRITE"), store[0].takeCalls());
        assertEquals(12, store[0].readInt(A, P, 0));
        assertEquals(DirectoryState.HOME, engine[0].directoryState(A, P));
        assertEquals(-1, engine[0].owner(A, P));
        assertEquals(Access.READ_WRITE, engine[0].access(A, P));
        assertEquals(Access.NONE, engine[1].access(A, P));
    }

    @Test
    void homeLocalWriteInvalidatesSharersAndKeepsReadingMeanwhile() {
        makeSharer(1);
        makeSharer(2);
        assertFalse(engine[0].request(A, P, Access.READ_WRITE));
        List<CoherenceMessage> invs = take("INV 0->1 req 0", "INV 0->2 req 0");
        assertTrue(engine[0].request(A, P, Access.READ), "home reads hit until the write is granted");
        deliver(invs.get(0));
        deliver(invs.get(1));
        List<CoherenceMessage> acks = take("INV_ACK 1->0 req 0", "INV_ACK 2->0 req 0");
        deliver(acks.get(0));
        assertEquals(Access.READ, engine[0].access(A, P));
        store[0].takeCalls();
        deliver(acks.get(1));
        assertEquals(List.of("setAccess 7:0 READ_WRITE"), store[0].takeCalls());
        assertEquals(DirectoryState.HOME, engine[0].directoryState(A, P));
        assertTrue(engine[0].request(A, P, Access.READ_WRITE));
    }

    @Test
    void homeWriteWantedDuringItsPendingReadRunsNext() {
        makeOwner(1);
        assertFalse(engine[0].request(A, P, Access.READ));
        CoherenceMessage fwd = single("FWD_GET_S 0->1 req 0");
        assertFalse(engine[0].request(A, P, Access.READ_WRITE));
        assertTrue(engine[0].wantsWrite(A, P));
        assertTrue(wire.isEmpty());
        deliver(fwd);
        deliver(single("OWNER_DATA 1->0 req 0 +data"));
        assertEquals(Access.READ, engine[0].access(A, P));
        deliver(single("INV 0->1 req 0"));
        deliver(single("INV_ACK 1->0 req 0"));
        assertEquals(Access.READ_WRITE, engine[0].access(A, P));
        assertTrue(engine[0].quiescent());
    }

    // ------------------------------------------------------------------ races

    @Test
    void invalidationCrossingAnUpgradeTurnsItIntoAWriteMissWithData() {
        makeSharer(1);
        makeSharer(2);
        assertFalse(engine[1].request(A, P, Access.READ_WRITE));
        assertFalse(engine[2].request(A, P, Access.READ_WRITE));
        List<CoherenceMessage> gets = take("GET_M 1->0 req 1", "GET_M 2->0 req 2");
        deliver(gets.get(1));                          // 2's upgrade wins the home
        deliver(single("INV 0->1 req 2"));             // crosses 1's GET_M on the wire
        assertEquals(Access.NONE, engine[1].access(A, P));
        assertEquals(Access.READ_WRITE, engine[1].pendingRequest(A, P), "the upgrade stays pending as a write miss");
        deliver(single("INV_ACK 1->0 req 2"));
        CoherenceMessage upgrade = single("DATA_M 0->2 req 2");
        deliver(gets.get(0));                          // 1's GET_M, now from a non-sharer
        CoherenceMessage fwd = single("FWD_GET_M 0->2 req 1");
        deliver(upgrade);                              // FIFO 0->2: grant before forward
        store[2].writeInt(A, P, 0, 31);
        deliver(fwd);
        deliver(single("OWNER_RELEASE 2->0 req 1 +data"));
        deliver(single("DATA_M 0->1 req 1 +data"));
        assertEquals(31, store[1].readInt(A, P, 0));
        assertEquals(Access.READ_WRITE, engine[1].access(A, P));
        assertEquals(Access.NONE, engine[2].access(A, P));
        assertEquals(1, engine[0].owner(A, P));
    }

    @Test
    void ownerReleasingThenRequestingAgainIsServedAfterItsRelease() {
        makeOwner(1);
        engine[2].request(A, P, Access.READ_WRITE);
        deliver(single("GET_M 2->0 req 2"));
        deliver(single("FWD_GET_M 0->1 req 2"));
        CoherenceMessage release = single("OWNER_RELEASE 1->0 req 2 +data");
        assertFalse(engine[1].request(A, P, Access.READ));
        CoherenceMessage getS = single("GET_S 1->0 req 1");
        deliver(release);                              // FIFO 1->0: release before the new request
        CoherenceMessage dataM = single("DATA_M 0->2 req 2 +data");
        deliver(getS);
        CoherenceMessage fwd = single("FWD_GET_S 0->2 req 1");
        deliver(dataM);
        deliver(fwd);
        deliver(single("OWNER_DATA 2->0 req 1 +data"));
        deliver(single("DATA_S 0->1 req 1 +data"));
        assertArrayEquals(new int[] {1, 2}, engine[0].sharers(A, P));
    }

    // ------------------------------------------------------------------ impossible messages

    @Test
    void unexpectedMessagesThrowWithTheEntryState() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> engine[1].onMessage(new CoherenceMessage(CoherenceOp.DATA_S, A, P, 0, 1, 1, new byte[BYTES])));
        assertTrue(e.getMessage().contains("DATA_S") && e.getMessage().contains("INVALID"), e.getMessage());
        e = assertThrows(IllegalStateException.class,
                () -> engine[0].onMessage(new CoherenceMessage(CoherenceOp.INV_ACK, A, P, 2, 0, 3, null)));
        assertTrue(e.getMessage().contains("INV_ACK") && e.getMessage().contains("HOME"), e.getMessage());
        assertThrows(IllegalStateException.class,
                () -> engine[1].onMessage(new CoherenceMessage(CoherenceOp.GET_S, A, P, 2, 1, 2, null)), "not the home");
        assertThrows(IllegalStateException.class,
                () -> engine[1].onMessage(new CoherenceMessage(CoherenceOp.FWD_GET_M, A, P, 0, 1, 2, null)), "not the owner");
        assertThrows(IllegalStateException.class,
                () -> engine[1].onMessage(new CoherenceMessage(CoherenceOp.INV, A, P, 0, 2, 2, null)), "addressed elsewhere");
        makeSharer(1);
        assertThrows(IllegalStateException.class,
                () -> engine[0].onMessage(new CoherenceMessage(CoherenceOp.GET_S, A, P, 1, 0, 1, null)), "duplicate GET_S");
    }

    @Test
    void partitionsAreIndependentAcrossArraysAndIndices() {
        makeOwner(1);
        assertEquals(Access.NONE, engine[1].access(A + 1, P), "another array");
        assertEquals(Access.READ_WRITE, engine[0].access(A + 1, P));
        assertEquals(Access.READ_WRITE, engine[1].access(A, 1), "partition 1 is homed at node 1");
        assertFalse(engine[0].request(A, 1, Access.READ));
        single("GET_S 0->1 req 0");
    }

    // ------------------------------------------------------------------ pushes

    @Test
    void pushToANodeTheHomeInvalidatedTakesTwoMessagesAndItsNextReadHits() {
        makeSharer(1);
        assertFalse(engine[0].request(A, P, Access.READ_WRITE));   // the home writes: node 1 is invalidated
        deliver(single("INV 0->1 req 0"));
        deliver(single("INV_ACK 1->0 req 0"));
        store[0].writeInt(A, P, 1, 77);
        clearCalls();
        assertTrue(engine[0].canPush(A, P, 1));
        assertEquals(1, engine[0].push(A, P, 1));
        assertEquals(List.of("setAccess 7:0 READ", "snapshot 7:0"), store[0].takeCalls(), "lower access before the snapshot");
        CoherenceMessage push = single("PUSH_S 0->1 req 1 +data");
        assertEquals(DirectoryState.SHARED, engine[0].directoryState(A, P));
        assertArrayEquals(new int[] {1}, engine[0].sharers(A, P));
        assertTrue(engine[0].busy(A, P), "the push is a transaction until its ack");
        assertFalse(engine[0].canPush(A, P, 2), "no second push while one is under way");
        deliver(push);
        assertEquals(List.of("install 7:0 READ"), store[1].takeCalls());
        assertEquals(77, store[1].readInt(A, P, 1));
        assertEquals(CacheState.SHARED, engine[1].cacheState(A, P));
        deliver(single("PUSH_ACK 1->0 req 1"));
        assertFalse(engine[0].busy(A, P));
        assertTrue(engine[1].request(A, P, Access.READ), "the pushed copy is a hit");
        assertTrue(wire.isEmpty());
        assertTrue(engine[0].quiescent() && engine[1].quiescent());
    }

    @Test
    void aPushToSeveralNodesAwaitsEveryAckAndLeavesOutTheSharers() {
        makeSharer(2);
        assertEquals(2, engine[0].push(A, P, 1, 2, 3));
        List<CoherenceMessage> pushes = take("PUSH_S 0->1 req 1 +data", "PUSH_S 0->3 req 3 +data");
        assertNotSame(pushes.get(0).data(), pushes.get(1).data(), "each node installs its own copy");
        assertArrayEquals(new int[] {1, 2, 3}, engine[0].sharers(A, P));
        deliver(pushes.get(1));
        deliver(single("PUSH_ACK 3->0 req 3"));
        assertTrue(engine[0].busy(A, P), "node 1's ack is still out");
        assertFalse(engine[1].request(A, P, Access.READ_WRITE));
        deliver(single("GET_M 1->0 req 1"));
        assertEquals(1, engine[0].queuedRequests(A, P));
        deliver(pushes.get(0));
        deliver(single("PUSH_ACK 1->0 req 1"));
        take("INV 0->2 req 1", "INV 0->3 req 1");   // node 1's upgrade invalidates the other sharers
    }

    @Test
    void aReadRequestThatCrossesAPushIsAnsweredByThePush() {
        assertTrue(engine[0].request(A, P, Access.READ_WRITE));    // the entry exists, in HOME
        assertFalse(engine[1].request(A, P, Access.READ));
        CoherenceMessage getS = single("GET_S 1->0 req 1");
        assertEquals(1, engine[0].push(A, P, 1));                        // before the GET_S arrives
        CoherenceMessage push = single("PUSH_S 0->1 req 1 +data");
        deliver(getS);
        assertTrue(wire.isEmpty(), "the crossing GET_S is dropped: the push answers it");
        assertEquals(0, engine[0].queuedRequests(A, P));
        deliver(push);
        assertEquals(Access.NONE, engine[1].pendingRequest(A, P), "the read under way is answered");
        deliver(single("PUSH_ACK 1->0 req 1"));
        assertTrue(wire.isEmpty());
        assertArrayEquals(new int[] {1}, engine[0].sharers(A, P));
        assertTrue(engine[0].quiescent() && engine[1].quiescent());
    }

    @Test
    void aWriteRequestThatCrossesAPushBecomesAnUpgrade() {
        assertTrue(engine[0].request(A, P, Access.READ_WRITE));
        assertFalse(engine[1].request(A, P, Access.READ_WRITE));
        CoherenceMessage getM = single("GET_M 1->0 req 1");
        assertEquals(1, engine[0].push(A, P, 1));
        CoherenceMessage push = single("PUSH_S 0->1 req 1 +data");
        deliver(getM);
        assertEquals(1, engine[0].queuedRequests(A, P), "queued behind the push");
        deliver(push);
        assertEquals(Access.READ, engine[1].access(A, P));
        assertEquals(Access.READ_WRITE, engine[1].pendingRequest(A, P), "a push grants reads only: the write stays under way");
        deliver(single("PUSH_ACK 1->0 req 1"));
        deliver(single("DATA_M 0->1 req 1"));   // an upgrade: no data
        assertEquals(Access.READ_WRITE, engine[1].access(A, P));
        assertEquals(1, engine[0].owner(A, P));
        assertTrue(engine[0].quiescent() && engine[1].quiescent());
    }

    @Test
    void nothingIsPushedWhileTheEntryIsBusyOwnedElsewhereOrToASharer() {
        assertFalse(engine[0].canPush(A, P, 1), "an entry never used");
        makeSharer(1);
        assertEquals(0, engine[0].push(A, P, 1), "node 1 is a sharer");
        assertFalse(engine[2].request(A, P, Access.READ_WRITE));
        deliver(single("GET_M 2->0 req 2"));
        assertEquals(0, engine[0].push(A, P, 3), "an invalidation is under way");
        deliver(single("INV 0->1 req 2"));
        deliver(single("INV_ACK 1->0 req 2"));
        deliver(single("DATA_M 0->2 req 2 +data"));
        assertEquals(0, engine[0].push(A, P, 1), "node 2 owns it: the home memory is stale");
        assertTrue(wire.isEmpty());
        assertThrows(IllegalArgumentException.class, () -> engine[1].push(A, P, 2), "not the home");
        IllegalArgumentException self = assertThrows(IllegalArgumentException.class, () -> engine[0].push(A, P, 0));
        assertTrue(self.getMessage().contains("push target 0 out of range [0, 4) or the home 0"), self.getMessage());
        assertThrows(IllegalArgumentException.class, () -> engine[0].canPush(A, P, NODES));
    }

    @Test
    void aNodeForgottenWhileAPushToItIsUnderWayLeavesTheEntryIdle() {
        assertTrue(engine[0].request(A, P, Access.READ_WRITE));
        assertEquals(1, engine[0].push(A, P, 1));
        single("PUSH_S 0->1 req 1 +data");
        engine[0].forgetNode(1);
        assertFalse(engine[0].busy(A, P));
        assertEquals(DirectoryState.HOME, engine[0].directoryState(A, P));
        assertEquals(Access.READ_WRITE, engine[0].access(A, P));
    }

    // ------------------------------------------------------------------ helpers

    /** Node {@code n} becomes the exclusive owner of the partition (from the HOME state). */
    private void makeOwner(int n) {
        assertFalse(engine[n].request(A, P, Access.READ_WRITE));
        deliver(single("GET_M " + n + "->0 req " + n));
        deliver(single("DATA_M 0->" + n + " req " + n + " +data"));
        assertEquals(Access.READ_WRITE, engine[n].access(A, P));
        clearCalls();
    }

    /** Node {@code n} becomes a sharer (the home must be in HOME or SHARED). */
    private void makeSharer(int n) {
        assertFalse(engine[n].request(A, P, Access.READ));
        deliver(single("GET_S " + n + "->0 req " + n));
        deliver(single("DATA_S 0->" + n + " req " + n + " +data"));
        clearCalls();
    }

    private void clearCalls() {
        for (RecordingPartitionStore s : store) s.takeCalls();
    }

    private void deliver(CoherenceMessage m) {
        engine[m.destination()].onMessage(m);
    }

    /** Takes everything sent since the last take and checks it is exactly {@code expected}, in order. */
    private List<CoherenceMessage> take(String... expected) {
        List<CoherenceMessage> taken = new ArrayList<>(wire);
        wire.clear();
        assertEquals(List.of(expected), taken.stream().map(CoherenceEngineTest::describe).toList());
        return taken;
    }

    private CoherenceMessage single(String expected) {
        return take(expected).get(0);
    }

    static String describe(CoherenceMessage m) {
        return m.op() + " " + m.source() + "->" + m.destination() + " req " + m.requester() + (m.data() == null ? "" : " +data");
    }
}
