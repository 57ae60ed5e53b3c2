package org.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.dsa.agent.DsaCluster;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.RunReport;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Tests a DSA program as any other code: on a virtual machine inside the test's JVM. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MyProgramTest {
    @Test
    void sumsOnTwoNodes() {
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(2).threadsPerNode(2).build())) {
            RunReport report = cluster.run(new MyProgram(), "100");
            assertEquals(List.of("node 0: sum of 1..100 = 5050 (verified)"), report.lines());
        }
    }

    @Test
    void refusesABadArgumentBeforeStarting() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new MyProgram().validate(List.of("0"), 2, 2));
        assertEquals("my-program: n 0 out of range [1, 100000000]", e.getMessage());
    }
}
