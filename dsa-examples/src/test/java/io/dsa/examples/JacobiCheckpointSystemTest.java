package io.dsa.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.checkpoint.CheckpointStore;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
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
        await("a complete checkpoint in " + dir, () -> run.isDone() || CheckpointStore.anyComplete(dir));
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

    // Waits for another process to make `condition` true (it offers nothing to wait on), up to 120 s.
    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError(what + " did not happen within 120 s");
            Thread.sleep(2);
        }
    }
}
