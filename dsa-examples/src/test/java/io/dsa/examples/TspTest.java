package io.dsa.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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

/** TSP branch and bound on the real runtime at small sizes, and its sequential checkers. */
class TspTest {
    private static DsaConfig config(int nodes, int threads) {
        return DsaConfig.builder().nodes(nodes).threadsPerNode(threads).build();
    }

    private static final String LINE = "node 0: tsp: %d cities, optimal tour cost [0-9]+ \\(verified against %s\\), tour \\[0(, [0-9]+)+\\],"
            + " [0-9]+ subproblems expanded in [0-9]+ rounds, [0-9]+ moved between queue fragments, compute [0-9.]+ ms";

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void twoNodesTimesTwoThreadsAgainstHeldKarp() {
        try (DsaCluster cluster = DsaCluster.local(config(2, 2))) {
            RunReport report = cluster.run(new Tsp(), "14", "3", "5");
            assertEquals(1, report.lines().size(), report.lines().toString());
            assertTrue(report.lines().get(0).matches(String.format(LINE, 14, "sequential Held-Karp")), report.lines().toString());
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void fourNodesTimesOneThreadAgainstHeldKarp() {
        try (DsaCluster cluster = DsaCluster.local(config(4, 1))) {
            RunReport report = cluster.run(new Tsp(), "16", "5", "5");
            assertTrue(report.lines().get(0).matches(String.format(LINE, 16, "sequential Held-Karp")), report.lines().toString());
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void twentyCitiesAgainstSequentialBranchAndBound() {
        try (DsaCluster cluster = DsaCluster.local(config(2, 2))) {
            RunReport report = cluster.run(new Tsp(), "20", "1", "5");
            assertTrue(report.lines().get(0).matches(String.format(LINE, 20, "sequential branch and bound")),
                    report.lines().toString());
        }
    }

    @Test
    void sequentialSolversAgree() {
        for (int n = 4; n <= 13; n++) {
            TspInstance instance = TspInstance.random(n, n, 1, 50);
            assertEquals(instance.heldKarp(), instance.sequentialBranchAndBound(), "n = " + n);
        }
        TspInstance square = new TspInstance(4, new int[][] {{0, 1, 9, 9}, {9, 0, 1, 9}, {9, 9, 0, 1}, {1, 9, 9, 0}});
        assertEquals(4, square.heldKarp());
        assertEquals(4, square.sequentialBranchAndBound());
    }

    @Test
    void exchangePlanFillsDeficitsFirst() {
        int[] exports = new int[3];
        int[] destinations = Tsp.plan(new long[] {10, 0, 2}, 12, exports);
        assertArrayEquals(new int[] {6, 0, 0}, exports);
        assertArrayEquals(new int[] {1, 1, 1, 1, 2, 2}, destinations);
        destinations = Tsp.plan(new long[] {3, 0, 0, 0}, 3, exports = new int[4]);
        assertArrayEquals(new int[] {2, 0, 0, 0}, exports);
        assertArrayEquals(new int[] {1, 2}, destinations);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aWrongOptimumFailsTheCheck() {
        Tsp program = new Tsp();
        program.corruptBeforeCheck = true;
        try (DsaCluster cluster = DsaCluster.local(config(2, 2))) {
            DsaException e = assertThrows(DsaException.class, () -> cluster.run(program, "10", "2"));
            assertTrue(String.valueOf(e.getMessage()).matches(
                    "(?s).*tsp: optimal tour cost = [0-9]+, expected [0-9]+ \\(sequential Held-Karp\\).*"), String.valueOf(e));
        }
    }
}
