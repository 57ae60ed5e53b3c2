package io.dsa.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.cli.DsaCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The smoke run of {@code dsa bench checkpoint}: Jacobi without and with checkpoints (forced to disk, and not) and with a node
 * killed, all verified, and its files. No randomness: the kill comes after the first complete checkpoint.
 */
class CheckpointBenchSmokeTest {
    @org.junit.jupiter.api.BeforeAll
    static void sayThereIsNoSeed() {
        System.out.println("CheckpointBenchSmokeTest: no randomness (the kill comes after the first complete checkpoint)");
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void checkpointSmokeRunsJacobiWithAndWithoutCheckpointsAndWithANodeKilledAndWritesItsTable(@TempDir Path out) throws Exception {
        CommandLine cli = DsaCli.commandLine();
        StringWriter err = new StringWriter();
        cli.setErr(new PrintWriter(err, true));
        assertEquals(0, cli.execute("bench", "checkpoint", "--smoke", "--kill-node", "1", "--unforced", "--out", out.toString()), err.toString());
        List<String> lines = Files.readAllLines(out.resolve("checkpoint.csv"));
        assertEquals("rep,checkpoints,run_ms,count,median_pause_ms,bytes,killed,recovery_ms,wall_ms,median_commit_ms,forced", lines.get(0));
        assertEquals(5, lines.size(), lines.toString());
        String[] without = lines.get(1).split(",", -1);
        String[] with = lines.get(2).split(",", -1);
        String[] unforced = lines.get(3).split(",", -1);
        String[] killed = lines.get(4).split(",", -1);
        assertEquals(List.of("0", "false", "0", "false", "", ""), List.of(without[0], without[1], without[3], without[6], without[7],
                without[10]));
        // 151 global barriers (an initial one and 150 iterations), every 10: epochs 10, 20, .., 150
        assertEquals(List.of("0", "true", "15", "false", "true"), List.of(with[0], with[1], with[3], with[6], with[10]));
        assertEquals(List.of("0", "true", "15", "false", "false", with[5]), List.of(unforced[0], unforced[1], unforced[3], unforced[6],
                unforced[10], unforced[5]));
        assertTrue(Long.parseLong(with[5]) > 2 * 64 * 64 * 8, "a checkpoint holds both 64x64 grids: " + with[5] + " bytes");
        // the workers wait only for the copies in memory; the commit, from the same safe point, comes after the files are written
        assertTrue(Double.parseDouble(with[9]) >= Double.parseDouble(with[4]), "median ms to commit " + with[9] + " < median pause " + with[4]);
        // the killed run restarted from a checkpoint (the restarted VM checkpoints from there on) and ended verified
        assertEquals(List.of("0", "true", "true"), List.of(killed[0], killed[1], killed[6]));
        assertTrue(Double.parseDouble(killed[7]) > 0, "recovery time " + killed[7]);
        assertTrue(Double.parseDouble(killed[8]) > Double.parseDouble(killed[7]), "the wall time holds the recovery: " + lines.get(4));
        String table = Files.readString(out.resolve("checkpoint.md"));
        assertTrue(table.contains("Checkpoint overhead") && table.contains("node 1 killed") && table.contains("not forced to disk"), table);
        assertTrue(Files.exists(out.resolve("checkpoint.png")));
        assertTrue(Files.exists(out.resolve("checkpoints-0").resolve("epoch-150").resolve("manifest")));
        assertTrue(Files.exists(out.resolve("unforced-0").resolve("epoch-150").resolve("manifest")));
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aKillNodeOutOfRangeIsRefusedWithTheRange(@TempDir Path out) {
        CommandLine cli = DsaCli.commandLine();
        StringWriter err = new StringWriter();
        cli.setErr(new PrintWriter(err, true));
        assertEquals(2, cli.execute("bench", "checkpoint", "--nodes", "3", "--kill-node", "3", "--out", out.toString()));
        assertTrue(err.toString().contains("--kill-node 3 out of range [1, 2]"), err.toString());
    }
}
