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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jacobi (resumable, and checked bitwise against the sequential iteration by the program itself)
 * under {@code dsa run --checkpoint-every}: a node process killed by PID once a checkpoint is
 * complete, and the whole VM restarted from it by the launcher; then {@code --restart-from} of the
 * directory left. The report line (grid, iterations, "bitwise equal to sequential", residual) must
 * be the uninterrupted run's; only the time at its end differs.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class JacobiCheckpointSystemTest {
    private static final List<String> JACOBI = List.of("jacobi", "96", "600", "16");

    @TempDir
    Path dir;

    /** @return Jacobi's report line up to its timing: {@code ... bitwise equal to sequential (verified, ...), residual R} */
    private static String result(DsaCommand run) {
        String line = run.out().lines().filter(l -> l.startsWith("node 0: jacobi ")).findFirst()
                .orElseThrow(() -> new AssertionError(run));
        return line.substring(0, line.indexOf(", iterations "));
    }

    private static String[] args(String... options) {
        List<String> all = new java.util.ArrayList<>(List.of(options));
        all.addAll(JACOBI);
        return all.toArray(new String[0]);
    }

    @Test
    void aJacobiNodeKilledMidRunIsSurvivedWithTheUninterruptedResultAndTheDirectoryRestartsToo() throws Exception {
        DsaCommand reference = DsaCommand.execute(args("run", "--in-process", "--nodes", "3", "--threads", "1"));
        assertEquals(0, reference.exitCode(), reference.toString());

        CompletableFuture<DsaCommand> run = CompletableFuture.supplyAsync(() -> DsaCommand.execute(args("run", "--nodes", "3",
                "--threads", "1", "--timeout", "250", "--checkpoint-every", "20", "--checkpoint-dir",
                dir.toString())));
        awaitACheckpoint(run);
        assertTrue(!run.isDone(), () -> "the run ended before its first checkpoint: " + run.join());
        ProcessHandle victim = DsaCommand.liveNodeProcesses().get(0);
        victim.destroyForcibly();   // SIGKILL, by PID
        DsaCommand survived = run.get(250, TimeUnit.SECONDS);
        System.out.println("JacobiCheckpointSystemTest: node process " + victim.pid() + " killed; "
                + survived.out().lines().filter(l -> l.startsWith("recovered") || l.startsWith("every node") || l.startsWith("run:")).toList());
        assertEquals(0, survived.exitCode(), survived.toString());
        assertTrue(survived.out().contains("restarting the VM from " + dir), survived.toString());
        assertTrue(survived.out().contains("result: OK"), survived.toString());
        assertEquals(result(reference), result(survived));
        assertEquals(List.of(), DsaCommand.liveNodeProcesses(), "every node process ended");

        DsaCommand restarted = DsaCommand.execute("run", "--restart-from", dir.toString(), "--timeout", "200");
        assertEquals(0, restarted.exitCode(), restarted.toString());
        assertTrue(restarted.out().contains("restarting from " + CheckpointStore.epochDir(dir, 600)), restarted.toString());
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
