package io.dsa.bench;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.cli.DsaCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code dsa bench scopes} through the real {@code dsa} command line: a {@code --smoke} run of every example but cg writes,
 * for every example, a sequential row, a plain and a scoped DSA row, each also warm, and the
 * scoped example run twice in one job (each DSA run passed the example's check) and the MPI + C rows where a peer exists (lu, mm2, fft) and Open MPI is installed, the JMH
 * kernel pairs, the PNG and the Markdown with the target lines; bad options are usage errors.
 */
class ScopesSmokeTest {
    private static int dsa(StringWriter err, String... args) {
        CommandLine cli = DsaCli.commandLine();
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void helpAndBadOptions() {
        StringWriter err = new StringWriter();
        assertEquals(0, dsa(err, "bench", "scopes", "--help"));
        assertEquals(CommandLine.ExitCode.USAGE, dsa(err, "bench", "scopes", "--examples", "tsp", "--no-jmh"));
        assertTrue(err.toString().contains("--examples: 'tsp' unknown, expected some of [jacobi, lu, mm2, cg, fft, psrs]"), err.toString());
        assertEquals(CommandLine.ExitCode.USAGE, dsa(err, "bench", "scopes", "--examples", "lu", "--lu", "100,64", "--no-jmh"));
        assertTrue(err.toString().contains("--lu: block 64 must divide 100"), err.toString());
        assertEquals(CommandLine.ExitCode.USAGE, dsa(err, "bench", "scopes", "--examples", "jacobi", "--jacobi", "64,5"));
        assertTrue(err.toString().contains("--jacobi: [64, 5] has 2 values, expected 3"), err.toString());
        assertEquals(CommandLine.ExitCode.USAGE, dsa(err, "bench", "scopes", "--runs", "0"));
        assertTrue(err.toString().contains("--runs: 0 not >= 1"), err.toString());
        assertEquals(CommandLine.ExitCode.USAGE, dsa(err, "bench", "scopes", "--job-runs", "101"));
        assertTrue(err.toString().contains("--job-runs 101 out of range [0, 100]"), err.toString());
    }

    @Test
    @Timeout(value = 400, unit = TimeUnit.SECONDS)
    void smokeRunsEveryExamplePlainAndScopedBesideSequentialMpiAndTheKernels(@TempDir Path out) throws Exception {
        String c = Path.of("src/main/c").toAbsolutePath().toString();
        boolean mpi = BarrierBench.onPath("mpicc") && BarrierBench.onPath("mpirun");
        StringWriter err = new StringWriter();
        // every example but cg, whose class S is the smallest NPB defines and costs a third of the whole smoke run; cg's
        // bench rows are BenchSmokeTest's, its scoped run ScopedExamplesTest's
        List<String> examples = List.of("jacobi", "lu", "mm2", "fft", "psrs");
        assertEquals(0, dsa(err, "bench", "scopes", "--smoke", "--examples", String.join(",", examples), "--out", out.toString(),
                "--c-src", c, "--label", "smoke"), err.toString());

        List<String> lines = Files.readAllLines(out.resolve("scopes.csv"));
        assertEquals(ScopesCommand.CSV_HEADER, lines.get(0));
        List<String> expected = new ArrayList<>();
        for (String e : examples) {
            expected.add(e + ",seq,1,1");
            expected.add(e + ",plain,2,1");
            expected.add(e + ",plain-warm,2,1");
            expected.add(e + ",scoped,2,1");
            expected.add(e + ",scoped-warm,2,1");
            if (!e.equals("lu")) expected.add(e + ",scoped-job,2,1");   // lu-scoped resumes from the epoch: not run twice in a job
            if (mpi && (e.equals("lu") || e.equals("mm2") || e.equals("fft"))) expected.add(e + ",mpi,2,1");
        }
        List<String[]> rows = lines.subList(1, lines.size()).stream().map(l -> l.split(",", -1)).toList();
        assertEquals(expected, rows.stream().map(r -> String.join(",", r[0], r[1], r[2], r[3])).toList());
        for (String[] r : rows) {
            double s = Double.parseDouble(r[4]);
            assertTrue(s > 0 && s < 60, "seconds plausible: " + String.join(",", r));
            if (r[1].equals("seq")) assertEquals("1.000", r[5], "the sequential row is the baseline");
        }

        List<String> kernels = Files.readAllLines(out.resolve("scopes-kernels.csv"));
        assertEquals(ScopesCommand.KERNELS_HEADER, kernels.get(0));
        assertEquals(List.of("jacobiSweep", "luUpdate"), kernels.subList(1, kernels.size()).stream().map(l -> l.split(",")[0]).sorted().toList());
        for (String k : kernels.subList(1, kernels.size())) {
            String[] v = k.split(",");
            assertTrue(Double.parseDouble(v[1]) > 0 && Double.parseDouble(v[3]) > 0, "kernel times measured: " + k);
        }

        assertTrue(Files.size(out.resolve("scopes.png")) > 1000);
        String md = Files.readString(out.resolve("scopes.md"));
        assertTrue(md.contains("**smoke.**"), md);
        assertTrue(md.contains("| mm2 | DSA 2x1 scoped | 2 | 1 |"), md);
        assertTrue(md.contains("mm2, DSA 2x1 scoped vs sequential Java (faster than it)"), md);
        assertTrue(md.contains("psrs, DSA 2x1 scoped vs sequential Java (faster than it)"), md);
        assertTrue(md.contains("psrs, DSA 2x1 warm scoped vs sequential Java (faster than it)"), md);
        assertTrue(md.contains("| psrs | DSA 2x1 scoped-warm | 2 | 1 |"), md);
        assertTrue(md.contains("kernel jacobiSweep on a scope's arrays vs the same loop on plain double[]s (JMH)"), md);
        assertTrue(md.contains("kernel luUpdate on a scope's arrays"), md);
        assertFalse(md.contains("| cg |"), "cg was not asked for: " + md);
        if (mpi) assertTrue(md.contains("fft, DSA 2x1 scoped vs MPI + C np=2"), md);
        if (mpi) assertTrue(md.contains("fft, DSA 2x1 warm scoped vs MPI + C np=2"), md);
        if (mpi) assertTrue(md.contains("mm2, DSA 2x1 scoped vs MPI + C np=2"), md);
    }
}
