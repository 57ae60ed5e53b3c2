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
        // every loop runs on rows in arrays of their own (the block row's, and a copy of the row it updates), each
        // indexed by the same j: only then does the JIT vectorise it (two offsets into one array may overlap, and it
        // leaves such a loop scalar); the arithmetic and its order are those of the loops on a (SequentialTest)
        double[][] uRows = new double[b][n];
        double[] row = new double[n];
        for (int c0 = 0; c0 < n; c0 += b) {
            for (int q = c0; q < c0 + b; q++) System.arraycopy(a, q * n + c0, uRows[q - c0], c0, n - c0);
            for (int kk = c0; kk < c0 + b; kk++) {
                double[] uk = uRows[kk - c0];
                double pivot = uk[kk];
                for (int i = kk + 1; i < c0 + b; i++) {
                    double[] ui = uRows[i - c0];
                    double lik = ui[kk] / pivot;
                    ui[kk] = lik;
                    for (int j = kk + 1; j < n; j++) ui[j] -= lik * uk[j];
                }
            }
            for (int q = c0; q < c0 + b; q++) System.arraycopy(uRows[q - c0], c0, a, q * n + c0, n - c0);
            int from = c0 + b;
            for (int r = c0 + b; r < n; r++) {
                System.arraycopy(a, r * n + c0, row, c0, n - c0);
                // L_rj = (a_rj - sum over q < j of L_rq U_qj) / U_jj: each L_rq, once final, is subtracted times U's row q
                for (int j = c0; j < from; j++) {
                    double[] uj = uRows[j - c0];
                    double x = row[j] / uj[j];
                    row[j] = x;
                    for (int c = j + 1; c < from; c++) row[c] -= x * uj[c];
                }
                for (int q = c0; q < from; q++) {
                    double l = row[q];
                    double[] u = uRows[q - c0];
                    for (int j = from; j < n; j++) row[j] -= l * u[j];
                }
                System.arraycopy(row, c0, a, r * n + c0, n - c0);
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
