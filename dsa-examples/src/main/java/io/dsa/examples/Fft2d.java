package io.dsa.examples;

import io.dsa.ArrayLayout;
import io.dsa.ArraySpec;
import io.dsa.ArrayUse;
import io.dsa.Distribution;
import io.dsa.DsaException;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaScope;
import io.dsa.DsaWorker;
import io.dsa.ElementType;
import io.dsa.ProgramName;
import io.dsa.ReduceOp;
import io.dsa.SharedDoubleArray;
import java.util.List;

/**
 * The 2-D FFT of an {@code n x n} complex array (the paper's section 4.5.2), held as two shared
 * double arrays (real and imaginary parts) in {@code p x p} partitions. Each worker owns a band of
 * rows. One pass: a worker reads its rows, transforms each row with a sequential radix-2 FFT
 * ({@link Fft}), and writes the result transposed into the second pair of shared arrays (the
 * communication step: its rows become columns spread over every node's partitions); barrier. Two
 * passes make the 2-D transform, back in the first arrays in the normal orientation.
 *
 * <p>Verification: thread 0 compares the forward result with a sequential 2-D FFT of the same
 * input (and, for {@code n <= 256}, with the DFT by definition); then every worker runs the
 * parallel inverse and compares its rows with the input. Errors are max abs differences relative
 * to the largest magnitude of the reference, and must be below {@code 1e-9}.
 *
 * <p>{@link Scoped} ({@code fft-scoped}) reads each home band of the source once, transforms it and
 * writes it transposed in a release scope.
 *
 * <p>Arguments: {@code [n=1024] [partitionSize=64]} ({@code n} a power of two).
 */
@ProgramName("fft")
public class Fft2d implements DsaProgram {
    static final String NAME = "fft";
    static final String USAGE = "fft [n=1024] [partitionSize=64]";
    /** Largest accepted relative error. */
    static final double TOLERANCE = 1e-9;
    /** Largest n for which thread 0 also checks against the DFT by definition ({@code O(n^3)}). */
    static final int DIRECT_DFT_MAX_N = 256;

    private int n;
    private int partitionSize;
    private SharedDoubleArray re;
    private SharedDoubleArray im;
    private SharedDoubleArray transposedRe;
    private SharedDoubleArray transposedIm;
    /** Test hook: thread 0 adds {@code corruptDelta} to this element of the forward result before the inverse. */
    private int[] corruptAt;
    private double corruptDelta;

    /** Whether this is {@link Scoped}: each pass transforms its node's home bands of the source and writes the transpose buffered. */
    private final boolean scoped;

    /** Creates the program; {@link #setup(DsaNode)} reads the arguments. */
    public Fft2d() { this(false); }

    private Fft2d(boolean scoped) { this.scoped = scoped; }

    /**
     * {@code fft-scoped}: the same 2-D FFT with each pass in a scope. The arrays are in bands of
     * {@code partitionSize} full rows ({@link Distribution#BLOCK}). In a pass each worker reads each
     * of its bands of the source pair ({@link ArrayLayout#partitionsOfThread}: partitions its node
     * homes, so the reads are local hits) into a plain array once and transforms its rows there; the
     * destination pair is release: the worker writes each band, transposed, as columns
     * {@code [r0, r0+h)} of every row, into its node's buffer, and the scope's end sends the
     * buffered writes to the homes as diffs. Every band of the destination is thus written by
     * every node, without any node demanding it in or taking it over (the Aurora paper's release
     * behaviour for multi-writer data). The two passes are one scope switched to the next
     * ({@link DsaScope#next}) in one round, and the second scope's closing is the transform's
     * barrier. Same arguments (the partition is {@code partitionSize x n}) and the same checks as
     * {@code fft}.
     */
    @ProgramName("fft-scoped")
    public static final class Scoped extends Fft2d {
        /** Creates the program; {@link #setup(DsaNode)} reads the arguments. */
        public Scoped() { super(true); }
    }

    /** Test hook: the inverse check must then fail naming element {@code (row, col)}. */
    Fft2d corruptBeforeInverse(int row, int col, double delta) {
        corruptAt = new int[] {row, col};
        corruptDelta = delta;
        return this;
    }

    @Override
    public void setup(DsaNode node) {
        parseArgs(node.args(), node.network().getGlobalThreadCount());
        re = create(node, "fft.re");
        im = create(node, "fft.im");
        transposedRe = create(node, "fft.transposed.re");
        transposedIm = create(node, "fft.transposed.im");
    }

    // square partitions for fft, bands of full rows for fft-scoped (each home band's rows transformed whole)
    private SharedDoubleArray create(DsaNode node, String name) {
        return scoped ? (SharedDoubleArray) node.createSharedArray(
                ArraySpec.of(name, ElementType.DOUBLE, n, n, partitionSize, n, Distribution.BLOCK))
                : node.createSharedDoubleArray(name, n, n, partitionSize);
    }

    /** Checks the arguments before any node starts (the same parse as {@link #setup(DsaNode)}). */
    @Override
    public void validate(List<String> args, int nodes, int threadsPerNode) {
        parseArgs(args, nodes * threadsPerNode);
    }

    // Reads the arguments into the fields; throws IllegalArgumentException naming a bad one.
    private void parseArgs(List<String> args, int threads) {
        ProgramArgs.atMost(programName(), args, 2, programName() + USAGE.substring(NAME.length()));
        n = ProgramArgs.intArg(programName(), args, 0, "n", 1024, 1, 1 << 14);
        if (!Fft.isPowerOfTwo(n)) throw new IllegalArgumentException(programName() + ": n " + n + " is not a power of two");
        partitionSize = ProgramArgs.intArg(programName(), args, 1, "partitionSize", Math.min(64, n), 1, n);
    }

    /** @return the name this program runs under: {@code NAME}, or {@code NAME-scoped} for {@link Scoped} */
    private String programName() { return scoped ? NAME + "-scoped" : NAME; }

    @Override
    public void work(DsaWorker worker) {
        ArrayLayout layout = re.layout();
        int threadId = worker.threadId();
        int from = layout.startingIndexAtThread(threadId);
        int rows = layout.maxIndexAtThread(threadId) - from;
        double[] bandRe = new double[(scoped ? Math.max(rows, partitionSize) : rows) * n];   // fft-scoped: a home band at a time
        double[] bandIm = new double[(scoped ? Math.max(rows, partitionSize) : rows) * n];
        double[] columnsRe = new double[(scoped ? Math.max(rows, partitionSize) : rows) * n];   // fft-scoped: a band transposed
        double[] columnsIm = new double[rows * n];

        double inputMagnitude = 0;
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < n; c++) {
                bandRe[r * n + c] = inputRe(from + r, c);
                bandIm[r * n + c] = inputIm(from + r, c);
                inputMagnitude = Math.max(inputMagnitude, Math.hypot(bandRe[r * n + c], bandIm[r * n + c]));
            }
        }
        if (rows > 0) {
            re.write(from, 0, rows, n, bandRe);
            im.write(from, 0, rows, n, bandIm);
        }
        worker.barrier();

        long start = System.nanoTime();
        transform(worker, false, from, rows, bandRe, bandIm, columnsRe, columnsIm);
        double forwardSeconds = (System.nanoTime() - start) / 1e9;

        double forwardError = Double.NaN;
        double directError = Double.NaN;
        if (threadId == 0) {
            double[] resultRe = new double[n * n];
            double[] resultIm = new double[n * n];
            re.read(0, 0, n, n, resultRe);
            im.read(0, 0, n, n, resultIm);
            double[] expectedRe = new double[n * n];
            double[] expectedIm = new double[n * n];
            fillInput(expectedRe, expectedIm, n);
            if (n <= DIRECT_DFT_MAX_N) {
                double[] directRe = expectedRe.clone();
                double[] directIm = expectedIm.clone();
                Fft.directDft2d(directRe, directIm, n);
                directError = compare("forward result vs DFT by definition", resultRe, resultIm, directRe, directIm, n, 0, n);
            }
            Fft.transform2d(expectedRe, expectedIm, n, false);
            forwardError = compare("forward result vs sequential FFT", resultRe, resultIm, expectedRe, expectedIm, n, 0, n);
            if (corruptAt != null) {
                re.write(corruptAt[0], corruptAt[1], re.read(corruptAt[0], corruptAt[1]) + corruptDelta);
            }
        }
        worker.barrier();

        start = System.nanoTime();
        transform(worker, true, from, rows, bandRe, bandIm, columnsRe, columnsIm);
        double inverseSeconds = (System.nanoTime() - start) / 1e9;

        // Each worker checks its own rows of the round trip against the input.
        double maxMagnitude = worker.allReduce(inputMagnitude, ReduceOp.MAX);
        double[] expectedRe = new double[rows * n];
        double[] expectedIm = new double[rows * n];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < n; c++) {
                expectedRe[r * n + c] = inputRe(from + r, c);
                expectedIm[r * n + c] = inputIm(from + r, c);
            }
        }
        if (rows > 0) {
            re.read(from, 0, rows, n, bandRe);
            im.read(from, 0, rows, n, bandIm);
        }
        double localError = maxError(bandRe, bandIm, expectedRe, expectedIm, rows * n);
        double inverseError = worker.allReduce(localError, ReduceOp.MAX) / maxMagnitude;
        boolean failed = !(inverseError < TOLERANCE);
        if (failed && (Double.isNaN(inverseError) ? Double.isNaN(localError) : localError / maxMagnitude == inverseError)) {
            // this worker holds the worst element: name it
            compareRelativeTo("inverse of the forward result vs input", bandRe, bandIm, expectedRe, expectedIm, n, from, rows,
                    maxMagnitude);
        }
        worker.barrier();   // a worker that threw releases the others with an exception here
        if (failed) {
            throw new DsaException(NAME + ": inverse transform differs from the input: relative error " + inverseError
                    + " >= " + TOLERANCE);
        }

        if (threadId == 0) {
            String direct = n <= DIRECT_DFT_MAX_N ? String.format(", vs DFT by definition %.3e", directError) : "";
            worker.node().report(String.format("fft %dx%d, partitions %dx%d%s: max relative error vs sequential FFT %.3e%s,"
                            + " inverse vs input %.3e (verified, < %.0e), forward %.3f s, inverse %.3f s",
                    n, n, partitionSize, scoped ? n : partitionSize, scoped ? ", scoped (home bands read once, transpose written in release)" : "",
                    forwardError, direct, inverseError, TOLERANCE,
                    forwardSeconds, inverseSeconds));
        }
    }

    /**
     * The 2-D transform (or its inverse) of {@code re, im} into {@code re, im}: two passes, each
     * ending in a barrier; in {@link Scoped}, {@link #passesScoped}.
     */
    private void transform(DsaWorker worker, boolean inverse, int from, int rows, double[] bandRe, double[] bandIm,
                           double[] columnsRe, double[] columnsIm) {
        if (scoped) {
            passesScoped(worker, inverse, bandRe, bandIm, columnsRe);
            return;
        }
        pass(re, im, transposedRe, transposedIm, from, rows, inverse, bandRe, bandIm, columnsRe, columnsIm);
        worker.barrier();
        pass(transposedRe, transposedIm, re, im, from, rows, inverse, bandRe, bandIm, columnsRe, columnsIm);
        worker.barrier();
    }

    /** One pass: read rows {@code [from, from+rows)} of {@code src}, transform them, write them transposed into {@code dst}. */
    private void pass(SharedDoubleArray srcRe, SharedDoubleArray srcIm, SharedDoubleArray dstRe, SharedDoubleArray dstIm,
                      int from, int rows, boolean inverse, double[] bandRe, double[] bandIm, double[] columnsRe,
                      double[] columnsIm) {
        if (rows == 0) return;
        srcRe.read(from, 0, rows, n, bandRe);
        srcIm.read(from, 0, rows, n, bandIm);
        Fft.rows(bandRe, bandIm, rows, n, inverse);
        Fft.transpose(bandRe, rows, n, columnsRe);
        Fft.transpose(bandIm, rows, n, columnsIm);
        dstRe.write(0, from, n, rows, columnsRe);
        dstIm.write(0, from, n, rows, columnsIm);
    }

    /**
     * {@link Scoped}'s two passes, one scope each, switched in one round: the source pair stays
     * outside the scope (each worker reads each of its home bands into {@code bandRe}/{@code bandIm}
     * once, local hits, and transforms its rows there: owner computes would copy the band in at
     * the opening and back out at the closing, and the copy back is wasted, since the transformed
     * rows go to the destination and the next pass rewrites the source whole) and the destination
     * pair is release (each worker writes its
     * transformed rows transposed, as columns of every band, into the node's buffer; the scope's
     * end sends them to the homes as diffs, so no destination partition is ever demanded in or
     * owned elsewhere, although both nodes write parts of each). The second pass swaps the pairs.
     * The closing of the second scope is the transform's last barrier.
     */
    private void passesScoped(DsaWorker worker, boolean inverse, double[] bandRe, double[] bandIm, double[] columns) {
        DsaScope scope = worker.scope(ArrayUse.release(transposedRe), ArrayUse.release(transposedIm));
        try {
            transformAndTranspose(worker, re, im, transposedRe, transposedIm, inverse, bandRe, bandIm, columns);
            scope = scope.next(ArrayUse.release(re), ArrayUse.release(im));
            transformAndTranspose(worker, transposedRe, transposedIm, re, im, inverse, bandRe, bandIm, columns);
        } finally {
            scope.close();
        }
    }

    // Reads each of this worker's bands of src into band (its node homes them: local hits), transforms its rows there and
    // writes them transposed into dst (columns r0..r0+h) through columns (both at least n x partitionSize).
    private void transformAndTranspose(DsaWorker worker, SharedDoubleArray srcRe, SharedDoubleArray srcIm, SharedDoubleArray dstRe,
                                       SharedDoubleArray dstIm, boolean inverse, double[] bandRe, double[] bandIm, double[] columns) {
        ArrayLayout layout = srcRe.layout();
        for (int part : layout.partitionsOfThread(worker.threadId())) {
            int r0 = layout.partitionFirstRow(part);
            int h = layout.partitionRows(part);
            srcRe.read(r0, 0, h, n, bandRe);   // local hits: the node's home band, read once
            srcIm.read(r0, 0, h, n, bandIm);
            Fft.rows(bandRe, bandIm, h, n, inverse);
            Fft.transpose(bandRe, h, n, columns);
            dstRe.write(0, r0, n, h, columns);
            Fft.transpose(bandIm, h, n, columns);
            dstIm.write(0, r0, n, h, columns);
        }
    }

    /** Real part of input element {@code (r, c)}: deterministic, in [-1, 1). */
    static double inputRe(int r, int c) { return unit(r, c, 0x51ED27L) * 2 - 1; }

    /** Imaginary part of input element {@code (r, c)}: deterministic, in [-1, 1). */
    static double inputIm(int r, int c) { return unit(r, c, 0x2545F491L) * 2 - 1; }

    private static double unit(int r, int c, long salt) {
        long z = (long) r * 0x9E3779B97F4A7C15L + (long) c * 0xC2B2AE3D27D4EB4FL + salt;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        return (z >>> 11) * 0x1.0p-53;
    }

    static void fillInput(double[] re, double[] im, int n) {
        for (int r = 0; r < n; r++) {
            for (int c = 0; c < n; c++) {
                re[r * n + c] = inputRe(r, c);
                im[r * n + c] = inputIm(r, c);
            }
        }
    }

    private static double maxError(double[] re, double[] im, double[] expectedRe, double[] expectedIm, int length) {
        double worst = 0;
        for (int i = 0; i < length; i++) {
            double error = Math.hypot(re[i] - expectedRe[i], im[i] - expectedIm[i]);
            if (Double.isNaN(error)) return Double.NaN;
            worst = Math.max(worst, error);
        }
        return worst;
    }

    /**
     * Compares rows {@code [firstRow, firstRow+rows)} (held from index 0 of the arrays, {@code n}
     * wide) with the expected values, relative to the largest expected magnitude.
     *
     * @return the max abs error relative to the largest expected magnitude
     * @throws DsaException naming the worst element, its value and the expected one
     */
    static double compare(String what, double[] re, double[] im, double[] expectedRe, double[] expectedIm, int n,
                          int firstRow, int rows) {
        double magnitude = 0;
        for (int i = 0; i < rows * n; i++) magnitude = Math.max(magnitude, Math.hypot(expectedRe[i], expectedIm[i]));
        return compareRelativeTo(what, re, im, expectedRe, expectedIm, n, firstRow, rows, magnitude);
    }

    private static double compareRelativeTo(String what, double[] re, double[] im, double[] expectedRe, double[] expectedIm,
                                            int n, int firstRow, int rows, double magnitude) {
        double worst = -1;
        int worstIndex = 0;
        for (int i = 0; i < rows * n; i++) {
            double error = Math.hypot(re[i] - expectedRe[i], im[i] - expectedIm[i]);
            if (Double.isNaN(error)) {
                worst = Double.NaN;
                worstIndex = i;
                break;
            }
            if (error > worst) {
                worst = error;
                worstIndex = i;
            }
        }
        double relative = worst / Math.max(magnitude, Double.MIN_NORMAL);
        if (!(relative < TOLERANCE)) {
            int row = firstRow + worstIndex / n;
            int col = worstIndex % n;
            throw new DsaException(NAME + ": " + what + ": element [" + row + "][" + col + "] = " + re[worstIndex] + " + "
                    + im[worstIndex] + "i, expected " + expectedRe[worstIndex] + " + " + expectedIm[worstIndex]
                    + "i: relative error " + relative + " >= " + TOLERANCE);
        }
        return relative;
    }
}
