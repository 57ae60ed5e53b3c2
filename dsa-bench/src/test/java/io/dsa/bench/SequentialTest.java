package io.dsa.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The sequential LU baseline: bit for bit the loop it replaced, and a small residual. */
class SequentialTest {
    @Test
    void luIsBitForBitThePlainLoop() {
        for (int[] nb : new int[][] {{48, 8}, {48, 16}, {30, 5}, {16, 16}}) {
            int n = nb[0];
            int b = nb[1];
            double[] expected = Sequential.luMatrix(n);
            plainLu(expected, n, b);
            double[] actual = Sequential.luMatrix(n);
            Sequential.lu(actual, n, b);
            assertArrayEquals(expected, actual, "n " + n + ", b " + b);
            assertTrue(Sequential.luResidual(actual, n, 0, n / 2, n - 1) < 1e-12, "n " + n + ", b " + b);
        }
    }

    // Sequential.lu before its trailing update ran on row copies (the JIT left this form scalar): the reference.
    private static void plainLu(double[] a, int n, int b) {
        for (int c0 = 0; c0 < n; c0 += b) {
            for (int kk = c0; kk < c0 + b; kk++) {
                double pivot = a[kk * n + kk];
                for (int i = kk + 1; i < c0 + b; i++) {
                    double lik = a[i * n + kk] / pivot;
                    a[i * n + kk] = lik;
                    for (int j = kk + 1; j < n; j++) a[i * n + j] -= lik * a[kk * n + j];
                }
            }
            for (int r = c0 + b; r < n; r++) {
                for (int j = c0; j < c0 + b; j++) {
                    double sum = a[r * n + j];
                    for (int q = c0; q < j; q++) sum -= a[r * n + q] * a[q * n + j];
                    a[r * n + j] = sum / a[j * n + j];
                }
                for (int q = c0; q < c0 + b; q++) {
                    double l = a[r * n + q];
                    for (int j = c0 + b; j < n; j++) a[r * n + j] -= l * a[q * n + j];
                }
            }
        }
    }
}
