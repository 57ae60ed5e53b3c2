package io.dsa.examples;

import io.dsa.DsaException;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ProgramName;
import io.dsa.SharedDoubleArray;
import java.util.List;

/**
 * Matrix multiply {@code C = A * B} of shared {@code n x n} double matrices (the paper's Figure 3
 * program): every worker fills its block of rows of {@code A} and {@code B}, then computes its
 * block of rows of {@code C} from region reads of {@code A} and {@code B}, one panel of the inner
 * dimension at a time. Thread 0 checks every
 * element of {@code C} against a sequential product; the matrices hold small integers, so every
 * sum is exact and the check is exact.
 *
 * <p>Arguments: {@code [n=128] [partitionSize=16]}.
 */
@ProgramName("matmul")
public final class MatMul implements DsaProgram {
    static final String NAME = "matmul";
    static final String USAGE = "matmul [n=128] [partitionSize=16]";

    private int n;
    private SharedDoubleArray matrixA;
    private SharedDoubleArray matrixB;
    private SharedDoubleArray matrixC;

    private int partitionSize;

    /** Creates the program; {@link #setup(DsaNode)} reads the arguments. */
    public MatMul() {}

    @Override
    public void setup(DsaNode node) {
        parseArgs(node.args(), node.network().getGlobalThreadCount());
        matrixA = node.createSharedDoubleArray("matmul.A", n, n, partitionSize);
        matrixB = node.createSharedDoubleArray("matmul.B", n, n, partitionSize);
        matrixC = node.createSharedDoubleArray("matmul.C", n, n, partitionSize);
    }

    /** Checks the arguments before any node starts (the same parse as {@link #setup(DsaNode)}). */
    @Override
    public void validate(List<String> args, int nodes, int threadsPerNode) {
        parseArgs(args, nodes * threadsPerNode);
    }

    // Reads the arguments into the fields; throws IllegalArgumentException naming a bad one.
    private void parseArgs(List<String> args, int threads) {
        ProgramArgs.atMost(NAME, args, 2, USAGE);
        n = ProgramArgs.intArg(NAME, args, 0, "n", 128, 1, 8192);
        partitionSize = ProgramArgs.intArg(NAME, args, 1, "partitionSize", Math.min(16, n), 1, n);
    }

    @Override
    public void work(DsaWorker worker) {
        int threadId = worker.threadId();
        int from = matrixA.layout().startingIndexAtThread(threadId);
        int to = matrixA.layout().maxIndexAtThread(threadId);
        int rows = to - from;

        if (rows > 0) {
            double[] block = new double[rows * n];
            fill(block, from, rows, n, MatMul::aAt);
            matrixA.write(from, 0, rows, n, block);
            fill(block, from, rows, n, MatMul::bAt);
            matrixB.write(from, 0, rows, n, block);
        }
        worker.barrier();

        if (rows > 0) {
            double[] cRows = new double[rows * n];
            multiplyRows(from, rows, cRows);
            matrixC.write(from, 0, rows, n, cRows);
        }
        worker.barrier();

        if (threadId == 0) {
            double[] c = new double[n * n];
            matrixC.read(0, 0, n, n, c);
            double checksum = check(c, n);
            worker.node().report("matmul " + n + "x" + n + ": C = A*B, sum of C = " + (long) checksum
                    + " (verified against sequential)");
        }
    }

    /** {@code A[i][j]}: a small integer, so products and sums are exact in double. */
    static double aAt(int i, int j) { return (i * 7L + j * 3L) % 11 - 5; }

    /** {@code B[i][j]}: a small integer. */
    static double bAt(int i, int j) { return (i * 5L + j * 2L) % 13 - 6; }

    /** {@code C[i][j]} of the sequential product. */
    static double cAt(int i, int j, int n) {
        double sum = 0;
        for (int k = 0; k < n; k++) sum += aAt(i, k) * bAt(k, j);
        return sum;
    }

    /**
     * Checks {@code c} (row-major {@code n x n}) element by element against the sequential product.
     *
     * @return the sum of all elements of {@code c}
     * @throws DsaException naming the first wrong element, its value and the expected one
     */
    static double check(double[] c, int n) {
        double checksum = 0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                double expected = cAt(i, j, n);
                double actual = c[i * n + j];
                if (actual != expected) {
                    throw new DsaException(NAME + ": C[" + i + "][" + j + "] = " + actual + ", expected " + expected
                            + " (sequential product)");
                }
                checksum += actual;
            }
        }
        return checksum;
    }

    private interface Element { double at(int i, int j); }

    private static void fill(double[] block, int firstRow, int rows, int n, Element element) {
        for (int r = 0; r < rows; r++) {
            for (int j = 0; j < n; j++) block[r * n + j] = element.at(firstRow + r, j);
        }
    }

    /**
     * {@code cRows = A[from..from+rows) * B}, a panel of {@code k} at a time: a {@code rows x h}
     * region of A and an {@code h x n} region of B, with {@code h} the partition height, so a
     * thread holds two panels rather than all of B.
     */
    private void multiplyRows(int from, int rows, double[] cRows) {
        int panel = matrixB.layout().spec().partitionRows();
        double[] aPanel = new double[rows * panel];
        double[] bPanel = new double[panel * n];
        for (int k0 = 0; k0 < n; k0 += panel) {
            int h = Math.min(panel, n - k0);
            matrixA.read(from, k0, rows, h, aPanel);
            matrixB.read(k0, 0, h, n, bPanel);
            for (int r = 0; r < rows; r++) {
                for (int k = 0; k < h; k++) {
                    double aik = aPanel[r * h + k];
                    for (int j = 0; j < n; j++) cRows[r * n + j] += aik * bPanel[k * n + j];
                }
            }
        }
    }
}
