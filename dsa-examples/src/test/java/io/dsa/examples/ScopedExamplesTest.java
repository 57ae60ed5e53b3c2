package io.dsa.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.DsaProgram;
import io.dsa.agent.DsaCluster;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.RunReport;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The examples' scoped versions ({@code jacobi-scoped}, {@code lu-scoped}, {@code mm2-scoped},
 * {@code cg-scoped}, {@code fft-scoped}, {@code psrs-scoped}) on the real runtime at small sizes: each passes its own
 * self-check (bitwise against sequential, the LU residual, exact integers, NPB's zeta, the FFT
 * against sequential, the DFT and its inverse, PSRS against a sequential sort) on VMs with several threads
 * per node and with ragged partitions, and a corrupted result still fails it.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ScopedExamplesTest {
    private static RunReport run(int nodes, int threads, DsaProgram program, String... args) {
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(nodes).threadsPerNode(threads).build())) {
            return cluster.run(program, args);
        }
    }

    private static String only(RunReport report) {
        assertEquals(1, report.lines().size(), report.lines().toString());
        return report.lines().get(0);
    }

    @Test
    void jacobiScopedIsBitwiseTheSequentialIteration() {
        String line = only(run(2, 2, new Jacobi.Scoped(), "64", "30", "8"));
        assertTrue(line.matches("node 0: jacobi 64x64, 30 iterations, partitions 8x64, scoped \\(owner computes, read cache of rows and halo"
                + "\\): bitwise equal to sequential \\(verified, max difference 0\\), residual [0-9.e+-]+, iterations [0-9.]+ s"),
                line);
    }

    @Test
    void jacobiScopedWithPartitionsOfOneRowAndRaggedOnes() {
        // one-row partitions: every row's neighbours are halo rows; 50 rows of 7: a ragged last partition
        assertTrue(only(run(2, 1, new Jacobi.Scoped(), "20", "9", "1")).contains("bitwise equal to sequential (verified"));
        assertTrue(only(run(3, 1, new Jacobi.Scoped(), "50", "21", "7")).contains("bitwise equal to sequential (verified"));
    }

    @Test
    void jacobiScopedAndPlainEndWithTheSameGrid() throws Exception {
        CompletableFuture<double[]> plain = new CompletableFuture<>();
        CompletableFuture<double[]> scoped = new CompletableFuture<>();
        run(2, 2, new Jacobi().captureResult(plain), "40", "12", "4");
        run(2, 2, new Jacobi.Scoped().captureResult(scoped), "40", "12", "4");
        assertTrue(java.util.Arrays.equals(plain.get(), scoped.get()), "scoped and plain grids differ");
    }

    /** The scope switches ride on rounds the program needs anyway: one round per sweep, as the plain version's barrier. */
    @Test
    void jacobiScopedCostsTheGlobalRoundsOfThePlainVersion() {
        Jacobi plain = new Jacobi();
        Jacobi scoped = new Jacobi.Scoped();
        run(2, 2, plain, "40", "12", "4");
        run(2, 2, scoped, "40", "12", "4");
        assertEquals(13, plain.rounds, "plain: the first barrier and one per sweep");
        assertEquals(plain.rounds, scoped.rounds, "scoped: the opening, a switch per sweep but the last, the closing");
    }

    @Test
    void jacobiScopedCheckCatchesAWrongElement() {
        DsaException e = assertThrows(DsaException.class, () -> run(2, 2, new Jacobi.Scoped().corruptBeforeCheck(20, 33, 1e-12),
                "40", "10", "8"));
        assertTrue(String.valueOf(e.getMessage()).contains("jacobi: u[20][33] = "), String.valueOf(e));
    }

    @Test
    void luScopedFactorsWithinTheTolerance() {
        String line = only(run(2, 2, new Lu.Scoped(), "96", "16"));
        assertTrue(line.matches("node 0: lu 96x96, blocks 16x16 BLOCK_CYCLIC, scoped \\(owner-computes trailing update, panels by"
                + " plain reads\\): \\|\\|L\\*U - A\\|\\|/\\|\\|A\\|\\| = [0-9.e+-]+ \\(verified, < 1e-09\\), factorisation [0-9.]+ s"),
                line);
        assertTrue(only(run(4, 1, new Lu.Scoped(), "70", "8")).contains("(verified, < 1e-09)"));
    }

    @Test
    void luScopedGivesTheFactorsOfThePlainVersion() throws Exception {
        CompletableFuture<double[]> plain = new CompletableFuture<>();
        CompletableFuture<double[]> scoped = new CompletableFuture<>();
        run(2, 1, new Lu().captureResult(plain), "64", "16");
        run(2, 1, new Lu.Scoped().captureResult(scoped), "64", "16");
        // the same kernels on the same blocks in the same order: bitwise the same factors
        assertTrue(java.util.Arrays.equals(plain.get(), scoped.get()), "scoped and plain factors differ");
    }

    @Test
    void luScopedCheckCatchesAWrongFactor() {
        DsaException e = assertThrows(DsaException.class, () -> run(2, 2, new Lu.Scoped().corruptBeforeCheck(40, 7, 1e-3), "64", "16"));
        assertTrue(String.valueOf(e.getMessage()).contains("lu: (L*U)[40][7] = "), String.valueOf(e));
    }

    @Test
    void mm2ScopedIsExact() {
        String line = only(run(2, 2, new Mm2.Scoped(), "64", "16", "7"));
        assertTrue(line.matches("node 0: mm2 64x64 scoped \\(read caches, owner computes\\): P = Q\\*R, R = Q\\*P, sum of R = -?[0-9]+"
                + " \\(verified against sequential\\), compute [0-9.]+ ms"), line);
        // the same sum as the plain version's
        String plain = only(run(2, 2, new Mm2(), "64", "16", "7"));
        assertEquals(plain.replaceAll(".*sum of R = (-?[0-9]+).*", "$1"), line.replaceAll(".*sum of R = (-?[0-9]+).*", "$1"));
        assertTrue(only(run(3, 1, new Mm2.Scoped(), "50", "7")).contains("(verified against sequential)"));
    }

    @Test
    void mm2ScopedCheckCatchesAWrongElement() {
        Mm2 program = new Mm2.Scoped();
        program.corruptBeforeCheck = true;
        DsaException e = assertThrows(DsaException.class, () -> run(2, 2, program, "32", "8"));
        assertTrue(String.valueOf(e.getMessage()).matches("(?s).*mm2: R\\[16\\]\\[0\\] = -?[0-9]+, expected -?[0-9]+ .*"),
                String.valueOf(e));
    }

    @Test
    void cgScopedVerifiesAgainstNpbsZeta() {
        String line = only(run(2, 1, new Cg.Scoped()));
        assertTrue(line.matches("node 0: NPB CG class S \\(na=1400, nonzer=7, niter=15\\): zeta = 8\\.59717750786[0-9]+,"
                + " expected 8\\.5971775078648, relative error [0-9.e-]+ <= 1e-10 \\(verified\\), rnorm [0-9.e-]+,"
                + " 15 iterations [0-9.]+ s, 2 nodes x 1 threads, partitions of 700, scoped \\(owner computes, release and read cache of r, p at every worker\\)"),
                line);
        // several partitions per worker, homed round the nodes, and a ragged last one
        String ragged = only(run(2, 2, new Cg.Scoped(), "S", "150"));
        assertTrue(ragged.contains("(verified)") && ragged.contains("partitions of 150"), ragged);
        assertFalse(ragged.contains("NOT verified"), ragged);
    }

    /**
     * cg-scoped does cg's arithmetic: with the default partitions (each worker's rows one
     * partition, summed in the same order) p computed at every worker instead of exchanged gives
     * bitwise the same zeta and rnorm, on 2 x 1 and 2 x 2.
     */
    @Test
    void cgScopedAndPlainEndWithBitwiseTheSameZetaAndRnorm() throws Exception {
        for (String partition : new String[] {"700", "350"}) {
            java.util.concurrent.CompletableFuture<double[]> plain = new java.util.concurrent.CompletableFuture<>();
            java.util.concurrent.CompletableFuture<double[]> scoped = new java.util.concurrent.CompletableFuture<>();
            int threads = partition.equals("700") ? 1 : 2;
            run(2, threads, new Cg().captureResult(plain), "S", partition);
            run(2, threads, new Cg.Scoped().captureResult(scoped), "S", partition);
            double[] a = plain.get();
            double[] b = scoped.get();
            assertEquals(Double.doubleToRawLongBits(a[0]), Double.doubleToRawLongBits(b[0]), "zeta, partitions of " + partition);
            assertEquals(Double.doubleToRawLongBits(a[1]), Double.doubleToRawLongBits(b[1]), "rnorm, partitions of " + partition);
        }
    }

    /**
     * A CG step's scope switches ride on its two reductions, and p is computed by every worker
     * instead of exchanged: 52 global rounds per outer iteration, where the plain version takes 76.
     */
    @Test
    void cgScopedCostsTwoGlobalRoundsPerStep() {
        Cg plain = new Cg();
        Cg scoped = new Cg.Scoped();
        run(2, 1, plain);
        run(2, 1, scoped);
        assertEquals(76, plain.roundsOfFirstIteration, "plain: rho, 25 steps of 3 rounds but the last one's barrier, the sums");
        assertEquals(52, scoped.roundsOfFirstIteration, "scoped: rho, 25 steps of 2 rounds, the sums");
    }

    @Test
    void fftScopedMatchesTheSequentialFftAndInverts() {
        String line = only(run(2, 2, new Fft2d.Scoped(), "64", "16"));
        String number = "[0-9.e+-]+";
        assertTrue(line.matches("node 0: fft 64x64, partitions 16x64, scoped \\(home bands read once, transpose written in release\\): max relative"
                + " error vs sequential FFT " + number + ", vs DFT by definition " + number + ", inverse vs input " + number
                + " \\(verified, < 1e-09\\), forward [0-9.]+ s, inverse [0-9.]+ s"), line);
        // bands of 12 rows: a ragged last one, several partitions per worker, homed on three nodes
        assertTrue(only(run(3, 1, new Fft2d.Scoped(), "128", "12")).contains("(verified, < 1e-09)"));
    }

    @Test
    void fftScopedInverseCheckCatchesAWrongElement() {
        DsaException e = assertThrows(DsaException.class, () -> run(2, 2, new Fft2d.Scoped().corruptBeforeInverse(5, 9, 1.0), "32", "8"));
        assertTrue(String.valueOf(e.getMessage()).contains("fft: inverse of the forward result vs input: element ["), String.valueOf(e));
    }

    @Test
    void psrsScopedSortsAPermutationOfTheInput() {
        String line = only(run(2, 2, new Psrs.Scoped(), "20000", "512", "3"));
        assertTrue(line.matches("node 0: psrs: sorted 20000 keys on 4 workers, scoped \\(owner-computes sort, coherent gather\\)"
                + " \\(verified: sorted and a permutation of the input, equal to a sequential sort\\), compute [0-9.]+ ms"), line);
        // partitions of 333 keys, cyclic over three nodes, the last one ragged: every block is several partitions
        assertTrue(only(run(3, 1, new Psrs.Scoped(), "9999", "333")).contains("(verified: sorted"));
    }

    /** PSRS with scopes: the switch to phase 4's scope is phase 1's barrier and its closing the last one: five rounds, as plain. */
    @Test
    void psrsScopedCostsTheGlobalRoundsOfThePlainVersion() {
        Psrs plain = new Psrs();
        Psrs scoped = new Psrs.Scoped();
        run(2, 2, plain, "5000", "128");
        run(2, 2, scoped, "5000", "128");
        assertEquals(5, plain.rounds, "plain");
        assertEquals(5, scoped.rounds, "scoped");
    }

    @Test
    void psrsScopedCheckCatchesSwappedKeys() {
        Psrs program = new Psrs.Scoped();
        program.corruptBeforeCheck = true;
        DsaException e = assertThrows(DsaException.class, () -> run(2, 2, program, "1000", "100"));
        assertTrue(String.valueOf(e.getMessage()).contains("psrs: output[499] = "), String.valueOf(e));
        assertTrue(String.valueOf(e.getMessage()).contains("expected sorted"), String.valueOf(e));
    }
}
