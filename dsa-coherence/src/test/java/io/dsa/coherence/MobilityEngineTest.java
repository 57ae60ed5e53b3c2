package io.dsa.coherence;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.CacheState;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The engine's mobility operations: exporting and restoring directory and cache entries (live
 * migration), and registering a clone as a sharer. Partition 0 of array 7 is homed at node 0.
 */
@org.junit.jupiter.api.Timeout(value = 30, unit = java.util.concurrent.TimeUnit.SECONDS)
class MobilityEngineTest {
    static final int A = 7;
    static final int P = 0;
    static final int NODES = 4;
    static final HomeResolver HOMES = (arrayId, partition) -> partition % NODES;

    final List<CoherenceMessage> wire = new ArrayList<>();
    final CoherenceEngine[] engine = new CoherenceEngine[NODES];
    final RecordingPartitionStore[] store = new RecordingPartitionStore[NODES];

    @BeforeEach
    void setUp() {
        for (int n = 0; n < NODES; n++) {
            store[n] = new RecordingPartitionStore(n, HOMES, 16);
            engine[n] = new CoherenceEngine(n, NODES, HOMES, store[n], wire::add);
        }
    }

    private void deliverAll() {
        while (!wire.isEmpty()) {
            CoherenceMessage m = wire.remove(0);
            engine[m.destination()].onMessage(m);
        }
    }

    private List<String> sent() {
        List<String> out = new ArrayList<>();
        for (CoherenceMessage m : wire) out.add(CoherenceEngineTest.describe(m));
        return out;
    }

    @Test
    void aRestoredHomeKeepsItsSharersAndInvalidatesThem() {
        assertFalse(engine[1].request(A, P, Access.READ));
        deliverAll();
        assertFalse(engine[3].request(A, 1, Access.READ)); // node 3 caches node 1's partition 1
        deliverAll();
        List<Object[]> homes = new ArrayList<>();
        engine[0].forEachHomeEntry((a, p, state, sharers, owner) -> homes.add(new Object[] {a, p, state, sharers, owner}));
        assertEquals(1, homes.size());
        assertEquals(DirectoryState.SHARED, homes.get(0)[2]);
        assertArrayEquals(new int[] {1}, (int[]) homes.get(0)[3]);
        List<CacheState> caches = new ArrayList<>();
        engine[3].forEachCacheEntry((a, p, state) -> caches.add(state));
        assertEquals(List.of(CacheState.SHARED), caches);

        // node 0 moves: a new engine with the same id takes the entry
        RecordingPartitionStore moved = new RecordingPartitionStore(0, HOMES, 16);
        engine[0] = new CoherenceEngine(0, NODES, HOMES, moved, wire::add);
        engine[0].restoreHome(A, P, DirectoryState.SHARED, new int[] {1}, -1);
        assertEquals(Access.READ, engine[0].access(A, P));
        assertTrue(engine[0].quiescent());
        // a write at node 2 must invalidate node 1's copy, known only through the restored entry
        assertFalse(engine[2].request(A, P, Access.READ_WRITE));
        engine[0].onMessage(wire.remove(0));
        assertEquals(List.of("INV 0->1 req 2"), sent());
        deliverAll();
        assertEquals(Access.READ_WRITE, engine[2].access(A, P));
        assertEquals(Access.NONE, engine[1].access(A, P));
        assertEquals(2, engine[0].owner(A, P));
    }

    @Test
    void aRestoredCacheEntryReadsWithoutAMessage() {
        CoherenceEngine e = new CoherenceEngine(1, NODES, HOMES, new RecordingPartitionStore(1, HOMES, 16), wire::add);
        e.restoreCache(A, P, CacheState.SHARED);
        assertTrue(e.request(A, P, Access.READ));
        assertTrue(wire.isEmpty());
        assertThrows(IllegalArgumentException.class, () -> e.restoreCache(A, 1, CacheState.SHARED), "node 1 homes partition 1");
    }

    @Test
    void anInconsistentEntryIsRefused() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> engine[0].restoreHome(A, P, DirectoryState.SHARED, new int[0], -1));
        assertTrue(e.getMessage().contains("illegal transition to SHARED"), e.getMessage());
        IllegalArgumentException s = assertThrows(IllegalArgumentException.class,
                () -> engine[0].restoreHome(A, P, DirectoryState.SHARED, new int[] {4}, -1));
        assertTrue(s.getMessage().contains("sharer 4"), s.getMessage());
        assertThrows(IllegalArgumentException.class, () -> engine[1].restoreHome(A, P, DirectoryState.HOME, new int[0], -1));
    }

    @Test
    void aCloneRegisteredAsSharerIsInvalidatedByTheHomesWrite() {
        assertThrows(IllegalArgumentException.class, () -> engine[0].addSharer(A, P, 4), "id 4 not admitted yet");
        engine[0].admitNodes(5);
        RecordingPartitionStore cloneStore = new RecordingPartitionStore(4, HOMES, 16);
        CoherenceEngine clone = new CoherenceEngine(4, 5, HOMES, cloneStore, wire::add);
        clone.restoreCache(A, P, CacheState.SHARED);
        store[0].takeCalls();
        assertTrue(engine[0].addSharer(A, P, 4));
        assertEquals(List.of("setAccess 7:0 READ"), store[0].takeCalls(), "the home drops to READ");
        assertEquals(DirectoryState.SHARED, engine[0].directoryState(A, P));
        assertFalse(engine[0].request(A, P, Access.READ_WRITE));
        assertEquals(List.of("INV 0->4 req 0"), sent());
        clone.onMessage(wire.remove(0));
        assertEquals(Access.NONE, clone.access(A, P));
        assertEquals(List.of("INV_ACK 4->0 req 0"), sent());
        engine[0].onMessage(wire.remove(0));
        assertEquals(Access.READ_WRITE, engine[0].access(A, P));
        assertEquals(DirectoryState.HOME, engine[0].directoryState(A, P));
    }

    @Test
    void aCloneThatLeavesIsForgottenAndAnInvalidationAwaitingItCompletes() {
        engine[0].admitNodes(5);
        assertTrue(engine[0].addSharer(A, P, 4));
        assertFalse(engine[1].request(A, P, Access.READ));   // node 1 shares too
        deliverAll();
        assertArrayEquals(new int[] {1, 4}, engine[0].sharers(A, P));
        // the home writes: invalidations to nodes 1 and 4; node 1 acks, the clone never does
        assertFalse(engine[0].request(A, P, Access.READ_WRITE));
        assertEquals(List.of("INV 0->1 req 0", "INV 0->4 req 0"), sent());
        engine[1].onMessage(wire.remove(0));
        wire.remove(0);   // the clone is gone: its INV is lost
        engine[0].onMessage(wire.remove(0));   // node 1's ack
        assertEquals(Access.READ, engine[0].access(A, P), "no write access while the clone's ack is awaited");
        engine[0].forgetNode(4);
        assertEquals(Access.READ_WRITE, engine[0].access(A, P), "the write went on without the clone");
        assertEquals(DirectoryState.HOME, engine[0].directoryState(A, P));
        assertTrue(engine[0].quiescent());
    }

    @Test
    void aForgottenLastSharerReturnsTheEntryToTheHome() {
        engine[0].admitNodes(5);
        assertTrue(engine[0].addSharer(A, P, 4));
        assertEquals(Access.READ, engine[0].access(A, P));
        engine[0].forgetNode(4);
        assertArrayEquals(new int[0], engine[0].sharers(A, P));
        assertEquals(DirectoryState.HOME, engine[0].directoryState(A, P));
        assertEquals(Access.READ_WRITE, engine[0].access(A, P));
        assertThrows(IllegalArgumentException.class, () -> engine[0].forgetNode(0), "a node cannot forget itself");
    }

    @Test
    void anExclusiveEntryTakesNoSharer() {
        assertFalse(engine[1].request(A, P, Access.READ_WRITE));
        deliverAll();
        assertFalse(engine[0].addSharer(A, P, 3));
        assertEquals(DirectoryState.EXCLUSIVE, engine[0].directoryState(A, P));
    }
}
