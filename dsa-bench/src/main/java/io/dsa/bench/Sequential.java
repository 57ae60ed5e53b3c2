package io.dsa.bench;

/**
 * Sequential Java baselines for the speedups of {@code dsa bench lu} and {@code fft}: the same
 * algorithms as {@code io.dsa.examples.Lu} and {@code Fft2d} on plain arrays in one thread, kept
 * here (not borrowed from the examples) so the baseline does not change when the examples do.
 */
final class Sequential {
    private Sequential() {}

    /** The test matrix of the LU baselines (also in lu_mpi.c): n + 1 on the diagonal, [-0.5, 0.5) off it. */
    static double luInput(int i, int j, int n) { return i == j ? n + 1.0 : ((i * 7919 + j * 104729) % 1000) / 1000.0 - 0.5; }

    /** @return a fresh n x n row-major copy of the LU test matrix */
    static double[] luMatrix(int n) {
        double[] a = new double[n * n];
        for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) a[i * n + j] = luInput(i, j, n);
        return a;
    }

    /**
     * Blocked right-looking LU without pivoting, in place on the row-major n x n {@code a} with
     * b x b blocks: factor the diagonal block and the block row to its right, solve the block
     * column below it, update the trailing matrix.
     */
    static void lu(double[] a, int n, int b) {
        if (b < 1 || n % b != 0) throw new IllegalArgumentException("block size " + b + " must divide n=" + n);
        // the trailing update runs on a copy of the row and copies of the block row's rows, every one
        // indexed by the same j: only then does the JIT vectorise it (two offsets into one array
        // may overlap, and it leaves such a loop scalar); the arithmetic is the same
        double[][] uRows = new double[b][n];
        double[] row = new double[n];
        for (int c0 = 0; c0 < n; c0 += b) {
            for (int kk = c0; kk < c0 + b; kk++) {
                double pivot = a[kk * n + kk];
                for (int i = kk + 1; i < c0 + b; i++) {
                    double lik = a[i * n + kk] / pivot;
                    a[i * n + kk] = lik;
                    for (int j = kk + 1; j < n; j++) a[i * n + j] -= lik * a[kk * n + j];
                }
            }
            int from = c0 + b;
            for (int q = c0; q < c0 + b; q++) System.arraycopy(a, q * n + from, uRows[q - c0], from, n - from);
            for (int r = c0 + b; r < n; r++) {
                for (int j = c0; j < c0 + b; j++) {
                    double sum = a[r * n + j];
                    for (int q = c0; q < j; q++) sum -= a[r * n + q] * a[q * n + j];
                    a[r * n + j] = sum / a[j * n + j];
                }
                System.arraycopy(a, r * n + from, row, from, n - from);
                for (int q = c0; q < c0 + b; q++) {
                    double l = a[r * n + q];
                    double[] u = uRows[q - c0];
                    for (int j = from; j < n; j++) row[j] -= l * u[j];
                }
                System.arraycopy(row, from, a, r * n + from, n - from);
            }
        }
    }

    /** @return max |(L*U - A)[i][j]| / (n + 1) over rows {@code rows} of the packed factors */
    static double luResidual(double[] lu, int n, int... rows) {
        double worst = 0;
        for (int i : rows) {
            for (int j = 0; j < n; j++) {
                double sum = 0;
                for (int k = 0; k <= Math.min(i, j); k++) sum += (k == i ? 1.0 : lu[i * n + k]) * lu[k * n + j];
                worst = Math.max(worst, Math.abs(sum - luInput(i, j, n)) / (n + 1.0));
            }
        }
        return worst;
    }

    /** The sequential 2-D FFT of a row-major {@code n x n} array, in place: the {@code fft} example's own. */
    static void fft2d(double[] re, double[] im, int n, boolean inverse) {
        io.dsa.examples.Fft.transform2d(re, im, n, inverse);
    }
}
