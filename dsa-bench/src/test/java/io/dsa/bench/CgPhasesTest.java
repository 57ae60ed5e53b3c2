package io.dsa.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code dsa bench cg --phases}: the summary's arithmetic on timings made up for it, and a smoke run on a real VM. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CgPhasesTest {
    @AfterEach
    void clear() { CgPhases.RESULTS.clear(); }

    // worker w's timings: phase x of step s takes (x + 1) * 1000 + s ns; round rd's arrival at 10^6 s + 10^4 rd + 100 w,
    // its return 5,000 ns after the last worker's arrival plus 1,000 ns per worker id
    private static long[][] made(int w, int workers, int steps) {
        int phases = CgPhases.PHASES.size();
        long[][] t = new long[phases + 2 * CgPhases.ROUNDS.size()][steps];
        for (int s = 0; s < steps; s++) {
            for (int x = 0; x < phases; x++) t[x][s] = (x + 1) * 1000L + s;
            for (int rd = 0; rd < CgPhases.ROUNDS.size(); rd++) {
                long base = 1_000_000L * s + 10_000L * rd;
                t[phases + 2 * rd][s] = base + 100L * w;
                t[phases + 2 * rd + 1][s] = base + 100L * (workers - 1) + 5_000 + 1_000L * w;
            }
        }
        return t;
    }

    @Test
    void summarisesEachNodesFirstWorkerOverTheLaterStepsAndTheReleaseAfterTheLastArrival() {
        int nodes = 2, threads = 2, steps = 8;
        for (int w = 0; w < nodes * threads; w++) CgPhases.RESULTS.put(w, made(w, nodes * threads, steps));
        double[][] rows = CgPhases.summary(nodes, threads);
        assertEquals(nodes, rows.length);
        for (int n = 0; n < nodes; n++) {
            // steps 2..7 (the later three quarters): phase x takes (x + 1) us + s ns, median at s = 4.5
            double sum = 0;
            for (int x = 0; x < CgPhases.PHASES.size(); x++) {
                assertEquals((x + 1) + 0.0045, rows[n][x], 1e-9, "node " + n + " phase " + x);
                sum += rows[n][x];
            }
            assertEquals(sum, rows[n][CgPhases.PHASES.size()], 1e-9, "the step is the phases' sum");
            double[] releases = java.util.Arrays.copyOfRange(rows[n], CgPhases.PHASES.size() + 1, CgPhases.PHASES.size() + 1 + CgPhases.ROUNDS.size());
            double expected = 5 + n * threads; // node n's first worker is worker n * threads
            assertArrayEquals(new double[] {expected, expected, expected}, releases, 1e-9, "node " + n);
        }
    }

    @Test
    void theWholeStepsMeanPercentileAndMaximumCountTheStepsThatStall() {
        int nodes = 2, threads = 1, steps = 40;
        for (int w = 0; w < nodes; w++) CgPhases.RESULTS.put(w, made(w, nodes, steps));
        CgPhases.RESULTS.get(1)[0][30] += 1_000_000;   // node 1's step 30 stalls 1 ms in its first phase
        double[][] rows = CgPhases.summary(nodes, threads);
        int at = CgPhases.PHASES.size() + 1 + CgPhases.ROUNDS.size();
        assertEquals(at + CgPhases.STEP_SPREAD.size(), rows[0].length);
        // steps 10..39; a whole step is the phases' sum, 36,000 + 8 s ns
        assertArrayEquals(new double[] {36.196, 36.288, 36.312}, java.util.Arrays.copyOfRange(rows[0], at, at + 3), 1e-9, "node 0");
        // node 1: the stalled step (1,036.240 us) is the maximum, lifts the mean by 1,000 / 30 us and the 90th percentile one rank
        assertArrayEquals(new double[] {36.196 + 1000.0 / 30, 36.296, 1036.24}, java.util.Arrays.copyOfRange(rows[1], at, at + 3), 1e-9,
                "node 1");
        assertEquals(rows[0][0], rows[1][0], 1e-9, "a stall in one step leaves the phase's median alone");
    }

    @Test
    void aWorkerWithoutTimingsIsNamed() {
        CgPhases.RESULTS.put(0, made(0, 2, 4));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> CgPhases.summary(2, 1));
        assertTrue(e.getMessage().contains("worker 1 of 2"), e.getMessage());
    }

    @Test
    void smokeRunTimesEveryPhaseOnEveryNode(@TempDir Path out) throws Exception {
        assertEquals(0, io.dsa.agent.cli.DsaCli.commandLine().execute("bench", "cg", "--smoke", "--no-mpi", "--phases", "--out", out.toString()));
        List<String> lines = Files.readAllLines(out.resolve("cg-phases.csv"));
        assertTrue(lines.get(0).startsWith("class,nodes,threads,wait,node,phase1_us"), lines.get(0));
        assertEquals(3, lines.size(), "a row per node of the 2x1 VM: " + lines);
        for (String line : lines.subList(1, 3)) {
            String[] f = line.split(",");
            assertEquals(List.of("S", "2", "1", "ADAPTIVE"), List.of(f[0], f[1], f[2], f[3]));
            double sum = 0;
            for (int x = 0; x < CgPhases.PHASES.size(); x++) {
                double v = Double.parseDouble(f[5 + x]);
                assertTrue(v >= 0 && v < 1e6, "phase " + (x + 1) + " of " + line);
                sum += v;
            }
            assertEquals(sum, Double.parseDouble(f[5 + CgPhases.PHASES.size()]), 0.1 * CgPhases.PHASES.size() + 1e-9, line);
            assertTrue(sum > 0, "a step takes time: " + line);
        }
        String md = Files.readString(out.resolve("cg-phases.md"));
        assertTrue(md.contains("release of barrier after the last arrival") && md.contains("| step max |") && md.contains("| S 2x1 ADAPTIVE | 1 |"), md);
        for (String line : lines.subList(1, 3)) {
            String[] f = line.split(",");
            double p90 = Double.parseDouble(f[f.length - 2]);
            double max = Double.parseDouble(f[f.length - 1]);
            assertTrue(p90 <= max && max > 0, "the 90th percentile is at most the longest step: " + line);
        }
    }
}
