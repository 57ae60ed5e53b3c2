package io.dsa.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.agent.DsaCluster;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.RunReport;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * NPB CG: NPB's generator and the sequential CG reproduce the published zeta of classes S and W;
 * the DSA program {@link Cg} verifies class S on 1x1, 2x1 and 2x2 VMs of real agents over loopback.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CgTest {
    private static final String VERIFIED = "node 0: NPB CG class S \\(na=1400, nonzer=7, niter=15\\): zeta = 8\\.59717750786[0-9]+,"
            + " expected 8\\.5971775078648, relative error [0-9.e-]+ <= 1e-10 \\(verified\\), rnorm [0-9.e-]+,"
            + " 15 iterations [0-9.]+ s, %d nodes x %d threads, partitions of %d";

    private static RunReport run(int nodes, int threads, String... args) {
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(nodes).threadsPerNode(threads).build())) {
            return cluster.run(new Cg(), args);
        }
    }

    @Test
    void npbRandomNumbersStartAsPublished() {
        // NPB's randlc from seed 314159265 with multiplier 5^13: x1 = 5^13 * 314159265 mod 2^46
        double[] seed = {NpbCg.SEED};
        double u = NpbCg.randlc(seed, NpbCg.MULTIPLIER);
        long expected = java.math.BigInteger.valueOf(1220703125L).multiply(java.math.BigInteger.valueOf(314159265L))
                .mod(java.math.BigInteger.ONE.shiftLeft(46)).longValueExact();
        assertEquals(expected, (long) seed[0]);
        assertEquals(expected * 0x1.0p-46, u);
    }

    @Test
    void sequentialClassesSAndWVerifyAgainstNpbsZeta() {
        for (NpbCg.Size size : new NpbCg.Size[] {NpbCg.Size.S, NpbCg.Size.W}) {
            NpbCg.Result r = NpbCg.run(size);
            assertTrue(r.verified(), r.describe());
            r.check();
        }
    }

    @Test
    void twoRowsAtATimeGiveTheSumsOfARowAtATimeBitForBit() {
        NpbCg.Matrix whole = NpbCg.makea(NpbCg.Size.S);
        java.util.Random random = new java.util.Random(7);
        double[] v = new double[whole.n()];
        for (int j = 0; j < v.length; j++) v[j] = random.nextGaussian();
        // even and odd row counts, a single row, rows of different lengths side by side, and all of them
        int[][] ranges = {{0, whole.n()}, {3, 10}, {700, 1400}, {5, 6}, {11, 12 + 2 * 97}, {1399, 1400}};
        for (int[] range : ranges) {
            NpbCg.Matrix m = whole.rows(range[0], range[1]);
            double[] expected = new double[m.n()];
            double[] actual = new double[m.n()];
            NpbCg.multiplyRowByRow(m, v, expected);
            NpbCg.multiply(m, v, actual);
            for (int i = 0; i < m.n(); i++) {
                assertEquals(Double.doubleToRawLongBits(expected[i]), Double.doubleToRawLongBits(actual[i]),
                        "row " + (range[0] + i) + " of rows [" + range[0] + ", " + range[1] + "): " + actual[i] + " vs " + expected[i]);
            }
        }
    }

    @Test
    void theGeneratedMatrixIsSymmetric() {
        NpbCg.Matrix m = NpbCg.makea(NpbCg.Size.S);
        java.util.Map<Long, Double> entries = new java.util.HashMap<>();
        for (int i = 0; i < m.n(); i++) {
            for (int k = m.rowStart()[i]; k < m.rowStart()[i + 1]; k++) {
                if (k > m.rowStart()[i]) assertTrue(m.col()[k] > m.col()[k - 1], "columns ascend in row " + i);
                entries.put((long) i * m.n() + m.col()[k], m.a()[k]);
            }
        }
        for (java.util.Map.Entry<Long, Double> e : entries.entrySet()) {
            long i = e.getKey() / m.n(), j = e.getKey() % m.n();
            assertEquals(e.getValue(), entries.get(j * m.n() + i), 1e-15, "a[" + i + "][" + j + "] vs a[" + j + "][" + i + "]");
        }
    }

    @Test
    void aWrongZetaIsNotVerifiedAndFailsTheCheck() {
        NpbCg.Result off = new NpbCg.Result(NpbCg.Size.S, 8.5971775078648 * (1 + 2e-10), 1e-13, 0.1);
        assertFalse(off.verified());
        DsaException e = assertThrows(DsaException.class, off::check);
        assertTrue(e.getMessage().contains("expected 8.5971775078648") && e.getMessage().contains("NOT verified"), e.getMessage());
        assertTrue(new NpbCg.Result(NpbCg.Size.S, 8.5971775078648 * (1 + 0.5e-10), 1e-13, 0.1).verified());
    }

    @Test
    void classSOnOneNodeOneThread() {
        RunReport report = run(1, 1);
        assertTrue(report.lines().get(0).matches(String.format(VERIFIED, 1, 1, 1400)), report.lines().toString());
    }

    @Test
    void classSOnTwoNodesTimesOneThread() {
        RunReport report = run(2, 1, "S");
        assertEquals(1, report.lines().size(), report.lines().toString());
        assertTrue(report.lines().get(0).matches(String.format(VERIFIED, 2, 1, 700)), report.lines().toString());
    }

    @Test
    void classSOnTwoNodesTimesTwoThreadsWithPartitionsSmallerThanABlock() {
        RunReport report = run(2, 2, "s", "100");
        assertTrue(report.lines().get(0).matches(String.format(VERIFIED, 2, 2, 100)), report.lines().toString());
    }

    @Test
    void badArgumentsNameTheValueAndTheChoices() {
        DsaException e = assertThrows(DsaException.class, () -> run(1, 1, "B"));
        assertTrue(e.getMessage().contains("NPB CG class 'B' unknown, expected one of S, W, A"), e.getMessage());
        e = assertThrows(DsaException.class, () -> run(1, 1, "S", "0"));
        assertTrue(e.getMessage().contains("partitionSize 0 out of range [1, 1400]"), e.getMessage());
    }

    /** The plain barriers a resume happens at, and the refusal of any other epoch naming it and the valid rounds. */
    @Test
    void aResumeGoesOnAfterTheStepWhoseBarrierItIsAndNowhereElse() {
        assertEquals(1, Cg.resumeStep(4));                // after step 0's barrier of outer iteration 0
        assertEquals(24, Cg.resumeStep(73));              // after step 23's, the last barrier of a conj_grad
        assertEquals(3, Cg.resumeStep(15 * 76 + 10));     // outer iteration 15, after step 2
        for (long epoch : new long[] {76, 3, 5, 74, 75, 76 * 3 + 6}) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> Cg.resumeStep(epoch));
            assertTrue(e.getMessage().contains("cg cannot resume at epoch " + epoch + ": round " + epoch % 76 + " of an outer iteration "
                    + "of 76 is not a plain barrier (those are rounds 3 s + 4, s in [0, 23])"), e.getMessage());
        }
    }
}
