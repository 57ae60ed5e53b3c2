package io.dsa.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.agent.DsaCluster;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.RunReport;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** PSRS on the real runtime at small sizes. */
class PsrsTest {
    private static DsaConfig config(int nodes, int threads) {
        return DsaConfig.builder().nodes(nodes).threadsPerNode(threads).build();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void twoNodesTimesTwoThreads() {
        try (DsaCluster cluster = DsaCluster.local(config(2, 2))) {
            RunReport report = cluster.run(new Psrs(), "20000", "512", "3");
            assertEquals(1, report.lines().size(), report.lines().toString());
            assertTrue(report.lines().get(0).matches("node 0: psrs: sorted 20000 keys on 4 workers \\(verified: sorted and"
                    + " a permutation of the input, equal to a sequential sort\\), compute [0-9.]+ ms"),
                    report.lines().toString());
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void fourNodesTimesOneThreadRagged() {
        try (DsaCluster cluster = DsaCluster.local(config(4, 1))) {
            RunReport report = cluster.run(new Psrs(), "9999", "333");
            assertTrue(report.lines().get(0).contains("sorted 9999 keys on 4 workers (verified"), report.lines().toString());
        }
    }

    @Test
    void mergeAndUpperBound() {
        long[] merged = Psrs.merge(new long[][] {{1, 4, 9}, {}, {2, 3, 10}, {0}}, 7);
        assertEquals("[0, 1, 2, 3, 4, 9, 10]", java.util.Arrays.toString(merged));
        assertEquals(1, Psrs.upperBound(new long[] {1, 2, 2, 5}, 0, 4, 1));
        assertEquals(3, Psrs.upperBound(new long[] {1, 2, 2, 5}, 0, 4, 2));
    }

    /** The pairwise merge against a sort of the concatenation: 0 to 9 pieces, empty ones and repeated keys among them. */
    @Test
    void mergeOfRandomPiecesEqualsASortOfTheirConcatenation() {
        long seed = System.nanoTime();
        System.out.println("PsrsTest.mergeOfRandomPiecesEqualsASortOfTheirConcatenation seed " + seed);
        java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
        for (int round = 0; round < 200; round++) {
            int k = random.nextInt(10);
            long[][] pieces = new long[k][];
            int total = 0;
            for (int s = 0; s < k; s++) {
                pieces[s] = random.longs(random.nextInt(4) == 0 ? 0 : random.nextInt(1, 50), -20, 20).sorted().toArray();
                total += pieces[s].length;
            }
            long[] expected = java.util.Arrays.stream(pieces).flatMapToLong(java.util.Arrays::stream).sorted().toArray();
            assertEquals(java.util.Arrays.toString(expected), java.util.Arrays.toString(Psrs.merge(pieces, total)),
                    "seed " + seed + ", round " + round);
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aCorruptedOutputFailsTheCheck() {
        Psrs program = new Psrs();
        program.corruptBeforeCheck = true;
        try (DsaCluster cluster = DsaCluster.local(config(2, 2))) {
            DsaException e = assertThrows(DsaException.class, () -> cluster.run(program, "1000", "100"));
            assertTrue(String.valueOf(e.getMessage()).contains("psrs: output[499] = "), String.valueOf(e));
            assertTrue(String.valueOf(e.getMessage()).contains("expected sorted"), String.valueOf(e));
        }
    }
}
