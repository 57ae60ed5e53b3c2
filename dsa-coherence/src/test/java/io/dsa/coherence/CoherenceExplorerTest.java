package io.dsa.coherence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Exhaustive exploration of the real protocol engines (see {@link CoherenceExplorer}): the correct
 * protocol has no violation in any reachable state, and each injected {@link Fault} is found with a
 * short counterexample. Every run prints its state count; a failure prints the shortest trace.
 */
class CoherenceExplorerTest {
    /**
     * 3 nodes x 2 partitions (partition 0 homed at node 0, partition 1 at node 1). Every node reads,
     * upgrades and writes: node 0 upgrades remote partition 1 and then writes its own partition 0
     * (invalidating or recalling it); node 1 does the mirror image; node 2 upgrades partition 1
     * against node 0 and writes partition 0 against nodes 0 and 1.
     */
    static final ModelConfig THREE_BY_TWO = ModelConfig.of(3, 2, true, "R1 W1 W0 R0 W1", "R0 W0 W1 R1 W0", "R1 W1 W0 R0 W0");

    /**
     * 4 nodes x 2 partitions: three upgrades (nodes 0, 2, 3) race on partition 1 against its home's
     * write, while partition 0 is read and written by its home and written by two other nodes.
     */
    static final ModelConfig FOUR_BY_TWO = ModelConfig.of(4, 2, true, "R1 W1 W0", "R0 W0 W1", "R1 W1 W0", "R1 W1");

    /**
     * 3 nodes x 2 partitions with two workers on each of nodes 0 and 2: node 0's workers read and
     * write their own partition 0 while node 1 takes it exclusive (the home's localWantWrite path),
     * node 2's workers read and write remote partition 1 (one GET_S, the write coalesced behind it,
     * then GET_M: the cache's wantWrite path) while partition 1's home reads it.
     */
    static final ModelConfig SEVERAL_WORKERS = ModelConfig.workers(3, 2, true,
            "0:R0 W1", "0:W0", "1:W0 R1", "2:R1 W0", "2:W1");

    /** 3 nodes x 2 partitions with lazy workers (a granted access can be revoked before it is used). */
    static final ModelConfig LAZY_THREE_BY_TWO = ModelConfig.of(3, 2, false, "R1 W1 W0", "R0 W0 W1", "W1 R0");

    /**
     * Overwrites ({@code O<p>}: a worker writes every byte of a partition and asks for ownership
     * without data, {@link CoherenceEngine#requestOverwrite}) on 3 nodes x 2 partitions: node 1
     * overwrites partition 0 (homed at node 0, which node 0 and node 2 touch too), node 2 overwrites
     * both, one of them perhaps held exclusive by another node (a forward); node 0 overwrites
     * partition 1 after reading it, so its request is an upgrade.
     */
    static final ModelConfig OVERWRITES = ModelConfig.of(3, 2, true, "R1 O1 W0", "O0 R1", "R0 O0 O1");

    /**
     * Two workers of node 0 overwrite and read partition 1 (the read coalesces behind the overwrite,
     * or the overwrite behind the read); two workers of node 2 both overwrite partition 1 (one
     * hands its bytes to the store, the other waits for the access); partition 1's home writes it.
     */
    static final ModelConfig SEVERAL_OVERWRITERS = ModelConfig.workers(3, 2, true,
            "0:O1", "0:R1", "1:W1 R0", "2:O1", "2:O1 O0");

    /** Explores {@code config}, printing its state count (and the trace of a violation). */
    static CoherenceExplorer.Result explore(ModelConfig config) {
        long t0 = System.nanoTime();
        CoherenceExplorer.Result r = new CoherenceExplorer(config, 20_000_000).explore();
        System.out.printf("explored %s: %s in %.1f s%n", config.describeWorkers(), r.summary(), (System.nanoTime() - t0) / 1e9);
        if (!r.ok()) System.out.print(r.traceText());
        return r;
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void threeNodesTwoPartitionsReadsUpgradesAndWritesEverywhereAreCorrect() {
        CoherenceExplorer.Result r = explore(THREE_BY_TWO);
        assertTrue(r.ok(), () -> r.violation() + "\n" + r.traceText());
        assertTrue(r.states() > 10_000, "the configuration explores a non-trivial space: " + r.summary());
        assertTrue(r.finishedStates() > 0, "some run finishes: " + r.summary());
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void fourNodesTwoPartitionsWithContendedUpgradesAreCorrect() {
        CoherenceExplorer.Result r = explore(FOUR_BY_TWO);
        assertTrue(r.ok(), () -> r.violation() + "\n" + r.traceText());
        assertTrue(r.finishedStates() > 0, "some run finishes: " + r.summary());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void severalWorkersPerNodeCoalesceTheirMissesCorrectly() {
        CoherenceExplorer.Result r = explore(SEVERAL_WORKERS);
        assertTrue(r.ok(), () -> r.violation() + "\n" + r.traceText());
        assertTrue(r.homeCoalescedStates() > 0, "a home's write is coalesced behind its read under way: " + r.summary());
        assertTrue(r.cacheCoalescedStates() > 0, "a cache's write is coalesced behind its read under way: " + r.summary());
        assertTrue(r.finishedStates() > 0, "some run finishes: " + r.summary());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void lazyWorkersOnThreeNodesAndTwoPartitionsAreCorrect() {
        CoherenceExplorer.Result r = explore(LAZY_THREE_BY_TWO);
        assertTrue(r.ok(), () -> r.violation() + "\n" + r.traceText());
        assertTrue(r.finishedStates() > 0, "some run finishes: " + r.summary());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void workersThatRetryLaterCanLoseTheirAccessButNeverDeadlockOrReadStale() {
        // lazy workers: a granted access can be taken away before the worker uses it (the state graph has cycles)
        CoherenceExplorer.Result r = explore(ModelConfig.of(3, 1, false, "R0 W0", "W0 R0", "R0 W0"));
        assertTrue(r.ok(), () -> r.violation() + "\n" + r.traceText());
        assertTrue(r.states() > 1_000, r.summary());
    }

    /**
     * The transport lets a message overtake messages about other partitions (a small frame goes
     * ahead of the rest of a chunked transfer; docs/runtime.md, "Bulk transfers"), so the protocol
     * must be correct with FIFO per pair of nodes and partition only. Each multi-partition
     * configuration is explored again delivered so: no violation, and deliveries that overtake an
     * older message of their pair do happen (none with FIFO per pair).
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void fifoPerPartitionIsEnoughWhenReadsUpgradesAndWritesRaceOnTwoPartitions() {
        assertCorrectWithFifoPerPartitionOnly(THREE_BY_TWO);
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void fifoPerPartitionIsEnoughForSeveralWorkersPerNodeAndForLazyWorkers() {
        assertCorrectWithFifoPerPartitionOnly(SEVERAL_WORKERS);
        assertCorrectWithFifoPerPartitionOnly(LAZY_THREE_BY_TWO);
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void fifoPerPartitionIsEnoughForContendedUpgradesOnFourNodes() {
        CoherenceExplorer.Result r = explore(FOUR_BY_TWO.withDelivery(ModelConfig.Delivery.PARTITION_FIFO));
        assertTrue(r.ok(), () -> r.violation() + "\n" + r.traceText());
        assertTrue(r.finishedStates() > 0, "some run finishes: " + r.summary());
        assertTrue(r.overtakingDeliveries() > 0, r.summary());
    }

    /** Without any order between two nodes, an INV overtakes the DATA_S it follows and the cache is found in the wrong state. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void withoutFifoPerPartitionAnInvalidationOvertakesTheCopyItRevokesAndIsFound() {
        ModelConfig readThenWrite = ModelConfig.of(3, 1, true, "", "R0", "W0");
        CoherenceExplorer.Result ordered = explore(readThenWrite.withDelivery(ModelConfig.Delivery.PARTITION_FIFO));
        assertTrue(ordered.ok(), () -> ordered.violation() + "\n" + ordered.traceText());
        CoherenceExplorer.Result r = explore(readThenWrite.withDelivery(ModelConfig.Delivery.UNORDERED));
        assertFalse(r.ok(), "reordering within a partition must break the protocol: " + r.summary());
        assertTrue(r.traceText().contains("deliver INV") && r.violation().contains("the engine threw"),
                "the counterexample delivers an INV ahead of its DATA_S:\n" + r.violation() + "\n" + r.traceText());
    }

    private static void assertCorrectWithFifoPerPartitionOnly(ModelConfig config) {
        CoherenceExplorer.Result perPair = explore(config);
        CoherenceExplorer.Result perPartition = explore(config.withDelivery(ModelConfig.Delivery.PARTITION_FIFO));
        assertTrue(perPartition.ok(), () -> perPartition.violation() + "\n" + perPartition.traceText());
        assertTrue(perPartition.finishedStates() > 0, "some run finishes: " + perPartition.summary());
        assertEquals(0, perPair.overtakingDeliveries(), perPair.summary());
        assertTrue(perPartition.overtakingDeliveries() > 0, "messages about different partitions overtake each other: "
                + perPartition.summary());
    }

    /**
     * Overwrites racing reads, writes, upgrades and each other, eager and lazy, one worker per node
     * and several, FIFO per pair and per partition: no violation (a valid copy always holds the last
     * write, so the bytes an overwrite lands are there before any thread can read them), no
     * deadlock, and both ways of completing an overwrite happen: granted without data, and given
     * the access another way (an upgrade of a shared copy, a request already under way).
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void overwritesWithoutDataRacingReadsWritesAndEachOtherAreCorrect() {
        List<ModelConfig> configs = List.of(OVERWRITES, OVERWRITES.withDelivery(ModelConfig.Delivery.PARTITION_FIFO),
                SEVERAL_OVERWRITERS, ModelConfig.of(3, 1, false, "W0 O0", "O0 R0", "R0 O0"));
        for (ModelConfig c : configs) {
            CoherenceExplorer.Result r = explore(c);
            assertTrue(r.ok(), () -> r.violation() + "\n" + r.traceText());
            assertTrue(r.finishedStates() > 0, "some run finishes: " + r.summary());
            assertTrue(r.overwriteGrants() > 0 && r.overwriteFallbacks() > 0, "both ways of completing an overwrite happen: " + r.summary());
        }
        // recalls of an exclusive owner for an overwrite (FWD_GET_M_OVERWRITE: released without data)
        CoherenceExplorer.Result recall = explore(ModelConfig.of(3, 1, true, "R0", "W0 R0", "O0 R0"));
        assertTrue(recall.ok(), () -> recall.violation() + "\n" + recall.traceText());
        assertTrue(recall.finishedStates() > 0 && recall.overwriteGrants() > 0, recall.summary());
    }

    /** A push that reaches a node whose overwrite is under way makes it a sharer: the home grants an upgrade, which the store still completes by writing the worker's bytes. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void anOverwriteCrossedByAPushIsCorrect() {
        CoherenceExplorer.Result r = explore(ModelConfig.of(3, 1, true, "W0", "O0 R0", "R0 O0").withDelivery(
                ModelConfig.Delivery.PARTITION_FIFO).withPushes(2));
        assertTrue(r.ok(), () -> r.violation() + "\n" + r.traceText());
        assertTrue(r.finishedStates() > 0 && r.overwriteGrants() > 0, r.summary());
    }

    /** An overwrite needs no data, but the other copies must still be invalidated: a home that skips that is found. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anOverwriteStillInvalidatesTheSharers() {
        assertFinds(Fault.OVERWRITE_SKIPS_INVALIDATION, ModelConfig.of(3, 1, true, "", "R0", "O0"));
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void readMissWhileTheOwnerWritesIsForwardedNotAnsweredFromStaleMemory() {
        assertFinds(Fault.STALE_HOME_READ, ModelConfig.of(3, 1, true, "", "W0", "R0"));
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void everyInvalidationAckIsAwaited() {
        assertFinds(Fault.ACK_NOT_AWAITED, ModelConfig.of(3, 1, true, "R0 W0", "R0", "R0"));
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aForwardedWriteBlocksThePartitionUntilTheOwnersDataPasses() {
        assertFinds(Fault.FORWARD_NOT_BLOCKING, ModelConfig.of(3, 1, true, "R0", "W0", "W0"));
    }

    /**
     * Pushes (a home gives a node that holds no copy a shared one, unasked: {@link CoherenceEngine#push})
     * (to one node or to several at once) at every moment the engine allows one, up to two per run
     * (one with several workers per node, whose space is larger), racing the workers' reads, upgrades
     * and writes and their requests in flight, with FIFO per pair and partition only (every order
     * that FIFO per pair allows is among them): no violation, no deadlock, and more states than
     * without pushes (they do happen).
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void pushesAtAnyMomentRacingReadsUpgradesAndWritesAreCorrect() {
        for (ModelConfig c : List.of(LAZY_THREE_BY_TWO, SEVERAL_WORKERS)) {
            ModelConfig perPartition = c.withDelivery(ModelConfig.Delivery.PARTITION_FIFO);
            assertCorrectWithMoreStates("pushes", perPartition, perPartition.withPushes(c == SEVERAL_WORKERS ? 1 : 2));
        }
    }

    /** A push grants reads only: a node that takes it for the answer to its write request under way is found. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aWriteUnderWayStaysUnderWayWhenAPushArrives() {
        assertFinds(Fault.PUSH_ENDS_WRITE_REQUEST, ModelConfig.of(2, 1, true, "R0", "W0").withPushes(1));
    }

    /**
     * Drops (a node gives up its shared copy unasked and tells the home, PUT_S: {@link CoherenceEngine#drop},
     * self-invalidation) at every moment the engine allows one, up to two per run (one with several
     * workers per node), racing the workers' reads, upgrades and writes, the home's invalidations
     * (a drop that crosses an INV) and pushes, with FIFO per pair and partition only; and a
     * producer-consumer workload like CG's, each node rewriting its own partition and reading the
     * other's: no violation, no deadlock, and more states than without drops (they do happen).
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void dropsAtAnyMomentRacingReadsUpgradesWritesAndPushesAreCorrect() {
        ModelConfig producerConsumer = ModelConfig.of(2, 2, false, "W0 R1 W0 R1", "W1 R0 W1 R0");
        for (ModelConfig c : List.of(LAZY_THREE_BY_TWO, SEVERAL_WORKERS, producerConsumer)) {
            ModelConfig perPartition = c.withDelivery(ModelConfig.Delivery.PARTITION_FIFO);
            assertCorrectWithMoreStates("drops", perPartition, perPartition.withDrops(c == SEVERAL_WORKERS ? 1 : 2));
        }
        assertCorrectAndFinishing(explore(LAZY_THREE_BY_TWO.withDelivery(ModelConfig.Delivery.PARTITION_FIFO).withPushes(1).withDrops(1)));
    }

    /** A node that drops its copy must stop reading it: one that keeps its workers' access reads a stale value after the home writes. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aDroppedCopyIsNoLongerRead() {
        assertFinds(Fault.DROP_KEEPS_ACCESS, ModelConfig.of(2, 1, true, "W0", "R0 R0").withDrops(1));
    }

    /** A PUT_S takes one sharer off the directory: a home that forgets the others writes while they still read their copies. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aDropLeavesTheOtherSharersListed() {
        assertFinds(Fault.DROP_FORGETS_OTHER_SHARERS, ModelConfig.of(3, 1, true, "W0", "R0", "R0 R0").withDrops(1));
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.SECONDS)
    void theExactDirectoryCheckRejectsAHomeWhoseAccessDisagreesWithItsDirectory() {
        ClusterModel model = new ClusterModel(ModelConfig.of(3, 1, true, "", "", ""));
        model.checkInvariants();
        // the directory says HOME (home memory the only copy, READ_WRITE) but the home store holds READ
        model.stores[0].access[0] = Access.READ;
        ClusterModel.Violation v = org.junit.jupiter.api.Assertions.assertThrows(ClusterModel.Violation.class, model::checkInvariants);
        assertTrue(v.getMessage().contains("is quiescent but the home directory"), v.getMessage());
    }

    // `with` (base with a kind of step added) explores without a violation, some run finishes, and the steps happen: more states than base
    private static void assertCorrectWithMoreStates(String steps, ModelConfig base, ModelConfig with) {
        CoherenceExplorer.Result without = explore(base);
        CoherenceExplorer.Result r = explore(with);
        assertCorrectAndFinishing(r);
        assertTrue(r.states() > without.states(), steps + " add states: " + r.summary() + " against " + without.summary());
    }

    private static void assertCorrectAndFinishing(CoherenceExplorer.Result r) {
        assertTrue(r.ok(), () -> r.violation() + "\n" + r.traceText());
        assertTrue(r.finishedStates() > 0, "some run finishes: " + r.summary());
    }

    private static void assertFinds(Fault fault, ModelConfig config) {
        assertFinds(fault, config, config.withFault(fault));
    }

    /** Explores {@code config}: no violation, and some run finishes. @return the result */
    static CoherenceExplorer.Result assertCorrect(ModelConfig config) {
        CoherenceExplorer.Result r = explore(config);
        assertTrue(r.ok(), () -> r.violation() + "\n" + r.traceText());
        assertTrue(r.finishedStates() > 0, "some run finishes: " + r.summary());
        return r;
    }

    /**
     * {@code config} is correct, and {@code broken} (the same with {@code fault}) is found, with a
     * counterexample trace that ends at the violation (or at a state with no way on). @return the broken result
     */
    static CoherenceExplorer.Result assertFinds(Object fault, ModelConfig config, ModelConfig broken) {
        CoherenceExplorer.Result correct = explore(config);
        assertTrue(correct.ok(), () -> "without the fault: " + correct.violation() + "\n" + correct.traceText());
        CoherenceExplorer.Result r = explore(broken);
        assertFalse(r.ok(), fault + " must be found: " + r.summary());
        assertFalse(r.trace().isEmpty(), "a counterexample trace is printed");
        assertTrue(r.trace().get(r.trace().size() - 1).contains("VIOLATION") || r.violation().startsWith("no transition"),
                "the trace ends at the violation:\n" + r.traceText());
        return r;
    }
}
