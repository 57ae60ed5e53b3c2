package io.dsa.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dsa run --hosts} while one host daemon is stopped with SIGSTOP (by PID): its connection
 * to the launcher goes silent. Before heartbeats the launcher waited for that host's events until
 * the job's timeout; now it fails within the failure timeout plus its own short bounds (the wait for
 * the other nodes' verdicts, the parallel stop), naming the host; the other host is told to stop the
 * VM at once, and the stopped host, once continued (SIGCONT), answers again and runs nothing of the VM.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class HostStopTest {
    /** Says so in the report: a fault test prints its seed, or that it has none. */
    @org.junit.jupiter.api.BeforeAll
    static void sayThereIsNoSeed() {
        System.out.println("HostStopTest: no randomness (the second host is stopped once the job runs)");
    }

    private static final long FAILURE_TIMEOUT_MS = 1_000;
    /** Detection, then {@link HostsRun#CAUSE_GRACE_MS} for the other verdicts, then a stop bounded by twice {@link HostsRun#STOP_VM_MS}. */
    private static final long VERDICT_BOUND_MS = 3 * FAILURE_TIMEOUT_MS + HostsRun.CAUSE_GRACE_MS + 2 * HostsRun.STOP_VM_MS;

    @TempDir
    Path dir;

    @Test
    void aStoppedHostFailsTheRunWithinItsBoundsNamingItAndServesAgainOnceContinued() throws Exception {
        Path secret = HostProcess.newSecret(dir.resolve("secret"));
        List<HostProcess> hosts = new ArrayList<>();
        try {
            HostProcess.startAll(11, 12, secret, hosts);
            String hostList = hosts.get(0).address() + "," + hosts.get(1).address();
            CompletableFuture<Cli> run = CompletableFuture.supplyAsync(() -> Cli.execute("run", "--hosts", hostList, "--nodes", "2",
                    "--threads", "1", "--vm", "hoststop", "--failure-timeout-ms", Long.toString(FAILURE_TIMEOUT_MS), "--timeout", "200",
                    "--secret-file", secret.toString(), "io.dsa.agent.faults.FaultPrograms$Churn"));
            Poll.status(s -> s.out().lines().filter(l -> l.startsWith("hoststop") && l.contains("RUNNING")).count() == 2 || run.isDone(),
                    "--hosts", hostList, "--vm", "hoststop", "--secret-file", secret.toString());
            assertTrue(!run.isDone(), () -> "the run ended before the stop: " + run.join());

            HostProcess stopped = hosts.get(1);
            long stopNs = System.nanoTime();
            signal("STOP", stopped.process());
            Cli cli = run.get(120, TimeUnit.SECONDS);
            long verdictMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopNs);
            System.out.println("HostStopTest: host " + stopped.address() + " (pid " + stopped.process().pid() + ") stopped, verdict after "
                    + verdictMs + " ms (failure timeout " + FAILURE_TIMEOUT_MS + " ms, bound " + VERDICT_BOUND_MS + " ms): "
                    + cli.out().lines().filter(l -> l.startsWith("result:") || l.startsWith("warning:")).toList());
            assertEquals(DsaCli.EXIT_FAILED, cli.exitCode(), cli.toString());
            assertTrue(cli.out().contains("host " + stopped.address()), cli.toString());
            assertTrue(verdictMs < VERDICT_BOUND_MS, "verdict after " + verdictMs + " ms: " + cli);

            signal("CONT", stopped.process());
            Poll.status(s -> s.exitCode() == 0 && s.out().lines().noneMatch(l -> l.startsWith("hoststop") && l.contains("RUNNING")),
                    "--hosts", hostList, "--vm", "hoststop", "--secret-file", secret.toString());
        } finally {
            for (HostProcess h : hosts) {
                if (h.process().isAlive()) signal("CONT", h.process());
            }
            HostProcess.closeAll(hosts);
        }
    }

    private static void signal(String signal, Process process) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).redirectErrorStream(true).start();
        assertTrue(kill.waitFor(10, TimeUnit.SECONDS), "kill -" + signal + " did not return");
        assertEquals(0, kill.exitValue(), new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }
}
