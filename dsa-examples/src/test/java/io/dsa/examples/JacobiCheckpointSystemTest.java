package io.dsa.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.checkpoint.CheckpointStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jacobi (resumable, and checked bitwise against the sequential iteration by the program itself)
 * under {@code dsa run --checkpoint-every}: a node process killed by PID once a checkpoint is
 * complete, and the whole VM restarted from it by the launcher; then {@code --restart-from} of the
 * directory left. The report line (grid, iterations, "bitwise equal to sequential", residual) must
 * be the uninterrupted run's; only the time at its end differs. The killed run is
 * {@link TestPrograms.HeldJacobi}, which holds node 0 at epoch 20 until the test lets it go on, so
 * the kill lands mid-run with 40 iterations; 2 nodes, so that each run starts one node process. No
 * randomness: the kill comes after the first complete checkpoint.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class JacobiCheckpointSystemTest {
    /** Grid side, iterations (checkpoints every 10: the last at epoch 40), rows per partition. */
    private static final List<String> SIZE = List.of("96", "40", "16");
    private static final String HELD = TestPrograms.HeldJacobi.class.getName();

    @TempDir
    Path dir;

    /** @return Jacobi's report line up to its timing: {@code ... bitwise equal to sequential (verified, ...), residual R} */
    private static String result(DsaCommand run) {
        String line = run.out().lines().filter(l -> l.startsWith("node 0: jacobi ")).findFirst()
                .orElseThrow(() -> new AssertionError(run));
        return line.substring(0, line.indexOf(", iterations "));
    }

    private static String[] args(String program, String... options) {
        List<String> all = new java.util.ArrayList<>(List.of(options));
        all.add(program);
        all.addAll(SIZE);
        return all.toArray(new String[0]);
    }

    @Test
    void aJacobiNodeKilledMidRunIsSurvivedWithTheUninterruptedResultAndTheDirectoryRestartsToo() throws Exception {
        System.out.println("JacobiCheckpointSystemTest: no randomness (the kill comes after the first complete checkpoint)");
        // beside the killed run (it starts no process): the plain program, whose result the held one must give
        CompletableFuture<DsaCommand> uninterrupted = CompletableFuture.supplyAsync(() -> DsaCommand.execute(args("jacobi", "run",
                "--in-process", "--nodes", "2", "--threads", "1")));
        TestPrograms.HeldJacobi.release = new CountDownLatch(1);
        CompletableFuture<DsaCommand> run = CompletableFuture.supplyAsync(() -> DsaCommand.execute(args(HELD, "run", "--nodes", "2",
                "--threads", "1", "--timeout", "250", "--checkpoint-every", "10", "--checkpoint-dir", dir.toString())));
        ProcessHandle victim;
        try {
            awaitACheckpoint(run);
            assertTrue(!run.isDone(), () -> "the run ended before its first checkpoint: " + run.join());
            victim = DsaCommand.liveNodeProcesses().get(0);
            victim.destroyForcibly();   // SIGKILL, by PID
        } finally {
            TestPrograms.HeldJacobi.release.countDown();   // the restarted VM runs to the end
        }
        DsaCommand survived = run.get(250, TimeUnit.SECONDS);
        DsaCommand reference = uninterrupted.get(250, TimeUnit.SECONDS);
        assertEquals(0, reference.exitCode(), reference.toString());
        System.out.println("JacobiCheckpointSystemTest: node process " + victim.pid() + " killed; "
                + survived.out().lines().filter(l -> l.startsWith("recovered") || l.startsWith("every node") || l.startsWith("run:")).toList());
        assertEquals(0, survived.exitCode(), survived.toString());
        assertTrue(survived.out().contains("restarting the VM from " + dir), survived.toString());
        assertTrue(survived.out().contains("result: OK"), survived.toString());
        assertEquals(result(reference), result(survived));
        assertEquals(List.of(), DsaCommand.liveNodeProcesses(), "every node process ended");

        DsaCommand restarted = DsaCommand.execute("run", "--restart-from", dir.toString(), "--timeout", "200");
        assertEquals(0, restarted.exitCode(), restarted.toString());
        assertTrue(restarted.out().contains("restarting from " + CheckpointStore.epochDir(dir, 40)), restarted.toString());
        assertEquals(result(reference), result(restarted));
    }

    /**
     * Waits up to 120 s for a complete checkpoint in {@code dir} (a manifest in an epoch's directory,
     * written by the node processes) or the end of {@code run}: a WatchService on {@code dir} and
     * the epochs' directories wakes it at each change, and the run's end closes the WatchService.
     */
    private void awaitACheckpoint(CompletableFuture<?> run) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        try (WatchService changes = dir.getFileSystem().newWatchService()) {
            run.whenComplete((result, failure) -> {
                try {
                    changes.close();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            while (true) {
                // the directories registered before the check: a checkpoint completed after it wakes the wait
                dir.register(changes, StandardWatchEventKinds.ENTRY_CREATE);
                for (Path epoch : epochDirectories()) {
                    try {
                        epoch.register(changes, StandardWatchEventKinds.ENTRY_CREATE);
                    } catch (NoSuchFileException e) {
                        // an old epoch deleted since the listing
                    }
                }
                if (CheckpointStore.anyComplete(dir)) return;
                WatchKey change = changes.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (change == null) throw new AssertionError("a complete checkpoint in " + dir + " did not appear within 120 s");
                change.pollEvents();
                change.reset();
            }
        } catch (ClosedWatchServiceException e) {
            // the run ended: the caller says so
        }
    }

    private List<Path> epochDirectories() throws IOException {
        try (var entries = Files.list(dir)) {
            return entries.filter(Files::isDirectory).toList();
        }
    }
}
