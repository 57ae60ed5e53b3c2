package io.dsa.coherence;

import static io.dsa.coherence.CoherenceExplorerTest.assertCorrect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Exhaustive exploration ({@link CoherenceExplorer}) of owner-computes scopes' entry and exit
 * ({@link ModelOp}'s {@code E} and {@code X}: the node takes its home partition, copies it into a
 * plain array, and at exit takes it again and copies the array back) racing plain reads, writes
 * and pushes of the same partition (requests sent before the scope, read-cache fills) and plain
 * traffic on the other partition, with messages in order per pair of nodes, and per pair and
 * partition (small messages overtaking a chunked transfer). No
 * violation in any reachable state, and each {@link ScopeFault} is found with a short trace.
 * Every run prints its state count; a failure prints the shortest trace.
 */
class ScopeExplorerTest {
    /**
     * 3 nodes x 2 partitions: node 0 enters and exits owner computes over partition 0 (its home)
     * and reads it back; node 1 reads partition 0 (a copy that may be served during the scope and
     * that the exit must invalidate), writes partition 1 and reads partition 0 again; node 2
     * writes partition 0 (before the entry, so the entry must recall it, or during the scope, a
     * race the exit's write wins) and reads partition 1.
     */
    static final ModelConfig SCOPE = ModelConfig.of(3, 2, true, "E0 X0 R0", "R0 W1 R0", "W0 R1");

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void ownerComputesRacingPlainTrafficIsCorrect() {
        CoherenceExplorer.Result r = assertCorrect(SCOPE);
        assertTrue(r.states() > 1_000, "the configuration explores a non-trivial space: " + r.summary());
        assertCorrect(SCOPE.withDelivery(ModelConfig.Delivery.PARTITION_FIFO).withPushes(1));
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void ownerComputesRacingPushesLazyWorkersAndTwoScopesIsCorrect() {
        for (ModelConfig c : List.of(SCOPE.withPushes(1), ModelConfig.of(3, 2, false, "E0 X0", "R0 R0", "W0"),
                ModelConfig.workers(2, 2, true, "0:E0 X0 R1", "1:E1 R0 X1", "1:R0"))) {
            assertCorrect(c);
        }
    }

    /** An entry that copies the home's data without taking the partition copies a stale value when another node wrote it: found. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theEntryTakesThePartitionBeforeItCopies() {
        CoherenceExplorer.Result r = assertFinds(ScopeFault.ENTRY_WITHOUT_OWNERSHIP, ModelConfig.of(2, 1, true, "E0 X0", "W0"));
        assertTrue(r.violation().contains("entered owner computes over partition 0 and copied 0"), r.violation());
    }

    /** An exit that copies back without taking the partition again leaves a copy served during the scope stale: found. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theExitTakesThePartitionAgainBeforeItCopiesBack() {
        CoherenceExplorer.Result r = assertFinds(ScopeFault.EXIT_WITHOUT_OWNERSHIP, ModelConfig.of(2, 1, true, "E0 X0", "R0"));
        // node 1's copy of the data before the exit (held, or on its way when the exit wrote) against the exit's write, 1002
        assertTrue(r.violation().contains("node 1 ") && r.violation().contains("the last completed write was 1002"), r.violation());
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.SECONDS)
    void scopeOpsAreParsedAndOnlyAtTheHome() {
        assertEquals("[E0, R1, X0]", ModelOp.parse("E0 R1 X0").toString());
        for (String bad : List.of("E0.1", "Xa")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ModelOp.parse(bad));
            assertTrue(e.getMessage().startsWith("op " + bad + ": "), e.getMessage());
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ModelConfig.of(2, 2, true, "E1", ""));
        assertEquals("op E1 of a worker on node 0: owner computes covers only the node's home partitions, and partition 1 is homed"
                + " at node 1", e.getMessage());
    }

    private static CoherenceExplorer.Result assertFinds(ScopeFault fault, ModelConfig config) {
        return CoherenceExplorerTest.assertFinds(fault, config, config.withFault(fault));
    }
}
