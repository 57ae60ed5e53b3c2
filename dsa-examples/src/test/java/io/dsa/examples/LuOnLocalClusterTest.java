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

/** {@link Lu} on the real runtime at small sizes. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LuOnLocalClusterTest {
    private static final String VERIFIED =
            "node 0: lu %dx%d, blocks %dx%d BLOCK_CYCLIC: \\|\\|L\\*U - A\\|\\|/\\|\\|A\\|\\| = [0-9.e+-]+ \\(verified, < 1e-09\\), factorisation [0-9.]+ s";

    private static RunReport run(int nodes, int threads, Lu program, String... args) {
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(nodes).threadsPerNode(threads).build())) {
            return cluster.run(program, args);
        }
    }

    @Test
    void twoNodesTimesTwoThreads() {
        RunReport report = run(2, 2, new Lu(), "96", "16");
        assertEquals(1, report.lines().size(), report.lines().toString());
        assertTrue(report.lines().get(0).matches(String.format(VERIFIED, 96, 96, 16, 16)), report.lines().get(0));
    }

    @Test
    void fourNodesTimesOneThreadWithRaggedBlocks() {
        RunReport report = run(4, 1, new Lu(), "70", "8");
        assertTrue(report.lines().get(0).matches(String.format(VERIFIED, 70, 70, 8, 8)), report.lines().get(0));
    }

    @Test
    void aWrongFactorFailsTheCheck() {
        DsaException e = assertThrows(DsaException.class, () -> run(2, 2, new Lu().corruptBeforeCheck(40, 7, 1e-3), "64", "16"));
        assertTrue(String.valueOf(e.getMessage()).contains("lu: (L*U)[40][7] = "), String.valueOf(e));
        assertTrue(e.getMessage().contains("expected A[40][7] = " + Lu.aAt(40, 7, 64)), e.getMessage());
    }

    @Test
    void kernelsFactorABlockExactly() {
        int n = 24;
        double[] a = new double[n * n];
        for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) a[i * n + j] = Lu.aAt(i, j, n);
        Lu.factor(a, n);
        assertTrue(Lu.check(a, n) < 1e-14);
    }
}
