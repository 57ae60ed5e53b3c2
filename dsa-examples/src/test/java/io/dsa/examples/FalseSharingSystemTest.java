package io.dsa.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.cli.DsaCli;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four real agent processes run {@link FalseSharingWorkload}: a seeded random data-race-free
 * workload in which workers on different nodes write different elements of the same partitions,
 * compared element by element with a sequential oracle computed from the same seed. The seed is
 * printed; replay one with {@code -Ddsa.seed=N}. {@code dsa run} runs in a child JVM (node 0) that
 * starts nodes 1..3 as its own children, so the four agents are four processes apart from this one;
 * every process is ended by its PID.
 */
@Timeout(value = 170, unit = TimeUnit.SECONDS)
class FalseSharingSystemTest {
    static final int PHASES = 6;

    @TempDir
    Path dir;
    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void endEveryProcess() throws Exception {
        for (Process p : started) {
            List<ProcessHandle> tree = new ArrayList<>(p.descendants().toList());
            tree.add(p.toHandle());
            for (ProcessHandle h : tree) ProcessHandle.of(h.pid()).ifPresent(ProcessHandle::destroyForcibly);
            for (ProcessHandle h : tree) h.onExit().get(10, TimeUnit.SECONDS).pid();
        }
    }

    @Test
    void fourAgentProcessesMatchTheSequentialOracle() throws Exception {
        long seed = Long.getLong("dsa.seed", System.nanoTime());
        System.out.println("FalseSharingSystemTest seed " + seed + " (replay with -Ddsa.seed=" + seed + ")");
        Run run = dsaRun(120, "--nodes", "4", "--threads", "2", FalseSharingWorkload.class.getName(),
                Long.toString(seed), Integer.toString(PHASES));
        assertEquals(0, run.exit, "seed " + seed + ":\n" + run.out);
        assertTrue(run.out.contains("false-sharing workload: seed " + seed + ", " + PHASES + " phases, 8 threads"), run.out);
        assertTrue(run.out.contains("false-sharing workload seed " + seed + ": " + PHASES + " phases x 4 arrays verified"), run.out);
        assertTrue(run.out.endsWith("result: OK\n"), run.out);
        assertEquals(4, run.agentPids, "agent processes: " + run.out);
    }

    /** The check can fail: a deliberately wrong oracle element is reported with its index, value and expected value. */
    @Test
    void aWrongOracleIsReportedWithTheFirstMismatch() throws Exception {
        long seed = 42;
        Run run = dsaRun(60, "--in-process", "--nodes", "2", "--threads", "2", FalseSharingWorkload.class.getName(),
                Long.toString(seed), "2", "corrupt");
        assertEquals(1, run.exit, run.out);
        assertTrue(run.out.contains("result: FAILED: "), run.out);
        assertTrue(run.out.matches("(?s).*false-sharing workload seed 42: phase 1, array 'fs.int1d': first mismatch at index 500 "
                + "\\(row 0, col 500\\): read -?[0-9]+, expected -?[0-9]+ .*"), run.out);
    }

    private record Run(int exit, String out, int agentPids) {}

    /** {@code dsa run ...} in a child JVM; waits for it, bounded; counts the agent processes it ran. */
    private Run dsaRun(int timeoutSeconds, String... args) throws Exception {
        Path out = dir.resolve("out-" + started.size() + ".txt");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), DsaCli.class.getName(), "run", "--timeout",
                Integer.toString(timeoutSeconds)));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        started.add(p);
        int agents = 1;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds + 30);
        java.util.Set<Long> children = new java.util.HashSet<>();
        while (!p.waitFor(200, TimeUnit.MILLISECONDS)) {
            // the child nodes are node 0's children: record them while they live
            p.children().filter(h -> h.info().commandLine().map(c -> c.contains(DsaCli.class.getName())).orElse(false))
                    .forEach(h -> children.add(h.pid()));
            if (System.nanoTime() > deadline) throw new AssertionError("dsa run did not end in " + (timeoutSeconds + 30) + " s");
        }
        agents += children.size();
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), agents);
    }
}
