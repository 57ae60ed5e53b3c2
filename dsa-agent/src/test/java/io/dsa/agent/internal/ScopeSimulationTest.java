package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Scope entry and exit racing plain coherence traffic, in the seeded {@link ScopeSimulation} on
 * the real directories, engines and codec and the directory operations of {@link Scopes}
 * ({@link ScopeDirectory}): a read cache holds every partition with the values written before it,
 * and after owner computes every node reads the kernel's writes, over many seeds; and each seeded
 * bug ({@link ScopeDirectory.Fault}) is found, with its seed; the same with owner computes in
 * update mode ({@link ComputedPushes}), pushing its results to the copies, and its seeded bugs. {@code -Ddsa.test.seed=S} runs seed S alone.
 */
@Timeout(120)
class ScopeSimulationTest {
    static final int SEEDS = 100;

    @Test
    void readCacheFillAndOwnerComputesRacingPlainTrafficShowTheLastWrites() {
        long filled = 0;
        long reads = 0;
        long recalled = 0;
        long kernel = 0;
        long regions = 0;
        long outside = 0;
        for (long seed : SimulatedNodes.seeds(SEEDS)) {
            ScopeSimulation s = new ScopeSimulation(seed, (ScopeDirectory.Fault) null).run();
            filled += s.copiesFilled;
            reads += s.readsInside;
            recalled += s.homesRecalled;
            kernel += s.kernelWrites;
            regions += s.regionFills;
            outside += s.readsOutside;
        }
        System.out.println("ScopeSimulation: " + filled + " copies of C cached before a read cache, " + reads + " reads inside, "
                + recalled + " copies of O elsewhere before owner computes, " + kernel + " kernel writes, " + regions
                + " read caches of a region, " + outside + " reads outside the region");
        // the races the check is about did happen: copies of O to recall at entry, kernels that wrote, reads in read caches
        assertTrue(reads > 0 && recalled > 0 && kernel > 0 && regions > 0 && outside > 0, "coverage: " + reads + " reads, " + recalled
                + " recalled, " + kernel + " kernel writes, " + regions + " regions, " + outside + " reads outside");
    }

    @Test
    void ownerComputesInUpdateModeRacingPlainTrafficShowsTheLastWrites() {
        long pushed = 0;
        long written = 0;
        long kernel = 0;
        for (long seed : SimulatedNodes.seeds(SEEDS)) {
            ScopeSimulation s = new ScopeSimulation(seed, (ComputedPushes.Fault) null).run();
            pushed += s.partitionsPushed;
            written += s.pushesWritten;
            kernel += s.kernelWrites;
        }
        System.out.println("ScopeSimulation, update mode: " + pushed + " partitions pushed, " + written + " written into copies, "
                + kernel + " kernel writes");
        assertTrue(pushed > 0 && written > 0 && kernel > 0, "coverage: " + pushed + " pushed, " + written + " written, " + kernel
                + " kernel writes");
    }

    @Test
    void pushesAnsweredWithoutBeingWrittenAreFound() {
        String found = SimulatedNodes.firstFailure(SEEDS, "NOT_APPLIED",
                seed -> new ScopeSimulation(seed, ComputedPushes.Fault.NOT_APPLIED).run());
        // a stale copy is read, or written (an upgrade keeps its stale bytes) and recalled by its home's next opening
        assertTrue(found.contains("stale read") || found.contains("owner computes open at node"), found);
    }

    @Test
    void resultsWrittenBackWithoutBeingPushedAreFound() {
        String found = SimulatedNodes.firstFailure(SEEDS, "NOT_PUSHED",
                seed -> new ScopeSimulation(seed, ComputedPushes.Fault.NOT_PUSHED).run());
        assertTrue(found.contains("stale read"), found);
    }

    @Test
    void aReadCacheOpenedBeforeItsCopiesArriveIsFound() {
        String found = SimulatedNodes.firstFailure(SEEDS, "FILL_NOT_AWAITED",
                seed -> new ScopeSimulation(seed, ScopeDirectory.Fault.FILL_NOT_AWAITED).run());
        assertTrue(found.contains("read cache open at node"), found);
    }

    @Test
    void aRegionFillThatMissesTheRegionsLastPartitionIsFound() {
        String found = SimulatedNodes.firstFailure(SEEDS, "REGION_FILL_SHORT",
                seed -> new ScopeSimulation(seed, ScopeDirectory.Fault.REGION_FILL_SHORT).run());
        assertTrue(found.contains("is not readable there") || found.contains("missed inside the read cache"), found);
    }

    @Test
    void ownerComputesWithoutRecallingTheOtherCopiesIsFound() {
        String found = SimulatedNodes.firstFailure(SEEDS, "HOMES_READ_NOT_OWNED",
                seed -> new ScopeSimulation(seed, ScopeDirectory.Fault.HOMES_READ_NOT_OWNED).run());
        assertTrue(found.contains("stale read"), found);
    }
}
