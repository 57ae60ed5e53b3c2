package io.dsa.agent.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.agent.DsaCluster;
import io.dsa.agent.DsaConfig;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link DsaCluster#run(io.dsa.DsaProgram, Duration, String...)}: before, a run through DsaCluster had no bound at all. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClusterRunTimeoutTest {
    /** Says so in the report: a fault test prints its seed, or that it has none. */
    @org.junit.jupiter.api.BeforeAll
    static void sayThereIsNoSeed() {
        System.out.println("ClusterRunTimeoutTest: no randomness (the program never ends; the timeout is the fault)");
    }

    @Test
    void aRunThatDoesNotEndInTimeFailsEveryWorkerAndSaysSo() {
        DsaConfig config = DsaConfig.builder().nodes(3).threadsPerNode(2).failureTimeoutMs(1_000).build();
        try (DsaCluster cluster = DsaCluster.local(config)) {
            long start = System.nanoTime();
            DsaException e = assertThrows(DsaException.class, () -> cluster.run(new FaultPrograms.Churn(), Duration.ofMillis(1_500)));
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.println("ClusterRunTimeoutTest: run of 1500 ms ended after " + tookMs + " ms: " + e.getMessage());
            assertTrue(e.getMessage().contains("the run timed out after 1500 ms"), e.getMessage());
            assertTrue(tookMs < 1_500 + 3 * config.failureTimeoutMs(), "ended after " + tookMs + " ms");
            assertTrue(!cluster.running(), "the run is over");
        }
    }

    @Test
    void aTimeoutThatIsNotPositiveIsRefusedNamingIt() {
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(1).build())) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> cluster.run(new FaultPrograms.Churn(), Duration.ZERO));
            assertEquals("timeout 0 ms out of range [1, " + Long.MAX_VALUE + "]", e.getMessage());
        }
    }
}
