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

/** {@link Jacobi} on the real runtime at small sizes. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JacobiOnLocalClusterTest {
    private static RunReport run(int nodes, int threads, Jacobi program, String... args) {
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(nodes).threadsPerNode(threads).build())) {
            return cluster.run(program, args);
        }
    }

    @Test
    void twoNodesTimesTwoThreads() {
        RunReport report = run(2, 2, new Jacobi(), "64", "30", "8");
        assertEquals(1, report.lines().size(), report.lines().toString());
        assertTrue(report.lines().get(0).matches("node 0: jacobi 64x64, 30 iterations, partitions 8x64: bitwise equal to"
                + " sequential \\(verified, max difference 0\\), residual [0-9.e+-]+, iterations [0-9.]+ s"), report.lines().get(0));
    }

    @Test
    void fourNodesTimesOneThreadWithRaggedBands() {
        RunReport report = run(4, 1, new Jacobi(), "50", "21", "7");
        assertTrue(report.lines().get(0).startsWith("node 0: jacobi 50x50, 21 iterations, partitions 7x50: bitwise equal"),
                report.lines().get(0));
    }

    @Test
    void aWrongElementFailsTheCheck() {
        DsaException e = assertThrows(DsaException.class,
                () -> run(2, 2, new Jacobi().corruptBeforeCheck(20, 33, 1e-12), "40", "10", "8"));
        double expected = Jacobi.sequential(40, 10)[20 * 40 + 33];
        assertTrue(String.valueOf(e.getMessage()).contains("jacobi: u[20][33] = " + (expected + 1e-12) + ", expected " + expected),
                String.valueOf(e));
    }

    @Test
    void sequentialIterationsLowerTheResidual() {
        int n = 32;
        double[] few = Jacobi.sequential(n, 10);
        double[] many = Jacobi.sequential(n, 500);
        assertTrue(Jacobi.residual(many, 0, 0, n, n) < Jacobi.residual(few, 0, 0, n, n));
    }
}
