package io.dsa.examples;

/**
 * A sequential iterative radix-2 FFT on split real and imaginary arrays; no libraries. The
 * {@code fft} program's building block and its sequential reference (also the benchmarks').
 */
public final class Fft {
    private Fft() {}

    /** @return whether {@code n} is a power of two (and positive) */
    static boolean isPowerOfTwo(int n) { return n > 0 && (n & (n - 1)) == 0; }

    /** The twiddle tables by log2 of the length, made on first use (two threads may make equal tables). */
    private static final java.util.concurrent.atomic.AtomicReferenceArray<double[]> TWIDDLES =
            new java.util.concurrent.atomic.AtomicReferenceArray<>(31);

    /**
     * @return {@code cos(2 pi k/n), sin(2 pi k/n)} for {@code k < n/2}, interleaved: each from its angle
     *         directly (not by repeated multiplication), accurate to about an ulp; one table per length,
     *         kept, so that a transform's butterflies read their twiddles instead of calling
     *         {@code Math.cos} and {@code Math.sin} (the C peer, {@code fft_mpi.c}, does the same)
     */
    static double[] twiddles(int n) {
        int log = Integer.numberOfTrailingZeros(n);
        double[] table = TWIDDLES.get(log);
        if (table == null) {
            table = new double[Math.max(2, n)];
            for (int k = 0; k < n / 2; k++) {
                table[2 * k] = Math.cos(2 * Math.PI * k / n);
                table[2 * k + 1] = Math.sin(2 * Math.PI * k / n);
            }
            TWIDDLES.set(log, table);   // a volatile write: a thread that gets the table sees its values
        }
        return table;
    }

    /**
     * In place: {@code (re, im)[offset .. offset+n)} becomes its discrete Fourier transform
     * {@code X[k] = sum_j x[j] e^(-2 pi i jk/n)}, or with {@code inverse} the inverse transform
     * including the factor {@code 1/n}.
     *
     * @throws IllegalArgumentException if {@code n} is not a power of two
     */
    static void transform(double[] re, double[] im, int offset, int n, boolean inverse) {
        if (!isPowerOfTwo(n)) throw new IllegalArgumentException("FFT length " + n + " is not a power of two");
        // bit-reversal permutation
        for (int i = 1, j = 0; i < n; i++) {
            int bit = n >> 1;
            for (; (j & bit) != 0; bit >>= 1) j ^= bit;
            j ^= bit;
            if (i < j) {
                double t = re[offset + i]; re[offset + i] = re[offset + j]; re[offset + j] = t;
                t = im[offset + i]; im[offset + i] = im[offset + j]; im[offset + j] = t;
            }
        }
        double sign = inverse ? 1 : -1;
        double[] twiddles = twiddles(n);
        for (int len = 2; len <= n; len <<= 1) {
            int half = len >> 1;
            int stride = n / len;   // e^(-2 pi i k/len) = e^(-2 pi i (k stride)/n)
            for (int k = 0; k < half; k++) {
                double wr = twiddles[2 * k * stride];
                double wi = sign * twiddles[2 * k * stride + 1];
                for (int start = offset; start < offset + n; start += len) {
                    int a = start + k;
                    int b = a + half;
                    double tr = re[b] * wr - im[b] * wi;
                    double ti = re[b] * wi + im[b] * wr;
                    re[b] = re[a] - tr;
                    im[b] = im[a] - ti;
                    re[a] += tr;
                    im[a] += ti;
                }
            }
        }
        if (inverse) {
            double scale = 1.0 / n;
            for (int i = offset; i < offset + n; i++) {
                re[i] *= scale;
                im[i] *= scale;
            }
        }
    }

    /** Row transforms of the row-major {@code rows x n} arrays. */
    static void rows(double[] re, double[] im, int rows, int n, boolean inverse) {
        for (int r = 0; r < rows; r++) transform(re, im, r * n, n, inverse);
    }

    /** {@code dst = src^T} for a row-major {@code rows x cols} {@code src}; {@code dst} is {@code cols x rows}. */
    static void transpose(double[] src, int rows, int cols, double[] dst) {
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) dst[c * rows + r] = src[r * cols + c];
        }
    }

    /** The sequential 2-D transform of a row-major {@code n x n} array, in place: rows, transpose, rows, transpose. */
    public static void transform2d(double[] re, double[] im, int n, boolean inverse) {
        double[] tr = new double[n * n];
        double[] ti = new double[n * n];
        rows(re, im, n, n, inverse);
        transpose(re, n, n, tr);
        transpose(im, n, n, ti);
        rows(tr, ti, n, n, inverse);
        transpose(tr, n, n, re);
        transpose(ti, n, n, im);
    }

    /**
     * The 2-D DFT by its definition, separably (row DFTs, then column DFTs), {@code O(n^3)}: an
     * independent check of {@link #transform} for small {@code n}.
     */
    static void directDft2d(double[] re, double[] im, int n) {
        double[] cos = new double[n];
        double[] sin = new double[n];
        for (int k = 0; k < n; k++) {
            cos[k] = Math.cos(2 * Math.PI * k / n);
            sin[k] = -Math.sin(2 * Math.PI * k / n);
        }
        double[] outRe = new double[n];
        double[] outIm = new double[n];
        for (int pass = 0; pass < 2; pass++) {
            int along = pass == 0 ? 1 : n;      // stride within a line
            int across = pass == 0 ? n : 1;     // stride between lines
            for (int line = 0; line < n; line++) {
                int base = line * across;
                for (int k = 0; k < n; k++) {
                    double sr = 0;
                    double si = 0;
                    for (int j = 0; j < n; j++) {
                        int w = (int) ((long) j * k % n);
                        double xr = re[base + j * along];
                        double xi = im[base + j * along];
                        sr += xr * cos[w] - xi * sin[w];
                        si += xr * sin[w] + xi * cos[w];
                    }
                    outRe[k] = sr;
                    outIm[k] = si;
                }
                for (int k = 0; k < n; k++) {
                    re[base + k * along] = outRe[k];
                    im[base + k * along] = outIm[k];
                }
            }
        }
    }
}
