package io.dsa.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The examples' inner kernels, written so the JIT vectorises them (docs/consistency.md,
 * "Owner-computes kernels"), against the plain loops they replaced: MM2's products exactly, LU's
 * trailing update bit for bit (the same arithmetic in the same order). Seeds are printed in the
 * failure messages.
 */
class KernelsTest {
    @Test
    void mm2ProductEqualsTheTripleLoop() {
        for (long seed = 1; seed <= 20; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            int n = 1 + random.nextInt(40);
            long[] left = matrix(random, n);
            long[] right = matrix(random, n);
            long[] expected = new long[n * n];
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    long sum = 0;
                    for (int k = 0; k < n; k++) sum += left[i * n + k] * right[k * n + j];
                    expected[i * n + j] = sum;
                }
            }
            assertArrayEquals(expected, Mm2.multiply(left, right, n), "seed " + seed + ", n " + n);
        }
    }

    @Test
    void mm2RowProductTouchesOnlyItsColumns() {
        SplittableRandom random = new SplittableRandom(7);
        int n = 33;
        long[] left = matrix(random, n);
        long[][] right = Mm2.rows(matrix(random, n), n, n);
        long[] out = new long[n];
        java.util.Arrays.fill(out, 5);
        Mm2.addRowProduct(left, 2 * n, right, n, out, 10, 21);
        for (int j = 0; j < n; j++) {
            long expected = 5;
            if (j >= 10 && j < 21) for (int k = 0; k < n; k++) expected += left[2 * n + k] * right[k][j];
            assertEquals(expected, out[j], "column " + j);
        }
    }

    @Test
    void luUpdateIsBitForBitTheOffsetLoop() {
        for (long seed = 1; seed <= 30; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            int rows = 1 + random.nextInt(20);
            int inner = 1 + random.nextInt(20);   // not always a multiple of four: the tail loop runs too
            int cols = 1 + random.nextInt(20);
            double[] a = doubles(random, rows * cols);
            double[] l = doubles(random, rows * inner);
            double[] u = doubles(random, inner * cols);
            double[] expected = a.clone();
            offsetLoop(expected, l, u, rows, inner, cols);
            double[] flat = a.clone();
            LuKernels.subtractProduct(flat, l, u, rows, inner, cols);
            double[] byRows = a.clone();
            LuKernels.subtractProduct(byRows, l, LuKernels.rowsOf(u, inner, cols), rows, inner, cols, new double[cols + 3]);
            String what = "seed " + seed + ": " + rows + "x" + inner + "x" + cols;
            assertArrayEquals(expected, flat, what);   // exact: assertArrayEquals on doubles compares bits here (no delta)
            assertArrayEquals(expected, byRows, what);
        }
    }

    @Test
    void luFactorAndPanelSolvesAreBitForBitTheOffsetLoops() {
        for (long seed = 1; seed <= 30; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            int h = 1 + random.nextInt(24);
            int w = 1 + random.nextInt(24);
            String what = "seed " + seed + ": h " + h + ", w " + w;
            double[] block = doubles(random, h * h);
            for (int i = 0; i < h; i++) block[i * h + i] += h + 1;   // diagonally dominant, as Lu's matrix
            double[] expectedLu = block.clone();
            offsetFactor(expectedLu, h);
            double[] lu = block.clone();
            LuKernels.factor(lu, h);
            assertArrayEquals(expectedLu, lu, what);

            double[] right = doubles(random, h * w);
            double[] expectedRight = right.clone();
            offsetSolveUnitLower(lu, h, expectedRight, w);
            LuKernels.solveUnitLower(lu, h, right, w);
            assertArrayEquals(expectedRight, right, what);

            double[] below = doubles(random, w * h);
            double[] expectedBelow = below.clone();
            dotSolveUpperRight(lu, h, expectedBelow, w);
            LuKernels.solveUpperRight(lu, h, below, w);
            assertArrayEquals(expectedBelow, below, what);
        }
    }

    // Lu.factor, solveUnitLower and solveUpperRight as they were before their rows got arrays of their own: the references.
    private static void offsetFactor(double[] a, int h) {
        for (int k = 0; k < h; k++) {
            double pivot = a[k * h + k];
            for (int i = k + 1; i < h; i++) {
                double lik = a[i * h + k] / pivot;
                a[i * h + k] = lik;
                for (int j = k + 1; j < h; j++) a[i * h + j] -= lik * a[k * h + j];
            }
        }
    }

    private static void offsetSolveUnitLower(double[] lu, int h, double[] a, int w) {
        for (int i = 1; i < h; i++) {
            for (int k = 0; k < i; k++) {
                double lik = lu[i * h + k];
                for (int j = 0; j < w; j++) a[i * w + j] -= lik * a[k * w + j];
            }
        }
    }

    private static void dotSolveUpperRight(double[] lu, int h, double[] a, int rows) {
        for (int r = 0; r < rows; r++) {
            for (int j = 0; j < h; j++) {
                double sum = a[r * h + j];
                for (int k = 0; k < j; k++) sum -= a[r * h + k] * lu[k * h + j];
                a[r * h + j] = sum / lu[j * h + j];
            }
        }
    }

    // The trailing update as Lu wrote it before its rows got arrays of their own: the reference.
    private static void offsetLoop(double[] a, double[] l, double[] u, int rows, int inner, int cols) {
        for (int r = 0; r < rows; r++) {
            int ar = r * cols;
            int lr = r * inner;
            int k = 0;
            for (; k + 3 < inner; k += 4) {
                int u0 = k * cols;
                for (int c = 0; c < cols; c++) {
                    a[ar + c] -= l[lr + k] * u[u0 + c] + l[lr + k + 1] * u[u0 + cols + c] + l[lr + k + 2] * u[u0 + 2 * cols + c]
                            + l[lr + k + 3] * u[u0 + 3 * cols + c];
                }
            }
            for (; k < inner; k++) {
                for (int c = 0; c < cols; c++) a[ar + c] -= l[lr + k] * u[k * cols + c];
            }
        }
    }

    private static long[] matrix(SplittableRandom random, int n) {
        long[] m = new long[n * n];
        for (int i = 0; i < m.length; i++) m[i] = random.nextInt(19) - 9;   // zeros included: the kernel skips them
        return m;
    }

    private static double[] doubles(SplittableRandom random, int count) {
        double[] d = new double[count];
        for (int i = 0; i < count; i++) d[i] = random.nextDouble(-1, 1);
        return d;
    }
}
