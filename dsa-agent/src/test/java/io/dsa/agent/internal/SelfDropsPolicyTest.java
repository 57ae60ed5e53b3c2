package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.CacheState;
import io.dsa.coherence.Access;
import io.dsa.coherence.CoherenceEngine;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import io.dsa.coherence.PartitionStore;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SelfDrops} with a real engine at a reader (node 1 of 2; partition 0 of array 1, homed at
 * node 0) and the home's messages scripted: which copies a round drops, when the policy keeps one,
 * and what it leaves alone. The messages reach the policy as {@code ArrayDirectory.onCoherence}
 * hands them ({@link SelfDrops#beforeMessage}, before the engine takes them), and each round is
 * marked and run as the barrier's arrival does it.
 */
class SelfDropsPolicyTest {
    static final int A = 1;
    static final int P = 0;

    final List<CoherenceMessage> sent = new ArrayList<>();
    final SelfDrops drops = new SelfDrops();
    CoherenceEngine reader;
    /** The array the round treats as in a scope here. */
    int scoped = -1;

    @BeforeEach
    void setUp() {
        PartitionStore store = ScriptedStores.discarding();
        reader = new CoherenceEngine(1, 2, (a, p) -> 0, store, sent::add);
        drops.enable();
    }

    /** The reader misses and the home answers with a copy. */
    private void read() {
        assertFalse(reader.request(A, P, Access.READ));
        deliver(new CoherenceMessage(CoherenceOp.DATA_S, A, P, 0, 1, 1, new byte[8]));
        assertEquals(CacheState.SHARED, reader.cacheState(A, P));
    }

    /** The home writes: its INV reaches the reader, which acknowledges. */
    private void homeWrites() {
        deliver(new CoherenceMessage(CoherenceOp.INV, A, P, 0, 1, 0, null));
        assertEquals(CacheState.INVALID, reader.cacheState(A, P));
    }

    private void deliver(CoherenceMessage m) {
        drops.beforeMessage(m, reader);
        reader.onMessage(m);
    }

    /** A global round; every PUT_S is acknowledged by the home. @return whether the copy was dropped */
    private boolean round() {
        sent.clear();
        drops.mark();
        int n = drops.runMarked(reader, id -> id == scoped);
        assertEquals(0, drops.runMarked(reader, id -> false), "one round per mark");
        List<CoherenceMessage> puts = sent.stream().filter(m -> m.op() == CoherenceOp.PUT_S).toList();
        assertEquals(n, puts.size(), "one PUT_S per copy dropped: " + sent);
        for (CoherenceMessage m : puts) deliver(new CoherenceMessage(CoherenceOp.PUT_ACK, A, P, 0, 1, 1, null));
        if (n > 0) assertTrue(reader.quiescent(), "every drop acknowledged");
        return n > 0;
    }

    @Test
    void aCopyNeverInvalidatedIsKept() {
        read();
        assertFalse(drops.pending(), "read-only data: nothing to drop");
        assertFalse(round());
        assertEquals(CacheState.SHARED, reader.cacheState(A, P));
    }

    @Test
    void aCopyRewrittenEveryEpochIsDroppedSevenTimesInARowThenKeptUntilTheNextInvalidation() {
        read();
        homeWrites();                 // the first copy is lost to a write: the partition becomes a candidate
        StringBuilder pattern = new StringBuilder();
        for (int epoch = 0; epoch < 2 * SelfDrops.STREAK; epoch++) {
            read();
            assertEquals(true, drops.pending() || pattern.length() == SelfDrops.STREAK - 1, "epoch " + epoch);
            boolean dropped = round();
            pattern.append(dropped ? 'd' : 'k');
            if (dropped) {
                assertEquals(CacheState.INVALID, reader.cacheState(A, P));
            } else {
                homeWrites();         // the kept copy is invalidated by the next write: a candidate again
            }
        }
        assertEquals("dddddddkdddddddk", pattern.toString());
        assertEquals(14, drops.dropped());
    }

    @Test
    void aCopyWithARequestUnderWayWaitsForALaterRoundAndAScopesCopyIsLeftAlone() {
        read();
        homeWrites();
        read();
        assertFalse(reader.request(A, P, Access.READ_WRITE));   // an upgrade under way
        assertFalse(round(), "no drop while the upgrade is under way");
        assertTrue(drops.pending(), "still a candidate");
        deliver(new CoherenceMessage(CoherenceOp.DATA_M, A, P, 0, 1, 1, null));
        assertFalse(round(), "an exclusive copy is never dropped");
        assertFalse(drops.pending(), "the copy was lost another way: nothing held");

        CoherenceEngine before = reader;
        setUp();
        assertTrue(before != reader);
        read();
        homeWrites();
        read();
        scoped = A;
        assertFalse(round(), "an array in a scope here is left alone");
        assertFalse(drops.pending());
        assertEquals(CacheState.SHARED, reader.cacheState(A, P));
    }

    @Test
    void anInvalidationThatCrossesTheDropIsAcknowledgedAndTheDropStillEndsWithItsAck() {
        read();
        homeWrites();
        read();
        sent.clear();
        assertEquals(1, drops.round(reader, id -> false));
        assertFalse(reader.quiescent(), "the PUT_S awaits its ack");
        // the home wrote before it saw the PUT_S: its INV arrives first, and is acknowledged although the copy is gone
        deliver(new CoherenceMessage(CoherenceOp.INV, A, P, 0, 1, 0, null));
        assertEquals(List.of(CoherenceOp.PUT_S, CoherenceOp.INV_ACK), sent.stream().map(CoherenceMessage::op).toList());
        deliver(new CoherenceMessage(CoherenceOp.PUT_ACK, A, P, 0, 1, 1, null));
        assertTrue(reader.quiescent());
        assertEquals(CacheState.INVALID, reader.cacheState(A, P));
    }
}
