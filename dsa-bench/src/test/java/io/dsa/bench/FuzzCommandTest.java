package io.dsa.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.cli.DsaCli;
import io.dsa.bench.fuzz.FuzzTarget;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code dsa bench fuzz --smoke} through the real {@code dsa} command line, in the build's
 * {@code fuzz} execution: two targets (one through a Netty pipeline, one plain codec) fuzzed for a
 * few thousand inputs by Jazzer in their own JVMs. Each JVM takes seconds to start Jazzer, so the
 * other targets are left to {@link io.dsa.bench.fuzz.DecoderFuzzTest}'s regression runs here.
 */
@Tag("jazzer")
class FuzzCommandTest {
    private final StringWriter out = new StringWriter();

    private int dsa(String... args) {
        CommandLine cli = DsaCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        StringWriter err = new StringWriter();
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(args);
        if (code != 0) System.err.println(out + "\n" + err);
        return code;
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void smokeFuzzesTargetsAndWritesTheTable(@TempDir Path dir) throws Exception {
        Path results = dir.resolve("results");
        Path work = dir.resolve("work");
        // an earlier run's finding (here: the input a killed run left) is kept but is not this run's
        Files.createDirectories(work.resolve("job-codec/findings"));
        Files.write(work.resolve("job-codec/findings/crash-left-by-an-earlier-run"), new byte[] {2});
        assertEquals(0, dsa("bench", "fuzz", "--smoke", "--targets", "frames,job-codec", "--out", results.toString(),
                "--work", work.toString()));

        List<String> csv = Files.readAllLines(results.resolve("fuzz.csv"));
        assertEquals("target,inputs,seconds,execs_per_s,crashes,leaks,corpus_units,coverage,features", csv.get(0));
        List<FuzzTarget> targets = List.of(FuzzTarget.FRAMES, FuzzTarget.JOB_CODEC);
        assertEquals(targets.size(), csv.size() - 1);
        for (int i = 0; i < targets.size(); i++) {
            String[] row = csv.get(i + 1).split(",");
            FuzzTarget t = targets.get(i);
            assertEquals(t.id(), row[0]);
            assertEquals(FuzzCommand.SMOKE_INPUTS, Long.parseLong(row[1]), t.id() + " ran every input");
            assertTrue(Long.parseLong(row[3]) > 0, t.id() + " execs/s");
            assertEquals("0", row[4], t.id() + " crashes");
            assertEquals("0", row[5], t.id() + " leaks");
            assertTrue(Long.parseLong(row[6]) >= 1 && Long.parseLong(row[7]) > 0, t.id() + " corpus and coverage");
            try (var seeds = Files.list(work.resolve(t.id()).resolve("corpus"))) {
                assertTrue(seeds.count() >= t.seeds().size(), t.id() + " corpus holds at least the seeds");
            }
        }
        String md = Files.readString(results.resolve("fuzz.md"));
        assertTrue(md.contains("| target | decoder | inputs | time (s) | execs/s | findings |"), md);
        assertTrue(md.contains("| frames | `FrameDecoderFuzzer` | 2,000 |"), md);
        assertTrue(Files.size(results.resolve("fuzz.png")) > 1000);
        assertTrue(out.toString().contains("execs/s"), "progress lines: " + out);
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void anUnknownTargetIsAUsageErrorNamingTheKnownOnes(@TempDir Path dir) {
        StringWriter err = new StringWriter();
        CommandLine cli = DsaCli.commandLine();
        cli.setErr(new PrintWriter(err, true));
        assertEquals(CommandLine.ExitCode.USAGE, cli.execute("bench", "fuzz", "--targets", "frames,nope", "--out", dir.toString()));
        assertTrue(err.toString().contains("no fuzz target 'nope'; known: [records, frames, pre-auth-frames,"), err.toString());
        assertEquals(0, dsa("bench", "fuzz", "--help"));
    }
}
