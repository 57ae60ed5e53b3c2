package io.dsa.agent.faults;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.dsa.agent.DsaAgent;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.RunReport;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A node process stopped with SIGSTOP: it neither dies nor resets its connections, it just goes
 * silent. Node 0 runs in this JVM; nodes 1-3 are {@code dsa node} processes. Before heartbeats
 * the whole job stalled silently until its timeout; now it fails within the failure timeout's
 * order, naming the node; the other processes exit on their own, and so does the stopped one once
 * continued (SIGCONT).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ProcessStopTest {
    private static final int NODES = 4;
    private static final long FAILURE_TIMEOUT_MS = 1_000;
    /** A JVM's exit after its job failed (shutdown hooks, a loaded machine): not a detection time. */
    private static final long EXIT_MS = 30_000;

    @Test
    void aStoppedNodeProcessFailsTheJobWithinTheBoundNamingItAndNothingHangs() throws Exception {
        assumeTrue(NodeProcesses.canSignal(), "skipped: no 'kill' command to signal processes by PID");
        long seed = System.nanoTime();
        int stopped = 1 + new Random(seed).nextInt(NODES - 1);
        System.out.println("ProcessStopTest seed " + seed + ": node " + stopped + " will be stopped");
        byte[] random = new byte[32];
        new Random(seed).nextBytes(random);   // a test's secret: seeded is fine
        String secret = HexFormat.of().formatHex(random);
        FaultPrograms.Churn.ARRAYS.clear();
        FaultPrograms.Churn.Rounds rounds = FaultPrograms.Churn.countRounds(20);
        DsaConfig config = DsaConfig.builder().nodes(NODES).threadsPerNode(1).vmName("stop")
                .secret(secret.getBytes(StandardCharsets.US_ASCII)).failureTimeoutMs(FAILURE_TIMEOUT_MS).build();
        try (DsaAgent node0 = DsaAgent.start(config); NodeProcesses children = new NodeProcesses()) {
            List<String> options = List.of("--nodes", Integer.toString(NODES), "--threads", "1", "--vm", "stop",
                    "--monitor", node0.address(), "--failure-timeout-ms", Long.toString(FAILURE_TIMEOUT_MS), "--timeout", "170");
            Process[] p = new Process[NODES];
            for (int n = 1; n < NODES; n++) p[n] = children.start(n, secret, options, FaultPrograms.Churn.class.getName());
            CompletableFuture<RunReport> run = CompletableFuture.supplyAsync(() -> node0.run(new FaultPrograms.Churn(), List.of()));
            assertTrue(rounds.awaitReachedOrEnd(List.of(run), 120), () -> "the job ended before the stop: " + run);

            long stopNs = System.nanoTime();
            NodeProcesses.signal("STOP", p[stopped]);
            String failure = NetworkCutTest.failureOf(run, 60_000);
            long detectedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopNs);
            System.out.println("ProcessStopTest: node " + stopped + " (pid " + p[stopped].pid() + ") stopped, node 0 failed after "
                    + detectedMs + " ms (failure timeout " + FAILURE_TIMEOUT_MS + " ms): " + failure);
            assertTrue(failure.contains("node " + stopped + " at 127.0.0.1:"), failure);
            assertTrue(failure.contains("nothing heard from node "), failure);
            assertTrue(detectedMs < 3 * FAILURE_TIMEOUT_MS, "detected after " + detectedMs + " ms, more than 3x the bound");

            for (int n = 1; n < NODES; n++) {
                if (n == stopped) continue;
                assertTrue(p[n].waitFor(EXIT_MS, TimeUnit.MILLISECONDS), "node " + n + " did not exit after the failure");
                assertNotEquals(0, p[n].exitValue(), "node " + n + " exits with a failure");
            }
            assertTrue(p[stopped].isAlive(), "the stopped node is still there, stopped");
            NodeProcesses.signal("CONT", p[stopped]);
            assertTrue(p[stopped].waitFor(EXIT_MS, TimeUnit.MILLISECONDS), "node " + stopped + " did not exit once continued");
            assertNotEquals(0, p[stopped].exitValue(), "node " + stopped + " exits with a failure");
        }
    }
}
