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

/** The examples on the real runtime: a 4-node x 2-thread VM of agents over loopback in this JVM. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExamplesOnLocalClusterTest {
    private static DsaConfig config(int nodes, int threads) {
        return DsaConfig.builder().nodes(nodes).threadsPerNode(threads).build();
    }

    @Test
    void innerProductOnFourNodesTimesTwoThreads() {
        try (DsaCluster cluster = DsaCluster.local(config(4, 2))) {
            RunReport report = cluster.run(new InnerProduct(), "512", "32");
            assertEquals(1, report.lines().size(), report.lines().toString());
            assertTrue(report.lines().get(0).matches(
                    "node 0: inner product of 512 elements = [0-9.E-]+ \\(verified against sequential\\)"),
                    report.lines().toString());
            assertEquals(4, report.nodes());
            assertEquals(2, report.threadsPerNode());
        }
    }

    @Test
    void matmulOnFourNodesTimesTwoThreads() {
        try (DsaCluster cluster = DsaCluster.local(config(4, 2))) {
            RunReport report = cluster.run(new MatMul(), "128", "16");
            assertEquals(1, report.lines().size(), report.lines().toString());
            assertTrue(report.lines().get(0).startsWith("node 0: matmul 128x128: C = A*B, sum of C = "),
                    report.lines().toString());
            assertTrue(report.lines().get(0).endsWith("(verified against sequential)"), report.lines().toString());
        }
    }

    @Test
    void raggedShapesOnThreeNodes() {
        try (DsaCluster cluster = DsaCluster.local(config(3, 2))) {
            assertTrue(cluster.run(new InnerProduct(), "1000", "7").lines().get(0).contains("1000 elements"));
        }
        try (DsaCluster cluster = DsaCluster.local(config(3, 2))) {
            assertTrue(cluster.run(new MatMul(), "50", "7").lines().get(0).contains("matmul 50x50"));
        }
    }

    @Test
    void aFailingWorkerFailsTheRun() {
        try (DsaCluster cluster = DsaCluster.local(config(4, 2))) {
            DsaException e = assertThrows(DsaException.class, () -> cluster.run(new TestPrograms.FailingProgram()));
            assertTrue(String.valueOf(e.getMessage()).contains("deliberate failure on thread 5"), String.valueOf(e));
        }
    }
}
