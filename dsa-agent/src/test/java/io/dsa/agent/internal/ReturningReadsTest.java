package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The marks and waves of {@link ReturningReads}, without a node. */
class ReturningReadsTest {

    @Test
    void aFirstMissOnlyMarksAndAReturningMissStartsOneWavePerRound() {
        ReturningReads r = new ReturningReads(10);
        assertFalse(r.missed(3, 0), "first miss on 3");
        assertFalse(r.missed(7, 0), "first miss on 7");
        assertTrue(r.marked(3) && r.marked(7) && !r.marked(4));
        assertTrue(r.missed(3, 1), "3 returns in round 1: a wave");
        assertFalse(r.missed(7, 1), "one wave per round");
        assertFalse(r.missed(3, 1), "one wave per round");
        assertTrue(r.missed(7, 2), "7 returns in round 2");
    }

    @Test
    void theWalkGoesOnFromTheMissAndWrapsAroundToIt() {
        ReturningReads r = new ReturningReads(130);
        for (int p : new int[] {0, 5, 63, 64, 100, 129}) r.missed(p, 0);
        assertEquals(List.of(129, 0, 5, 63, 64), walk(r, 100));
        assertEquals(List.of(5, 63, 64, 100, 129), walk(r, 0));
        assertEquals(List.of(0, 5, 63, 64, 100), walk(r, 129));
        ReturningReads alone = new ReturningReads(3);
        alone.missed(1, 0);
        assertEquals(List.of(), walk(alone, 1), "nothing else marked: the walk ends at once");
    }

    @Test
    void everyEighthWaveRequestsNothingAndForgetsTheOtherMarks() {
        ReturningReads r = new ReturningReads(4);
        r.missed(0, 0);
        r.missed(2, 0);
        for (int round = 1; round < ReturningReads.SAMPLE; round++) {
            assertTrue(r.missed(0, round), "round " + round + " starts a wave");
            r.missed(2, round);
        }
        assertFalse(r.missed(0, ReturningReads.SAMPLE), "the sampled round starts none");
        assertTrue(r.marked(0), "the missed partition stays marked");
        assertFalse(r.marked(2), "the others are forgotten");
        assertFalse(r.missed(2, ReturningReads.SAMPLE), "2 misses again: marked, no wave (the round had its turn)");
        assertTrue(r.missed(0, ReturningReads.SAMPLE + 1));
        assertEquals(List.of(2), walk(r, 0));
    }

    @Test
    void aWaveWhoseStartIsForgottenMeanwhileEndsWithoutGoingRound() {
        ReturningReads r = new ReturningReads(8);
        for (int p : new int[] {2, 5, 6}) r.missed(p, 0);
        assertEquals(5, r.nextInWave(2, 2));
        // another round's forgetting clears every mark but its own partition's (6) while this walk is at 5
        for (int round = 1; round <= ReturningReads.SAMPLE; round++) r.missed(6, round);
        assertFalse(r.marked(2));
        assertEquals(6, r.nextInWave(2, 5));
        assertEquals(-1, r.nextInWave(2, 6), "6 is the only mark: the walk ends instead of going round from it");
    }

    private static List<Integer> walk(ReturningReads r, int from) {
        List<Integer> seen = new ArrayList<>();
        for (int q = r.nextInWave(from, from); q >= 0; q = r.nextInWave(from, q)) seen.add(q);
        return seen;
    }
}
