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

/** MM2 on the real runtime at small sizes. */
class Mm2Test {
    private static DsaConfig config(int nodes, int threads) {
        return DsaConfig.builder().nodes(nodes).threadsPerNode(threads).build();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void twoNodesTimesTwoThreads() {
        try (DsaCluster cluster = DsaCluster.local(config(2, 2))) {
            RunReport report = cluster.run(new Mm2(), "64", "16", "7");
            assertEquals(1, report.lines().size(), report.lines().toString());
            assertTrue(report.lines().get(0).matches(
                    "node 0: mm2 64x64: P = Q\\*R, R = Q\\*P, sum of R = -?[0-9]+ \\(verified against sequential\\),"
                            + " compute [0-9.]+ ms"), report.lines().toString());
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void fourNodesTimesOneThreadRagged() {
        try (DsaCluster cluster = DsaCluster.local(config(4, 1))) {
            RunReport report = cluster.run(new Mm2(), "50", "7");
            assertTrue(report.lines().get(0).contains("mm2 50x50") && report.lines().get(0).contains("verified"),
                    report.lines().toString());
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aCorruptedResultFailsTheCheck() {
        Mm2 program = new Mm2();
        program.corruptBeforeCheck = true;
        try (DsaCluster cluster = DsaCluster.local(config(2, 2))) {
            DsaException e = assertThrows(DsaException.class, () -> cluster.run(program, "32", "8"));
            assertTrue(String.valueOf(e.getMessage()).matches("(?s).*mm2: R\\[16\\]\\[0\\] = -?[0-9]+, expected -?[0-9]+ .*"),
                    String.valueOf(e));
        }
    }
}
