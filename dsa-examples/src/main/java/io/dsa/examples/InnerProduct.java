package io.dsa.examples;

import io.dsa.ArrayLayout;
import io.dsa.DsaException;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ProgramName;
import io.dsa.ReduceOp;
import io.dsa.SharedDoubleArray;
import java.util.List;

/**
 * The inner product of two shared vectors (the idea of the paper's Figure 3): every worker fills
 * its block of {@code a} and {@code b}, computes the partial dot product of that block, and an
 * all-reduce adds the partials. Thread 0 checks every element and the total against a sequential
 * computation and reports the result.
 *
 * <p>Arguments: {@code [length=1024] [partitionSize=32]}.
 */
@ProgramName("inner-product")
public final class InnerProduct implements DsaProgram {
    static final String NAME = "inner-product";
    static final String USAGE = "inner-product [length=1024] [partitionSize=32]";
    /** Tolerance on the total: the all-reduce may associate the (all positive) partial sums differently. */
    static final double RELATIVE_TOLERANCE = 1e-12;

    private int length;
    private SharedDoubleArray a;
    private SharedDoubleArray b;

    private int partitionSize;

    /** Creates the program; {@link #setup(DsaNode)} reads the arguments. */
    public InnerProduct() {}

    @Override
    public void setup(DsaNode node) {
        parseArgs(node.args(), node.network().getGlobalThreadCount());
        a = node.createSharedDoubleArray("inner-product.a", length, partitionSize);
        b = node.createSharedDoubleArray("inner-product.b", length, partitionSize);
    }

    /** Checks the arguments before any node starts (the same parse as {@link #setup(DsaNode)}). */
    @Override
    public void validate(List<String> args, int nodes, int threadsPerNode) {
        parseArgs(args, nodes * threadsPerNode);
    }

    // Reads the arguments into the fields; throws IllegalArgumentException naming a bad one.
    private void parseArgs(List<String> args, int threads) {
        ProgramArgs.atMost(NAME, args, 2, USAGE);
        length = ProgramArgs.intArg(NAME, args, 0, "length", 1024, 1, 1 << 28);
        partitionSize = ProgramArgs.intArg(NAME, args, 1, "partitionSize", Math.min(32, length), 1, length);
    }

    @Override
    public void work(DsaWorker worker) {
        ArrayLayout layout = a.layout();
        int threadId = worker.threadId();
        int from = layout.startingIndexAtThread(threadId);
        int to = layout.maxIndexAtThread(threadId);
        for (int i = from; i < to; i++) {
            a.write(i, aAt(i));
            b.write(i, bAt(i));
        }
        worker.barrier();

        double partial = 0;
        for (int i = from; i < to; i++) {
            partial += a.read(i) * b.read(i);
        }
        double total = worker.allReduce(partial, ReduceOp.SUM);

        if (threadId == 0) {
            checkElements(a, b, length);
            double expected = sequential(layout, worker.node().network().getGlobalThreadCount(), length);
            check(length, total, expected);
            worker.node().report("inner product of " + length + " elements = " + total + " (verified against sequential)");
        }
    }

    /** Element {@code i} of {@code a}: positive, so the sum has no cancellation. */
    static double aAt(int i) { return 1.0 / (i + 1); }

    /** Element {@code i} of {@code b}. */
    static double bAt(int i) { return (i % 7) + 0.25; }

    /** The dot product computed sequentially, in the same per-thread blocks the workers use. */
    static double sequential(ArrayLayout layout, int globalThreads, int length) {
        double total = 0;
        for (int t = 0; t < globalThreads; t++) {
            double partial = 0;
            for (int i = layout.startingIndexAtThread(t); i < layout.maxIndexAtThread(t); i++) {
                partial += aAt(i) * bAt(i);
            }
            total += partial;
        }
        return total;
    }

    /** @throws DsaException if an element of {@code a} or {@code b} is not what its owner wrote */
    static void checkElements(SharedDoubleArray a, SharedDoubleArray b, int length) {
        for (int i = 0; i < length; i++) {
            double x = a.read(i);
            if (x != aAt(i)) throw mismatch("a", i, aAt(i), x);
            double y = b.read(i);
            if (y != bAt(i)) throw mismatch("b", i, bAt(i), y);
        }
    }

    /** @throws DsaException if {@code actual} differs from {@code expected} by more than the tolerance */
    static void check(int length, double actual, double expected) {
        double error = Math.abs(actual - expected) / Math.max(Math.abs(expected), Double.MIN_NORMAL);
        if (!(error <= RELATIVE_TOLERANCE)) {   // also catches NaN
            throw new DsaException("inner product of " + length + " elements = " + actual + ", expected " + expected
                    + " (sequential): relative error " + error + " > " + RELATIVE_TOLERANCE);
        }
    }

    private static DsaException mismatch(String array, int index, double expected, double actual) {
        return new DsaException(NAME + ": " + array + "[" + index + "] = " + actual + ", expected " + expected);
    }
}
