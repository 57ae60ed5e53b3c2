package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * {@link ReaderPushes} with a real engine at the home (node 0 of 3, partition 0 of array 1) and
 * scripted readers: which rounds push, to whom, and when the policy stops. The readers' answers
 * ({@code PUSH_ACK}, {@code INV_ACK}) are handed to the engine by the test, as their I/O threads would send them.
 */
class ReaderPushesPolicyTest {
    static final int A = 1;
    static final int P = 0;

    final List<CoherenceMessage> sent = new ArrayList<>();
    final ReaderPushes pushes = new ReaderPushes();
    CoherenceEngine home;

    @BeforeEach
    void setUp() {
        PartitionStore store = ScriptedStores.discarding();
        // as ArrayDirectory wires it: every INV the home sends is an invalidation the policy hears of
        home = new CoherenceEngine(0, 3, (a, p) -> 0, store, m -> {
            sent.add(m);
            if (m.op() == CoherenceOp.INV) pushes.invalidated(m.arrayId(), m.partition(), m.destination());
        });
        pushes.enable();
        assertTrue(home.request(A, P, Access.READ_WRITE));   // the home's entry exists, in HOME
    }

    /** Node {@code n} reads the partition (a GET_S the home serves). */
    private void read(int n) {
        CoherenceMessage getS = new CoherenceMessage(CoherenceOp.GET_S, A, P, n, 0, n, null);
        pushes.requested(A, P, n);
        home.onMessage(getS);
    }

    /** The home writes: every sharer is invalidated and acknowledges. */
    private void homeWrites() {
        sent.clear();
        home.request(A, P, Access.READ_WRITE);
        for (CoherenceMessage inv : List.copyOf(sent)) {
            home.onMessage(new CoherenceMessage(CoherenceOp.INV_ACK, A, P, inv.destination(), 0, 0, null));
        }
        assertEquals(Access.READ_WRITE, home.access(A, P));
    }

    /** A round; every push is acknowledged. @return the nodes pushed to */
    private List<Integer> round() {
        sent.clear();
        pushes.round(home);
        List<Integer> to = new ArrayList<>();
        for (CoherenceMessage m : List.copyOf(sent)) {
            assertEquals(CoherenceOp.PUSH_S, m.op());
            to.add(m.destination());
            home.onMessage(new CoherenceMessage(CoherenceOp.PUSH_ACK, A, P, m.destination(), 0, m.destination(), null));
        }
        assertFalse(home.busy(A, P));
        return to;
    }

    @Test
    void aReaderIsPushedToOnlyAfterItCameBackOnceAndEveryEighthRoundIsASample() {
        read(1);
        homeWrites();
        assertFalse(pushes.pending(), "invalidated once, never back: not a returning reader");
        assertEquals(List.of(), round());
        read(1);                                  // it came back
        assertTrue(pushes.pending());
        List<List<Integer>> rounds = new ArrayList<>();
        for (int r = 1; r <= ReaderPushes.SAMPLE; r++) {
            homeWrites();
            rounds.add(round());
        }
        for (int r = 0; r < ReaderPushes.SAMPLE - 1; r++) assertEquals(List.of(1), rounds.get(r), "round " + (r + 1));
        assertEquals(List.of(), rounds.get(ReaderPushes.SAMPLE - 1), "the eighth round pushes nothing");
        // the sample: a reader that reads again comes back and is pushed to again; one that stopped is not
        homeWrites();
        assertEquals(List.of(), round(), "forgotten until it reads again");
        read(1);
        homeWrites();
        assertEquals(List.of(1), round());
    }

    @Test
    void severalReadersArePushedToInOneTransactionAndAForgottenNodeIsLeftOut() {
        read(1);
        read(2);
        homeWrites();
        read(1);
        read(2);
        homeWrites();
        assertEquals(List.of(1, 2), round());
        pushes.forget(2);
        homeWrites();
        assertEquals(List.of(1), round());
        assertEquals(3, pushes.pushed(), "three copies pushed in all");
    }

    @Test
    void nothingIsTrackedWhenThePushesAreOffOrForNodesBeyondTheMask() {
        ReaderPushes off = new ReaderPushes();
        off.invalidated(A, P, 1);
        off.requested(A, P, 1);
        assertFalse(off.pending());
        pushes.invalidated(A, P, ReaderPushes.MAX_NODE + 1);
        pushes.requested(A, P, ReaderPushes.MAX_NODE + 1);
        assertFalse(pushes.pending());
    }
}
