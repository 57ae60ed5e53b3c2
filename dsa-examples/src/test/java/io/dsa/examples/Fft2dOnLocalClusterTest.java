package io.dsa.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.agent.DsaCluster;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.RunReport;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link Fft2d} on the real runtime at small sizes, and the sequential {@link Fft} it is checked with. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class Fft2dOnLocalClusterTest {
    private static final String NUMBER = "[0-9.e+-]+";

    private static RunReport run(int nodes, int threads, Fft2d program, String... args) {
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(nodes).threadsPerNode(threads).build())) {
            return cluster.run(program, args);
        }
    }

    @Test
    void twoNodesTimesTwoThreads() {
        RunReport report = run(2, 2, new Fft2d(), "64", "16");
        assertEquals(1, report.lines().size(), report.lines().toString());
        assertTrue(report.lines().get(0).matches("node 0: fft 64x64, partitions 16x16: max relative error vs sequential FFT "
                + NUMBER + ", vs DFT by definition " + NUMBER + ", inverse vs input " + NUMBER
                + " \\(verified, < 1e-09\\), forward [0-9.]+ s, inverse [0-9.]+ s"), report.lines().get(0));
    }

    @Test
    void fourNodesTimesOneThreadWithBandsAcrossPartitions() {
        // bands of 32 rows over partitions of 12 rows: several workers write each partition
        RunReport report = run(4, 1, new Fft2d(), "128", "12");
        assertTrue(report.lines().get(0).startsWith("node 0: fft 128x128, partitions 12x12: "), report.lines().get(0));
        assertTrue(report.lines().get(0).contains("(verified, < 1e-09)"), report.lines().get(0));
    }

    @Test
    void aWrongElementFailsTheInverseCheck() {
        DsaException e = assertThrows(DsaException.class,
                () -> run(2, 2, new Fft2d().corruptBeforeInverse(5, 9, 1.0), "32", "8"));
        assertTrue(String.valueOf(e.getMessage()).contains("fft: inverse of the forward result vs input: element ["),
                String.valueOf(e));
        assertTrue(e.getMessage().contains("relative error"), e.getMessage());
    }

    @Test
    void sequentialFftMatchesTheDefinitionAndInverts() {
        int n = 32;
        double[] re = new double[n * n];
        double[] im = new double[n * n];
        Fft2d.fillInput(re, im, n);
        double[] fftRe = re.clone();
        double[] fftIm = im.clone();
        Fft.transform2d(fftRe, fftIm, n, false);
        double[] dftRe = re.clone();
        double[] dftIm = im.clone();
        Fft.directDft2d(dftRe, dftIm, n);
        assertTrue(Fft2d.compare("fft vs dft", fftRe, fftIm, dftRe, dftIm, n, 0, n) < 1e-13);
        Fft.transform2d(fftRe, fftIm, n, true);
        assertTrue(Fft2d.compare("round trip", fftRe, fftIm, re, im, n, 0, n) < 1e-14);

        fftRe[3 * n + 4] += 1e-6;
        DsaException e = assertThrows(DsaException.class, () -> Fft2d.compare("round trip", fftRe, fftIm, re, im, n, 0, n));
        assertTrue(e.getMessage().contains("element [3][4] = " + fftRe[3 * n + 4] + " + " + fftIm[3 * n + 4] + "i, expected "
                + re[3 * n + 4] + " + " + im[3 * n + 4] + "i"), e.getMessage());
    }
}
