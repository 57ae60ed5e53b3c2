package io.dsa.coherence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Exhaustive exploration ({@link CoherenceExplorer}) of the updates scopes send to the homes
 * ({@link UpdateModel}): release scopes' diffs and accumulates, written by the home once its
 * engine lets it write the partition, racing plain reads, writes, upgrades, overwrites and pushes
 * of the same and other partitions, under every order of delivery. No violation in any reachable
 * state, and each {@link UpdateModel.Fault} is found with a short counterexample. Every run prints
 * its state count; a failure prints the shortest trace.
 */
class UpdateExplorerTest {
    /**
     * 3 nodes x 2 partitions (partition 0 homed at node 0, partition 1 at node 1): node 0 reads
     * partition 1 and writes its own partition 0 (its home); node 1 reads partition 0 (a copy the
     * diffs must invalidate), then sends a diff of element 1 of partition 0 and reads it back;
     * node 2 writes partition 1 (taking it exclusive: plain traffic on the other partition) and
     * sends a diff of element 0 of partition 0, so the two diffs share a partition and each must
     * keep the other's element.
     */
    static final ModelConfig DIFFS = ModelConfig.of(3, 2, true, "R1 W0", "R0 D0.1 R0", "W1 D0.0 R0");

    /**
     * 3 nodes x 2 partitions: two nodes add into element 0 of partition 1 (homed at node 1) while
     * its home writes and reads it and node 0 reads it; a diff of partition 0 (homed at node 0,
     * held exclusive by node 2 at times) from node 1.
     */
    static final ModelConfig ACCUMULATES = ModelConfig.of(3, 2, true, "R1 A1.0 R1", "W1 D0.1 R1", "W0 A1.0");

    /** Two workers of node 1 and one of node 2 send updates of partition 0 while node 0, its home, reads and writes it. */
    static final ModelConfig SEVERAL_SENDERS = ModelConfig.workers(3, 1, true, "0:W0 R0", "1:D0.1", "1:A0.0", "2:R0 D0.0");

    private static CoherenceExplorer.Result assertCorrect(ModelConfig config) {
        CoherenceExplorer.Result r = CoherenceExplorerTest.assertCorrect(config);
        assertTrue(r.updatesAtGrant() > 0, "some update waits for its home's access and is written at the grant: " + r.summary());
        return r;
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void diffsOfTwoNodesIntoOnePartitionRacingPlainTrafficAreCorrect() {
        CoherenceExplorer.Result r = assertCorrect(DIFFS);
        assertTrue(r.states() > 1_000, "the configuration explores a non-trivial space: " + r.summary());
        assertCorrect(DIFFS.withDelivery(ModelConfig.Delivery.PARTITION_FIFO));
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void accumulatesAndDiffsRacingWritesReadsAndRecallsAreCorrect() {
        assertCorrect(ACCUMULATES);
        assertCorrect(ACCUMULATES.withDelivery(ModelConfig.Delivery.PARTITION_FIFO));
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void updatesFromSeveralWorkersRacingPushesOverwritesAndLazyWorkersAreCorrect() {
        assertCorrect(SEVERAL_SENDERS);
        for (ModelConfig c : List.of(SEVERAL_SENDERS.withDelivery(ModelConfig.Delivery.PARTITION_FIFO).withPushes(1),
                ModelConfig.of(3, 1, false, "R0 W0", "O0 D0.1", "A0.0 R0"), ModelConfig.of(3, 1, true, "R0", "O0 A0.1", "D0.0 O0"))) {
            assertCorrect(c);
        }
    }

    /** A home that writes an update while another node still holds a copy (it only had READ) leaves that copy stale: found. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aHomeInvalidatesTheOtherCopiesBeforeItWritesAnUpdate() {
        assertFinds(UpdateModel.Fault.APPLIED_BEFORE_INVALIDATION, ModelConfig.of(3, 1, true, "", "R0", "D0.1"));
    }

    /** A home that answers an update without writing it: found (its copy is valid and lacks the update). */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aHomeWritesEveryUpdateItAnswers() {
        assertFinds(UpdateModel.Fault.LOST, ModelConfig.of(2, 1, true, "", "D0.1"));
        assertFinds(UpdateModel.Fault.LOST, ModelConfig.of(2, 1, true, "R0", "A0.0"));
    }

    /** A home that writes an accumulate's amount over the element instead of adding it: found. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aHomeAddsAnAccumulateToTheElement() {
        assertFinds(UpdateModel.Fault.ACCUMULATE_WRITTEN, ModelConfig.of(2, 1, true, "W0", "A0.0"));
    }

    /** A home that writes a diff's whole buffer, zeros where its scope wrote nothing, loses the other writers' elements: found. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aHomeWritesOnlyTheElementsADiffCarries() {
        assertFinds(UpdateModel.Fault.WHOLE_PARTITION_WRITTEN, ModelConfig.of(3, 1, true, "", "D0.1", "D0.0"));
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.SECONDS)
    void updateOpsAreParsedWithTheirElementAndMalformedOnesRefused() {
        assertEquals("[D1.0, A0.1, R1]", ModelOp.parse("D1.0 A0.1 R1").toString());
        for (String bad : List.of("D1", "W1.0", "A0.2", "Y0", "Dx.1")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ModelOp.parse(bad));
            assertTrue(e.getMessage().startsWith("op " + bad + ": "), e.getMessage());
        }
    }

    private static void assertFinds(UpdateModel.Fault fault, ModelConfig config) {
        CoherenceExplorerTest.assertFinds(fault, config, config.withFault(fault));
    }
}
