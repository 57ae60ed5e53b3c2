package io.dsa.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code dsa run} whose child node is killed (SIGKILL, by PID) as soon as it appears, before it
 * could join. Before: the verdict came after 10 s (5 s waiting for node 0, which never heard of
 * the child, then 5 s waiting for the other children, which wait for a view that never comes).
 * Now it comes within about the failure timeout.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ChildLostEarlyTest {
    /** Says so in the report: a fault test prints its seed, or that it has none. */
    @org.junit.jupiter.api.BeforeAll
    static void sayThereIsNoSeed() {
        System.out.println("ChildLostEarlyTest: no randomness (node 2 is killed as soon as its process appears)");
    }

    private static final long FAILURE_TIMEOUT_MS = 1_000;

    @Test
    void aChildKilledBeforeItJoinedFailsTheRunWithinAboutTheFailureTimeout() throws Exception {
        long launcher = ProcessHandle.current().pid();
        CompletableFuture<Cli> run = CompletableFuture.supplyAsync(() -> Cli.execute("run", "--nodes", "3", "--threads", "1",
                "--failure-timeout-ms", Long.toString(FAILURE_TIMEOUT_MS), "--timeout", "100",
                "io.dsa.agent.faults.FaultPrograms$Churn"));
        ProcessHandle child = Poll.until("node 2's process", () -> child(2), Optional::isPresent, 60_000, 2).orElseThrow();
        long killNs = System.nanoTime();
        child.destroyForcibly();   // SIGKILL, by PID
        Cli cli = run.get(60, TimeUnit.SECONDS);
        long verdictMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killNs);
        System.out.println("ChildLostEarlyTest: node 2 (pid " + child.pid() + " of " + launcher + ") killed, verdict after "
                + verdictMs + " ms (failure timeout " + FAILURE_TIMEOUT_MS + " ms)");
        assertEquals(DsaCli.EXIT_FAILED, cli.exitCode(), cli.toString());
        assertTrue(cli.out().contains("result: FAILED: "), cli.toString());
        assertTrue(cli.out().contains("node 2"), cli.toString());
        assertTrue(verdictMs < 5 * FAILURE_TIMEOUT_MS, "verdict after " + verdictMs + " ms: " + cli);
        assertEquals(List.of(), ProcessHandle.current().children().filter(p -> isNode(p, -1)).map(ProcessHandle::pid).toList(),
                "every node process ended");
    }

    /** @return this JVM's live {@code dsa node} process of node {@code node}, if any (also for {@link CheckpointRunTest}) */
    static Optional<ProcessHandle> child(int node) {
        return ProcessHandle.current().children().filter(p -> isNode(p, node)).findFirst();
    }

    /** @return {@code p}'s command line from /proc (ProcessHandle.Info may leave out a long one), or empty */
    private static List<String> arguments(ProcessHandle p) {
        try {
            String cmdline = new String(java.nio.file.Files.readAllBytes(java.nio.file.Path.of("/proc", Long.toString(p.pid()), "cmdline")),
                    java.nio.charset.StandardCharsets.UTF_8);
            return Arrays.asList(cmdline.split("\0"));
        } catch (java.io.IOException e) {
            return List.of();   // it ended, or no /proc
        }
    }

    /** @return whether {@code p} is a {@code dsa node} process of node {@code node} (any node if negative) */
    static boolean isNode(ProcessHandle p, int node) {
        List<String> args = arguments(p);
        int at = args.indexOf("--node");
        return p.isAlive() && args.contains("node") && at >= 0 && at + 1 < args.size()
                && (node < 0 || args.get(at + 1).equals(Integer.toString(node)));
    }
}
