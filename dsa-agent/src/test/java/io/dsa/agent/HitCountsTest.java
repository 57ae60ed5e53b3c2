package io.dsa.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.SharedDoubleArray;
import io.dsa.agent.metrics.ArrayCounts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hit counting ({@link DsaConfig#hitCounts()}): two nodes, node 1's worker reads node 0's
 * partition (a miss, then hits) and writes it (a miss, then hits). Counted, every access is
 * either a hit or a miss, exactly; not counted, hits read 0 and the misses are the same.
 */
@Timeout(60)
class HitCountsTest {
    static final int ELEMENTS = 64;
    static final int ROUNDS = 5;

    /** Node 1 reads every element of node 0's partition {@link #ROUNDS} times, then writes each once and reads it back. */
    public static final class ReadRemote implements DsaProgram {
        private SharedDoubleArray a;

        @Override
        public void setup(DsaNode node) {
            a = node.createSharedDoubleArray("counted", 2 * ELEMENTS, ELEMENTS);   // block distributed: partition 0 at node 0
        }

        @Override
        public void work(DsaWorker worker) {
            if (worker.nodeId() == 0) {
                for (int j = 0; j < ELEMENTS; j++) a.write(j, j);   // the partition's first bytes, before the barrier
            }
            worker.barrier();
            if (worker.nodeId() == 1) {
                double sum = 0;
                for (int round = 0; round < ROUNDS; round++) {
                    for (int j = 0; j < ELEMENTS; j++) sum += a.read(j);
                }
                for (int j = 0; j < ELEMENTS; j++) a.write(j, a.read(j) + 1);
                worker.node().report("sum " + (long) sum);
            }
            worker.barrier();
        }
    }

    @Test
    void countedEveryAccessIsAHitOrAMiss() {
        ArrayCounts c = countsOfNode1(DsaConfig.builder());
        long reads = (long) ROUNDS * ELEMENTS + ELEMENTS;
        assertEquals(reads, c.readHits() + c.readMisses(), c.toString());
        assertEquals(ELEMENTS, c.writeHits() + c.writeMisses(), c.toString());
        assertTrue(c.readMisses() >= 1 && c.writeMisses() >= 1, "the first read and the first write miss: " + c);
        assertTrue(c.readHits() >= reads - 2, "the other reads hit: " + c);
    }

    @Test
    void notCountedHitsReadZeroAndMissesAreStillCounted() {
        ArrayCounts c = countsOfNode1(DsaConfig.builder().hitCounts(false));
        assertEquals(0, c.readHits(), c.toString());
        assertEquals(0, c.writeHits(), c.toString());
        assertTrue(c.readMisses() >= 1 && c.writeMisses() >= 1, "misses are counted: " + c);
        assertTrue(c.readMisses() <= 2 && c.writeMisses() <= 2, "only the first accesses miss: " + c);
    }

    private static ArrayCounts countsOfNode1(DsaConfig.Builder config) {
        try (DsaCluster cluster = DsaCluster.local(config.nodes(2).threadsPerNode(1).build())) {
            RunReport report = cluster.run(new ReadRemote());
            long expected = (long) ROUNDS * (ELEMENTS - 1) * ELEMENTS / 2;
            assertTrue(report.lines().stream().anyMatch(l -> l.contains("sum " + expected)), report.lines().toString());
            assertEquals(config.build().hitCounts(), cluster.agent(1).counts().hitsCounted(), "the counts say whether hits are counted");
            for (ArrayCounts a : cluster.agent(1).counts().arrays()) {
                if (a.array().equals("counted")) return a;
            }
            throw new AssertionError("no counts for array 'counted' at node 1");
        }
    }
}
