package io.dsa.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.DsaCluster;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.RunReport;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The histogram example: every worker's counts accumulated at the bins' homes, checked exactly by the program. */
class HistogramTest {
    private static RunReport run(int nodes, int threads, String... args) {
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(nodes).threadsPerNode(threads).build())) {
            return cluster.run(new Histogram(), args);
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void fourNodesTimesTwoThreadsCountEverySample() {
        RunReport report = run(4, 2, "50000", "1000", "64", "3");
        assertEquals(1, report.lines().size(), report.lines().toString());
        assertTrue(report.lines().get(0).matches("node 0: histogram: 50000 samples in 1000 bins by 8 workers \\(verified against "
                + "sequential\\), busiest bin [0-9]+ with [0-9]+, count and accumulate [0-9.]+ ms"), report.lines().toString());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void oneBinPerPartitionAndMoreWorkersThanSamples() {
        RunReport report = run(2, 2, "3", "5", "1");
        assertTrue(report.lines().get(0).contains("3 samples in 5 bins by 4 workers (verified"), report.lines().toString());
    }

    @Test
    @Timeout(10)
    void badArgumentsNameTheValueAndTheRange() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new Histogram().validate(List.of("100", "0"), 2, 1));
        assertTrue(e.getMessage().contains("bins 0 out of range [1, "), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new Histogram().validate(List.of("100", "10", "11"), 2, 1));
        assertTrue(e.getMessage().contains("partitionSize 11 out of range [1, 10]"), e.getMessage());
    }
}
