package io.dsa.examples;

import java.util.Arrays;

/**
 * The block kernels of {@link Lu}, {@code lu-scoped} and the sequential baseline of {@code dsa
 * bench lu}: the diagonal block's factor, the two panel solves and the trailing update, on plain
 * row-major {@code double[]} blocks. Each works on the rows in arrays of their own so that the
 * JIT vectorises its inner loop (docs/consistency.md, "Owner-computes kernels"), in the order of
 * the textbook loop on the block itself, so the results are the same bit for bit. Stateless.
 */
public final class LuKernels {
    private LuKernels() {}

    /**
     * In-place LU without pivoting of the {@code h x h} row-major block {@code a} (unit lower L).
     * Like every kernel here it works on the rows in arrays of their own ({@link #rowsOf}), so that
     * its inner loop indexes both rows with the same {@code j} and the JIT vectorises it (with two
     * offsets into one array it leaves the loop scalar); the arithmetic and its order are those of
     * the loop on {@code a} itself, so the result is the same bit for bit.
     */
    static void factor(double[] a, int h) {
        double[][] rows = rowsOf(a, h, h);
        for (int k = 0; k < h; k++) {
            double[] rk = rows[k];
            double pivot = rk[k];
            for (int i = k + 1; i < h; i++) {
                double[] ri = rows[i];
                double lik = ri[k] / pivot;
                ri[k] = lik;
                for (int j = k + 1; j < h; j++) ri[j] -= lik * rk[j];
            }
        }
        copyBack(rows, a, h);
    }

    /**
     * {@code a = L^-1 a} with {@code L} the unit lower triangle of the {@code h x h} block {@code lu}; {@code a} is
     * {@code h x w}. On rows of their own, as {@link #factor}; the same result bit for bit.
     */
    static void solveUnitLower(double[] lu, int h, double[] a, int w) {
        double[][] rows = rowsOf(a, h, w);
        for (int i = 1; i < h; i++) {
            double[] ri = rows[i];
            for (int k = 0; k < i; k++) {
                double lik = lu[i * h + k];
                double[] rk = rows[k];
                for (int j = 0; j < w; j++) ri[j] -= lik * rk[j];
            }
        }
        copyBack(rows, a, w);
    }

    /**
     * {@code a = a U^-1} with {@code U} the upper triangle of the {@code h x h} block {@code lu}; {@code a} is
     * {@code rows x h}. Row by row: each element, once final, is subtracted times its row of {@code U} from the
     * elements after it (in a copy of the row, with {@code U}'s rows in arrays of their own, so the loop vectorises),
     * which subtracts the same products in the same order as the dot product {@code a[r][j] - sum over k < j of
     * a[r][k] U[k][j]} does: the same result bit for bit.
     */
    static void solveUpperRight(double[] lu, int h, double[] a, int rows) {
        double[][] u = rowsOf(lu, h, h);
        double[] row = new double[h];
        for (int r = 0; r < rows; r++) {
            System.arraycopy(a, r * h, row, 0, h);
            for (int j = 0; j < h; j++) {
                double[] uj = u[j];
                double x = row[j] / uj[j];
                row[j] = x;
                for (int c = j + 1; c < h; c++) row[c] -= x * uj[c];
            }
            System.arraycopy(row, 0, a, r * h, h);
        }
    }

    private static void copyBack(double[][] rows, double[] a, int cols) {
        for (int r = 0; r < rows.length; r++) System.arraycopy(rows[r], 0, a, r * cols, cols);
    }

    /** {@code a -= l * u}: {@code a} is {@code rows x cols}, {@code l} is {@code rows x inner}, {@code u} is {@code inner x cols}. */
    public static void subtractProduct(double[] a, double[] l, double[] u, int rows, int inner, int cols) {
        subtractProduct(a, l, rowsOf(u, inner, cols), rows, inner, cols, new double[cols]);
    }

    /**
     * {@code a -= l * u} with {@code u}'s rows in arrays of their own and {@code row} (at least
     * {@code cols} long) as scratch: each row of {@code a} is copied into {@code row}, updated
     * there and copied back, so the inner loop indexes {@code row} and the rows of {@code u} with
     * the same {@code c}. The JIT vectorises it only then: with two different offsets into arrays
     * of one type it cannot rule out that they overlap and leaves the loop scalar, about three
     * times slower (docs/consistency.md, "Owner-computes kernels").
     */
    public static void subtractProduct(double[] a, double[] l, double[][] u, int rows, int inner, int cols, double[] row) {
        // four rows of u per sweep over the row: the row is loaded and stored a quarter as often
        for (int r = 0; r < rows; r++) {
            int ar = r * cols;
            int lr = r * inner;
            System.arraycopy(a, ar, row, 0, cols);
            int k = 0;
            for (; k + 3 < inner; k += 4) {
                double l0 = l[lr + k];
                double l1 = l[lr + k + 1];
                double l2 = l[lr + k + 2];
                double l3 = l[lr + k + 3];
                double[] u0 = u[k];
                double[] u1 = u[k + 1];
                double[] u2 = u[k + 2];
                double[] u3 = u[k + 3];
                for (int c = 0; c < cols; c++) row[c] -= l0 * u0[c] + l1 * u1[c] + l2 * u2[c] + l3 * u3[c];
            }
            for (; k < inner; k++) {
                double lrk = l[lr + k];
                double[] uk = u[k];
                for (int c = 0; c < cols; c++) row[c] -= lrk * uk[c];
            }
            System.arraycopy(row, 0, a, ar, cols);
        }
    }

    /** @return the {@code rows} rows of the row-major {@code block} with {@code cols} columns, each in an array of its own */
    public static double[][] rowsOf(double[] block, int rows, int cols) {
        double[][] out = new double[rows][];
        for (int r = 0; r < rows; r++) out[r] = Arrays.copyOfRange(block, r * cols, (r + 1) * cols);
        return out;
    }
}
