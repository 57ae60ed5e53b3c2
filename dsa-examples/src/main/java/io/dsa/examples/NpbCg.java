package io.dsa.examples;

import io.dsa.DsaException;
import java.util.Locale;

/**
 * The NAS Parallel Benchmarks' CG kernel (NPB 3.x): the problem classes, NPB's matrix generator
 * ({@code makea}, {@code sprnvc}, {@code vecset}, {@code sparse} with the {@code randlc} generator,
 * seed 314159265, multiplier 5^13), the published verification values, and a sequential Java CG
 * of the same algorithm as the reference the DSA program {@link Cg} and {@code dsa bench cg} are
 * compared with.
 *
 * <p>The benchmark estimates the smallest eigenvalue of a sparse symmetric positive definite matrix
 * by inverse power iteration: {@code niter} outer iterations, each solving {@code A z = x} with 25
 * unpreconditioned conjugate-gradient steps, then {@code zeta = shift + 1 / (x . z)} and
 * {@code x = z / ||z||}. One untimed iteration comes first (NPB's warm-up), then {@code x} is reset.
 * A run is verified when {@code |zeta - zetaVerify| / zetaVerify <= 1e-10}.
 *
 * <p>Thread safety: {@link Size} and {@link Matrix} are immutable once built; the static methods
 * keep no state.
 */
public final class NpbCg {
    /** NPB's verification tolerance, relative. */
    public static final double EPSILON = 1.0e-10;
    /** Conjugate-gradient steps per outer iteration (NPB's {@code cgitmax}). */
    public static final int CG_STEPS = 25;
    /** NPB's {@code rcond}, the same for every class. */
    static final double RCOND = 0.1;

    private NpbCg() {}

    /** An NPB problem class: order, nonzeros per generated row, outer iterations, diagonal shift, the published zeta. */
    public enum Size {
        /** Class S: order 1400. */
        S(1400, 7, 15, 10.0, 8.5971775078648),
        /** Class W: order 7000. */
        W(7000, 8, 15, 12.0, 10.362595087124),
        /** Class A: order 14000. */
        A(14000, 11, 15, 20.0, 17.130235054029);

        /** Matrix order. */
        public final int na;
        /** Nonzeros in each generated sparse vector (before the diagonal is added). */
        public final int nonzer;
        /** Outer (inverse power) iterations that are timed. */
        public final int niter;
        /** The shift subtracted from the diagonal. */
        public final double shift;
        /** NPB's published zeta for this class. */
        public final double zetaVerify;

        Size(int na, int nonzer, int niter, double shift, double zetaVerify) {
            this.na = na;
            this.nonzer = nonzer;
            this.niter = niter;
            this.shift = shift;
            this.zetaVerify = zetaVerify;
        }

        /**
         * @param name S, W or A (any case)
         * @throws DsaException naming the value and the valid classes
         */
        public static Size parse(String name) {
            for (Size s : values()) if (s.name().equalsIgnoreCase(name.strip())) return s;
            throw new DsaException("NPB CG class '" + name + "' unknown, expected one of S, W, A");
        }
    }

    /**
     * A sparse matrix in compressed rows: row {@code i}'s nonzeros are {@code a[rowStart[i] ..
     * rowStart[i+1])} in columns {@code col[...]}, ascending.
     *
     * @param n order
     * @param rowStart {@code n + 1} offsets
     * @param col column of each nonzero
     * @param a value of each nonzero
     */
    public record Matrix(int n, int[] rowStart, int[] col, double[] a) {
        /** @return the number of nonzeros */
        public int nonzeros() { return rowStart[n]; }

        /** @return rows {@code [from, to)} as a matrix of {@code to - from} rows (columns unchanged), in new arrays */
        public Matrix rows(int from, int to) {
            int first = rowStart[from];
            int[] start = new int[to - from + 1];
            for (int i = from; i <= to; i++) start[i - from] = rowStart[i] - first;
            int count = rowStart[to] - first;
            int[] c = new int[count];
            double[] v = new double[count];
            System.arraycopy(col, first, c, 0, count);
            System.arraycopy(a, first, v, 0, count);
            return new Matrix(to - from, start, c, v);
        }
    }

    /** The outcome of a run: the last zeta, the last residual norm, the timed iterations' seconds, and the verdict. */
    public record Result(Size size, double zeta, double rnorm, double seconds) {
        /** @return {@code |zeta - zetaVerify| / zetaVerify} */
        public double error() { return Math.abs(zeta - size.zetaVerify) / size.zetaVerify; }

        /** @return whether {@link #error()} is within NPB's {@link #EPSILON} */
        public boolean verified() { return error() <= EPSILON; }

        /** @return one line: class, zeta against the published value, error, verdict, residual and time */
        public String describe() {
            return String.format(Locale.ROOT, "NPB CG class %s (na=%d, nonzer=%d, niter=%d): zeta = %.13f, expected %.13f,"
                    + " relative error %.3e %s 1e-10 (%s), rnorm %.6e, %d iterations %.3f s",
                    size, size.na, size.nonzer, size.niter, zeta, size.zetaVerify, error(), verified() ? "<=" : ">",
                    verified() ? "verified" : "NOT verified", rnorm, size.niter, seconds);
        }

        /** @throws DsaException with {@link #describe()} when the run is not verified */
        public Result check() {
            if (!verified()) throw new DsaException("cg: " + describe());
            return this;
        }
    }

    // ---- NPB's random numbers -------------------------------------------------------------------------

    private static final double R23 = 0x1.0p-23;
    private static final double T23 = 0x1.0p23;
    private static final double R46 = 0x1.0p-46;
    private static final double T46 = 0x1.0p46;

    /** NPB's initial seed and multiplier (5^13). */
    static final double SEED = 314159265.0;
    static final double MULTIPLIER = 1220703125.0;

    /**
     * NPB's linear congruential generator {@code x = a * x mod 2^46} in doubles, exactly as NPB
     * splits the product into 23-bit halves so that no intermediate loses bits.
     *
     * @param seed {@code seed[0]} is the state, advanced in place
     * @return the new state times {@code 2^-46}, in (0, 1)
     */
    static double randlc(double[] seed, double a) {
        double a1 = (long) (R23 * a);
        double a2 = a - T23 * a1;
        double x = seed[0];
        double x1 = (long) (R23 * x);
        double x2 = x - T23 * x1;
        double t1 = a1 * x2 + a2 * x1;
        double t2 = (long) (R23 * t1);
        double z = t1 - T23 * t2;
        double t3 = T23 * z + a2 * x2;
        double t4 = (long) (R46 * t3);
        seed[0] = t3 - T46 * t4;
        return R46 * seed[0];
    }

    // ---- NPB's matrix generator -----------------------------------------------------------------------

    /**
     * NPB's {@code makea}: the class's matrix, generated from the seed exactly as NPB does (the
     * generator's first number is drawn and dropped first, as NPB's main program does), so its
     * eigenvalue is the one NPB's zeta verifies.
     */
    public static Matrix makea(Size size) {
        int n = size.na;
        double[] seed = {SEED};
        randlc(seed, MULTIPLIER);
        int nn1 = 1;
        do {
            nn1 *= 2;
        } while (nn1 < n);
        int[] rowCount = new int[n];
        int[][] rowCols = new int[n][];
        double[][] rowVals = new double[n][];
        int[] iv = new int[size.nonzer + 1];
        double[] v = new double[size.nonzer + 1];
        for (int i = 0; i < n; i++) {
            int nzv = sprnvc(n, size.nonzer, nn1, v, iv, seed);
            nzv = vecset(v, iv, nzv, i + 1, 0.5);
            rowCount[i] = nzv;
            rowCols[i] = new int[nzv];
            rowVals[i] = new double[nzv];
            for (int k = 0; k < nzv; k++) {
                rowCols[i][k] = iv[k] - 1;
                rowVals[i][k] = v[k];
            }
        }
        return sparse(n, rowCount, rowCols, rowVals, size.shift);
    }

    /**
     * NPB's {@code sprnvc}: {@code nz} distinct random positions in {@code [1, n]} (drawn as
     * {@code int(nn1 * u)+1}, rejecting those past {@code n} and repeats) with random values.
     * @return the count, {@code nz}
     */
    private static int sprnvc(int n, int nz, int nn1, double[] v, int[] iv, double[] seed) {
        int count = 0;
        while (count < nz) {
            double value = randlc(seed, MULTIPLIER);
            int i = (int) (nn1 * randlc(seed, MULTIPLIER)) + 1;
            if (i > n) continue;
            boolean seen = false;
            for (int k = 0; k < count && !seen; k++) seen = iv[k] == i;
            if (seen) continue;
            v[count] = value;
            iv[count] = i;
            count++;
        }
        return count;
    }

    /** NPB's {@code vecset}: position {@code i} gets {@code value}, appended if absent. @return the new count */
    private static int vecset(double[] v, int[] iv, int count, int i, double value) {
        boolean set = false;
        for (int k = 0; k < count; k++) {
            if (iv[k] == i) {
                v[k] = value;
                set = true;
            }
        }
        if (set) return count;
        v[count] = value;
        iv[count] = i;
        return count + 1;
    }

    /**
     * NPB's {@code sparse}: the matrix is the sum over generated vectors {@code i} of
     * {@code size_i * v_i v_i^T} ({@code size_i = rcond^(i/n)}), plus {@code rcond - shift} on the
     * diagonal of the element that {@code vecset} put at position {@code i}. Entries are summed in
     * NPB's order into rows kept sorted by column, and duplicates removed, as NPB does, so the
     * sums round as NPB's do.
     */
    private static Matrix sparse(int n, int[] rowCount, int[][] rowCols, double[][] rowVals, double shift) {
        // an upper bound of each row's length: every vector touching the row brings all its entries
        int[] start = new int[n + 1];
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < rowCount[i]; k++) start[rowCols[i][k] + 1] += rowCount[i];
        }
        for (int j = 1; j <= n; j++) start[j] += start[j - 1];
        int capacity = start[n];
        double[] a = new double[capacity];
        int[] col = new int[capacity];
        java.util.Arrays.fill(col, -1);
        int[] duplicates = new int[n];

        double scale = 1.0;
        double ratio = StrictMath.pow(RCOND, 1.0 / n);
        for (int i = 0; i < n; i++) {
            for (int e = 0; e < rowCount[i]; e++) {
                int row = rowCols[i][e];
                double rowScale = scale * rowVals[i][e];
                for (int f = 0; f < rowCount[i]; f++) {
                    int c = rowCols[i][f];
                    double value = rowVals[i][f] * rowScale;
                    if (c == row && row == i) value = value + RCOND - shift;
                    int k = insert(a, col, start[row], start[row + 1], c, duplicates, row, i);
                    a[k] = a[k] + value;
                }
            }
            scale *= ratio;
        }
        // drop the unused tail of every row: rows move down by the duplicates counted before them
        for (int j = 1; j < n; j++) duplicates[j] += duplicates[j - 1];
        for (int j = 0; j < n; j++) {
            int to = j > 0 ? start[j] - duplicates[j - 1] : 0;
            int end = start[j + 1] - duplicates[j];
            for (int from = start[j]; to < end; to++, from++) {
                a[to] = a[from];
                col[to] = col[from];
            }
        }
        for (int j = 1; j <= n; j++) start[j] -= duplicates[j - 1];
        int nonzeros = start[n];
        return new Matrix(n, start, java.util.Arrays.copyOf(col, nonzeros), java.util.Arrays.copyOf(a, nonzeros));
    }

    /**
     * Finds column {@code c} in row slots {@code [from, to)} (sorted, unused slots -1 at the end):
     * an existing entry counts a duplicate; otherwise the entry is inserted in order (later ones
     * shift right, the new slot zeroed). @return the slot of column {@code c}
     */
    private static int insert(double[] a, int[] col, int from, int to, int c, int[] duplicates, int row, int vector) {
        for (int k = from; k < to; k++) {
            if (col[k] > c) {
                for (int m = to - 2; m >= k; m--) {
                    if (col[m] > -1) {
                        a[m + 1] = a[m];
                        col[m + 1] = col[m];
                    }
                }
                col[k] = c;
                a[k] = 0.0;
                return k;
            }
            if (col[k] == -1) {
                col[k] = c;
                return k;
            }
            if (col[k] == c) {
                duplicates[row]++;
                return k;
            }
        }
        throw new IllegalStateException("NPB sparse: row " + row + " overflowed while adding vector " + vector);
    }

    // ---- the sequential CG ----------------------------------------------------------------------------

    /** Runs the class sequentially: generates the matrix, then {@link #run(Size, Matrix)}. */
    public static Result run(Size size) {
        return run(size, makea(size));
    }

    /** The benchmark on an already generated matrix: one untimed iteration, then {@code niter} timed ones. */
    public static Result run(Size size, Matrix m) {
        int n = size.na;
        double[] x = new double[n];
        double[] z = new double[n];
        double[] p = new double[n];
        double[] q = new double[n];
        double[] r = new double[n];
        double zeta = 0;
        double rnorm = 0;
        long start = 0;
        for (int it = 0; it <= size.niter; it++) {
            if (it <= 1) {
                java.util.Arrays.fill(x, 1.0); // the untimed iteration (it = 0) starts from ones; so do the timed ones
                start = System.nanoTime();
            }
            rnorm = conjGrad(m, x, z, p, q, r);
            double xz = 0;
            double zz = 0;
            for (int j = 0; j < n; j++) {
                xz += x[j] * z[j];
                zz += z[j] * z[j];
            }
            double norm = 1.0 / Math.sqrt(zz);
            zeta = size.shift + 1.0 / xz;
            for (int j = 0; j < n; j++) x[j] = norm * z[j];
        }
        return new Result(size, zeta, rnorm, (System.nanoTime() - start) / 1e9);
    }

    /** NPB's {@code conj_grad}: 25 CG steps for {@code A z = x}; @return {@code ||x - A z||} */
    static double conjGrad(Matrix m, double[] x, double[] z, double[] p, double[] q, double[] r) {
        int n = m.n();
        for (int j = 0; j < n; j++) {
            q[j] = 0;
            z[j] = 0;
            r[j] = x[j];
            p[j] = r[j];
        }
        double rho = 0;
        for (int j = 0; j < n; j++) rho += r[j] * r[j];
        for (int step = 0; step < CG_STEPS; step++) {
            multiply(m, p, q);
            double d = 0;
            for (int j = 0; j < n; j++) d += p[j] * q[j];
            double alpha = rho / d;
            double rho0 = rho;
            for (int j = 0; j < n; j++) {
                z[j] += alpha * p[j];
                r[j] -= alpha * q[j];
            }
            rho = 0;
            for (int j = 0; j < n; j++) rho += r[j] * r[j];
            double beta = rho / rho0;
            for (int j = 0; j < n; j++) p[j] = r[j] + beta * p[j];
        }
        multiply(m, z, r);
        double sum = 0;
        for (int j = 0; j < n; j++) {
            double d = x[j] - r[j];
            sum += d * d;
        }
        return Math.sqrt(sum);
    }

    /**
     * {@code out = m v}, each row's products summed in column order, two rows at a time: the two
     * sums are independent chains of additions, which the core overlaps, where a row alone waits
     * for each addition before the next. The sums, and so the result, are those of a row at a time
     * bit for bit. A row at a time, this loop ran at about 75 us for class S where it was compiled
     * on its own, and at 40 us where the JIT happened to inline it into its caller (which it did in
     * some JVMs and not in others: the scoped CG's levels, BENCHMARKS.md "The scoped CG's levels");
     * two rows at a time run at about 40 us either way.
     */
    static void multiply(Matrix m, double[] v, double[] out) {
        int[] start = m.rowStart();
        int[] col = m.col();
        double[] a = m.a();
        int n = m.n();
        int i = 0;
        for (; i + 1 < n; i += 2) {
            int k0 = start[i];
            int k1 = start[i + 1];
            int end1 = start[i + 2];
            int both = Math.min(k1 - k0, end1 - k1);
            double sum0 = 0;
            double sum1 = 0;
            for (int t = 0; t < both; t++) {
                sum0 += a[k0 + t] * v[col[k0 + t]];
                sum1 += a[k1 + t] * v[col[k1 + t]];
            }
            for (int k = k0 + both; k < k1; k++) sum0 += a[k] * v[col[k]];
            for (int k = k1 + both; k < end1; k++) sum1 += a[k] * v[col[k]];
            out[i] = sum0;
            out[i + 1] = sum1;
        }
        if (i < n) {
            double sum = 0;
            for (int k = start[i]; k < start[i + 1]; k++) sum += a[k] * v[col[k]];
            out[i] = sum;
        }
    }

    /** {@code out = m v} a row at a time, each row's products summed in column order: what {@link #multiply} must equal bit for bit (tests). */
    static void multiplyRowByRow(Matrix m, double[] v, double[] out) {
        int[] start = m.rowStart();
        int[] col = m.col();
        double[] a = m.a();
        for (int i = 0; i < m.n(); i++) {
            double sum = 0;
            for (int k = start[i]; k < start[i + 1]; k++) sum += a[k] * v[col[k]];
            out[i] = sum;
        }
    }
}
