package io.dsa.coherence;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Random workloads on a simulated cluster, checked for single-writer, last-write reads and completion. */
class SimulatedClusterTest {
    static final int SEEDS = 200;
    static final int OPS = 500;

    /** Cluster shape for a seed: 3..6 nodes, 1..4 partitions, 1..2 arrays, 1..3 workers per node. */
    static SimulatedCluster cluster(long seed) {
        int nodes = 3 + (int) (seed % 4);
        int partitions = 1 + (int) ((seed / 4) % 4);
        int arrays = 1 + (int) ((seed / 16) % 2);
        int workers = 1 + (int) ((seed / 32) % 3);
        return new SimulatedCluster(seed, nodes, arrays, partitions, 8, workers);
    }

    @Test
    void randomWorkloadsKeepCoherence() {
        long reads = 0;
        long writes = 0;
        long messages = 0;
        long invCrossedUpgrade = 0;
        long queuedWhileBusy = 0;
        long homeWantWrite = 0;
        for (long seed = 1; seed <= SEEDS; seed++) {
            SimulatedCluster c = cluster(seed).run(OPS);
            assertEquals(OPS, c.opsDone, "seed " + seed);
            reads += c.reads;
            writes += c.writes;
            messages += c.messages;
            invCrossedUpgrade += c.invCrossedUpgrade;
            queuedWhileBusy += c.requestQueuedWhileBusy;
            homeWantWrite += c.homeWantWrite;
        }
        // the workload reaches the races the protocol must survive
        assertTrue(invCrossedUpgrade > 0 && queuedWhileBusy > 0 && homeWantWrite > 0,
                "INV crossing an upgrade " + invCrossedUpgrade + ", requests queued while busy " + queuedWhileBusy
                        + ", home write wanted during its read " + homeWantWrite);
        assertTrue(reads > SEEDS * OPS / 2 && writes > SEEDS * OPS / 5, "reads " + reads + " writes " + writes);
        assertTrue(messages > SEEDS * 100L, "messages " + messages);
    }

    @Test
    void falseSharingOnOnePartitionKeepsEveryWrite() {
        for (long seed = 1; seed <= 50; seed++) {
            SimulatedCluster c = new SimulatedCluster(1000 + seed, 6, 1, 1, 6, 2).run(OPS);
            assertEquals(OPS, c.opsDone);
        }
    }

    @Test
    void checkerReportsAStaleRead() {
        SimulatedCluster c = cluster(3).run(200);
        SimulatedCluster.Worker w = c.corruptReadableCopy();
        AssertionError e = assertThrows(AssertionError.class, () -> c.run(400));
        assertTrue(e.getMessage().contains("stale read") && e.getMessage().contains("seed 3")
                && e.getMessage().contains("corrupt n" + w.node), e.getMessage());
    }

    @Test
    void checkerReportsTwoWriters() {
        SimulatedCluster c = cluster(5);
        int a = SimulatedCluster.ARRAY_IDS[0];
        int h = c.home[0][0];
        c.store[(h + 1) % c.nodes].setAccess(a, 0, Access.READ_WRITE);
        AssertionError e = assertThrows(AssertionError.class, c::checkInvariants);
        assertTrue(e.getMessage().contains("two writers"), e.getMessage());
    }
}
