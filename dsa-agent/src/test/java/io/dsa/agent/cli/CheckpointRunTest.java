package io.dsa.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.checkpoint.CheckpointStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dsa run --checkpoint-every}, {@code --restart-from} and the automatic restart after a lost
 * node, with node processes, on the resumable relaxations of {@code MigrationTest} (two arrays and a
 * shared counter; node 0 reports the bits of the result and the count) and of {@code HostTestPrograms}
 * (which holds at plain barriers until the test opens its fast file, so a fault always comes before
 * its end). The result line of an uninterrupted run is the reference. No randomness: the faults come at
 * the first checkpoint.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class CheckpointRunTest {
    /** Says so in the report: a fault test prints its seed, or that it has none. */
    @org.junit.jupiter.api.BeforeAll
    static void sayThereIsNoSeed() {
        System.out.println("CheckpointRunTest: no randomness (the faults come at the first checkpoint)");
    }

    private static final String RELAX = "io.dsa.agent.MigrationTest$Relax";
    private static final String HELD = HostTestPrograms.Relax.class.getName();
    /** Iterations of the held runs: 10 ms each until the fault, few after it. */
    private static final String ITERATIONS = "30";
    /** Nodes of every run: node 0 in the launcher's JVM and one node process (each JVM started costs seconds in CI). */
    private static final String NODES = "2";

    @TempDir
    Path dir;
    /** Where the held run's fast file goes (not among the checkpoints). */
    @TempDir
    Path gates;

    /** @return the report line {@code node 0: relax <hash> count <n>} of a run */
    private static String result(Cli cli) {
        return cli.out().lines().filter(l -> l.startsWith("node 0: relax ")).findFirst().orElseThrow(() -> new AssertionError(cli));
    }

    /** Result lines of uninterrupted runs by iteration count: the tests share them (each run costs seconds in CI). */
    private static final java.util.Map<String, String> REFERENCES = new java.util.concurrent.ConcurrentHashMap<>();

    private static String reference(String program, String iterations) {
        return REFERENCES.computeIfAbsent(program + " " + iterations, key -> {
            List<String> args = new ArrayList<>(List.of("run", "--in-process", "--nodes", NODES, "--threads", "1", program, iterations));
            if (program.equals(HELD)) args.add(OPEN.toString());
            Cli cli = Cli.execute(args.toArray(new String[0]));
            assertEquals(0, cli.exitCode(), cli.toString());
            return result(cli);
        });
    }

    /** A fast file that exists, for the held relaxation's reference runs. */
    private static final Path OPEN = open();

    private static Path open() {
        try {
            Path f = Files.createTempFile("dsa-fast", "");
            f.toFile().deleteOnExit();
            return f;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** @return the held run's fast file (the test writes it to let the run end) */
    private Path fast() { return gates.resolve("fast"); }

    private boolean anyComplete() {
        return CheckpointStore.anyComplete(dir);
    }

    /**
     * Starts {@code dsa run} of the held relaxation on 2 nodes (one node process), checkpoints every 10, and
     * waits for the first complete one.
     */
    private CompletableFuture<Cli> startAndAwaitACheckpoint() throws InterruptedException {
        CompletableFuture<Cli> run = CompletableFuture.supplyAsync(() -> Cli.execute("run", "--nodes", NODES, "--threads", "1",
                "--timeout", "200", "--failure-timeout-ms", "1500", "--checkpoint-every", "10", "--checkpoint-dir", dir.toString(), HELD,
                ITERATIONS, fast().toString()));
        Poll.inDirectory("a complete checkpoint in " + dir, dir, true, run, 120_000, this::anyComplete);   // a manifest in an epoch's directory
        assertFalse(run.isDone(), () -> "the run ended before its first checkpoint: " + run.join());
        return run;
    }

    private static ProcessHandle nodeProcess(int node) throws InterruptedException {
        return Poll.until("node " + node + "'s process", () -> ChildLostEarlyTest.child(node), Optional::isPresent, 60_000, 2).orElseThrow();
    }

    @Test
    void aNodeKilledAfterACheckpointIsSurvivedByARestartFromItWithTheSameResult() throws Exception {
        String expected = reference(HELD, ITERATIONS);
        CompletableFuture<Cli> run = startAndAwaitACheckpoint();
        try {
            ProcessHandle node1 = nodeProcess(1);
            node1.destroyForcibly();   // SIGKILL, by PID
            System.out.println("CheckpointRunTest: node 1 (pid " + node1.pid() + ") killed");
        } finally {
            Files.writeString(fast(), "fast");   // the restarted VM may run at full speed and end
        }
        Cli cli = run.get(200, TimeUnit.SECONDS);
        System.out.println("CheckpointRunTest: " + cli.out().lines().filter(l -> l.startsWith("recovered") || l.startsWith("restarting") || l.startsWith("every node")
                        || l.startsWith("node lost")).toList());
        assertEquals(0, cli.exitCode(), cli.toString());
        assertTrue(cli.out().contains("restarting the VM from " + dir), cli.toString());
        assertTrue(cli.out().contains("recovered: the VM formed again and resumes at epoch "), cli.toString());
        assertTrue(cli.out().contains("result: OK"), cli.toString());
        assertEquals(expected, result(cli));
        assertEquals(List.of(), ProcessHandle.current().children().filter(p -> ChildLostEarlyTest.isNode(p, -1)).map(ProcessHandle::pid)
                .toList(), "every node process ended");
    }

    /**
     * A node stopped (SIGSTOP) is not dead: nothing closes its connections, the failure detector
     * names it after the failure timeout, and the launcher restarts the VM (killing the stopped
     * process at once, as the node the failure names: SIGTERM cannot end it).
     */
    @Test
    void aNodeStoppedAfterACheckpointIsTakenForLostAndTheRestartEndsWithTheSameResult() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(canSignal(), "skipped: no 'kill' command to signal processes by PID");
        String expected = reference(HELD, ITERATIONS);
        CompletableFuture<Cli> run = startAndAwaitACheckpoint();
        ProcessHandle node1 = nodeProcess(1);
        try {
            try {
                signal("STOP", node1);
            } finally {
                Files.writeString(fast(), "fast");
            }
            Cli cli = run.get(200, TimeUnit.SECONDS);
            assertEquals(0, cli.exitCode(), cli.toString());
            assertTrue(cli.out().contains("node lost: job failed: ") && cli.out().contains("lost node 1 at "), cli.toString());
            assertTrue(cli.out().contains("restarting the VM from " + dir), cli.toString());
            assertEquals(expected, result(cli));
            assertFalse(node1.isAlive(), "the stopped node's process was ended");
        } finally {
            if (node1.isAlive()) node1.destroyForcibly();   // SIGKILL ends a stopped process too
        }
    }

    private static boolean canSignal() {
        try {
            return signal("0", ProcessHandle.current());
        } catch (java.io.IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    // kill -SIGNAL PID
    private static boolean signal(String signal, ProcessHandle p) throws java.io.IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).redirectErrorStream(true).start();
        return kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0;
    }

    /** Runs the relaxation of 20 iterations in process with checkpoints every {@code every} into {@code dir}; {@code kept}: the epochs left. */
    private void checkpointedRelaxation(int every, List<Long> kept) throws java.io.IOException {
        Cli first = Cli.execute("run", "--in-process", "--nodes", NODES, "--threads", "1", "--checkpoint-every", Integer.toString(every),
                "--checkpoint-dir", dir.toString(), RELAX, "20");
        assertEquals(0, first.exitCode(), first.toString());
        assertTrue(first.out().contains("checkpoints: every " + every + " global barriers into " + dir), first.toString());
        assertEquals(kept, CheckpointStore.epochs(dir));
    }

    @Test
    void restartFromADirectoryTakesTheNewestIntactCheckpointAndEndsWithTheSameResult() throws Exception {
        String expected = reference(RELAX, "20");
        checkpointedRelaxation(10, List.of(20L, 10L));
        Path damaged = CheckpointStore.epochDir(dir, 20).resolve(CheckpointStore.nodeFile(1));
        byte[] bytes = Files.readAllBytes(damaged);
        bytes[CheckpointStore.HEADER_BYTES + 40] ^= 0x10;
        Files.write(damaged, bytes);

        Cli cli = Cli.execute("run", "--restart-from", dir.toString(), "--timeout", "100");
        assertEquals(0, cli.exitCode(), cli.toString());
        assertTrue(cli.out().contains("epoch-20 refused: " + damaged + ": checksum mismatch"), cli.toString());
        assertTrue(cli.out().contains("restarting from " + CheckpointStore.epochDir(dir, 10) + ": " + RELAX + " 20 on 2 nodes x 1 threads"
                + " at epoch 10"), cli.toString());
        assertEquals(expected, result(cli));
    }

    @Test
    void aRestartInProcessResumesEveryNodeFromTheCheckpointAndGoesOnTakingCheckpoints() throws Exception {
        String expected = reference(RELAX, "20");
        checkpointedRelaxation(6, List.of(18L, 12L));
        Files.walk(CheckpointStore.epochDir(dir, 18)).sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        Path manifest12 = CheckpointStore.epochDir(dir, 12).resolve(CheckpointStore.MANIFEST);
        java.nio.file.attribute.FileTime written = Files.getLastModifiedTime(manifest12);

        Cli cli = Cli.execute("run", "--in-process", "--restart-from", dir.toString(), "--timeout", "60");
        assertEquals(0, cli.exitCode(), cli.toString());
        assertTrue(cli.out().contains("restarting from " + CheckpointStore.epochDir(dir, 12) + ": " + RELAX + " 20 on 2 nodes x 1 threads"
                + " at epoch 12"), cli.toString());
        assertEquals(expected, result(cli), "the resumed run's result is the uninterrupted one's");
        assertEquals(List.of(18L, 12L), CheckpointStore.epochs(dir), "the resumed run took epoch 18's checkpoint again");
        assertEquals(written, Files.getLastModifiedTime(manifest12), "resumed at epoch 12: its checkpoint was not written again");
    }

    @Test
    void checkpointsNotForcedToDiskAreTakenAndKeptAsForcedOnesAndARestartFromThemEndsWithTheSameResult() throws Exception {
        String expected = reference(RELAX, "20");
        Cli unforced = Cli.execute("run", "--in-process", "--nodes", NODES, "--threads", "1", "--checkpoint-every", "10", "--checkpoint-dir",
                dir.toString(), "--no-checkpoint-sync", RELAX, "20");
        assertEquals(0, unforced.exitCode(), unforced.toString());
        assertTrue(unforced.out().contains("checkpoint files are not forced to disk (--no-checkpoint-sync)"), unforced.toString());
        assertEquals(expected, result(unforced));
        assertEquals(List.of(20L, 10L), CheckpointStore.epochs(dir));
        assertTrue(CheckpointStore.isComplete(dir, 20) && CheckpointStore.isComplete(dir, 10));
        Files.walk(CheckpointStore.epochDir(dir, 20)).sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        Cli restarted = Cli.execute("run", "--in-process", "--restart-from", dir.toString(), "--timeout", "60");
        assertEquals(0, restarted.exitCode(), restarted.toString());
        assertTrue(restarted.out().contains("restarting from " + CheckpointStore.epochDir(dir, 10)), restarted.toString());
        assertEquals(expected, result(restarted));
        Cli forced = Cli.execute("run", "--in-process", "--nodes", NODES, "--threads", "1", "--checkpoint-every", "10",
                "--checkpoint-dir", dir.resolve("forced").toString(), RELAX, "20");
        assertEquals(0, forced.exitCode(), forced.toString());
        assertFalse(forced.out().contains("forced to disk"), "forcing is the default and goes unsaid: " + forced);

        Cli alone = Cli.execute("run", "--nodes", NODES, "--no-checkpoint-sync", RELAX, "10");
        assertEquals(DsaCli.EXIT_USAGE, alone.exitCode(), alone.toString());
        assertTrue(alone.err().contains("--no-checkpoint-sync needs --checkpoint-every N"), alone.toString());
    }

    @Test
    void checkpointsOfAProgramThatIsNotResumableAreRefusedNamingIt() {
        Cli cli = Cli.execute("run", "--nodes", "2", "--checkpoint-every", "5", "io.dsa.agent.faults.FaultPrograms$Churn");
        assertEquals(DsaCli.EXIT_USAGE, cli.exitCode(), cli.toString());
        assertTrue(cli.err().contains("program io.dsa.agent.faults.FaultPrograms$Churn is not resumable()"), cli.toString());
    }

    @Test
    void aCheckpointIntervalOutOfRangeIsRefusedWithTheRange() {
        Cli cli = Cli.execute("run", "--checkpoint-every", "-1", RELAX, "10");
        assertEquals(DsaCli.EXIT_USAGE, cli.exitCode(), cli.toString());
        assertTrue(cli.err().contains("--checkpoint-every"), cli.toString());
        assertTrue(cli.err().contains("-1"), cli.toString());
    }

    @Test
    void helpNamesEveryCheckpointOption() {
        Cli run = Cli.execute("run", "--help");
        for (String option : List.of("--checkpoint-every", "--checkpoint-dir", "--no-checkpoint-sync", "--restart-from", "--max-restarts")) {
            assertTrue(run.out().contains(option), option + " in:\n" + run.out());
        }
        Cli node = Cli.execute("node", "--help");
        assertTrue(node.out().contains(NodeCommand.RESTART_OPTION) && node.out().contains("--checkpoint-every"), node.out());
    }

    @Test
    void restartFromADirectoryWithoutACheckpointFailsSayingSo() {
        Cli cli = Cli.execute("run", "--restart-from", dir.toString());
        assertEquals(DsaCli.EXIT_FAILED, cli.exitCode(), cli.toString());
        assertTrue(cli.out().contains("result: FAILED: no complete checkpoint in " + dir), cli.toString());
    }
}
