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

/** The smoke run of {@code dsa bench checkpoint}: Jacobi without and with checkpoints, both verified, and its files. */
class CheckpointBenchSmokeTest {
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void checkpointSmokeRunsJacobiWithAndWithoutCheckpointsAndWritesItsTable(@TempDir Path out) throws Exception {
        CommandLine cli = DsaCli.commandLine();
        StringWriter err = new StringWriter();
        cli.setErr(new PrintWriter(err, true));
        assertEquals(0, cli.execute("bench", "checkpoint", "--smoke", "--out", out.toString()), err.toString());
        List<String> lines = Files.readAllLines(out.resolve("checkpoint.csv"));
        assertEquals("rep,checkpoints,run_ms,count,median_pause_ms,bytes", lines.get(0));
        assertEquals(3, lines.size(), lines.toString());
        String[] without = lines.get(1).split(",", -1);
        String[] with = lines.get(2).split(",", -1);
        assertEquals(List.of("0", "false", "0"), List.of(without[0], without[1], without[3]));
        // 61 global barriers (an initial one and 60 iterations), every 20: epochs 20, 40 and 60
        assertEquals(List.of("0", "true", "3"), List.of(with[0], with[1], with[3]));
        assertTrue(Long.parseLong(with[5]) > 2 * 64 * 64 * 8, "a checkpoint holds both 64x64 grids: " + with[5] + " bytes");
        assertTrue(Files.readString(out.resolve("checkpoint.md")).contains("Checkpoint overhead"));
        assertTrue(Files.exists(out.resolve("checkpoint.png")));
        assertTrue(Files.exists(out.resolve("checkpoints-0").resolve("epoch-60").resolve("manifest")));
    }
}
