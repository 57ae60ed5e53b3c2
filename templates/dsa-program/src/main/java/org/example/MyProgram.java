package org.example;

import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ProgramName;
import io.dsa.ReduceOp;
import io.dsa.SharedDoubleArray;
import java.util.List;

/**
 * A DSA program: the sum of 1..n, each worker adding its block of a shared array. Replace the
 * body with yours. Registered in META-INF/services/io.dsa.DsaProgram, so {@code dsa run} knows it
 * as {@code my-program}.
 *
 * <p>Arguments: {@code [n=1000]}.
 */
@ProgramName("my-program")
public final class MyProgram implements DsaProgram {
    private int n;
    private SharedDoubleArray values;

    /** {@code dsa run} creates one instance per node with this constructor. */
    public MyProgram() {}

    /** Runs before any node starts: a bad argument is one clear line and exit code 2. */
    @Override
    public void validate(List<String> args, int nodes, int threadsPerNode) {
        parseArgs(args);
    }

    /** Once per node: read the arguments, create the shared arrays (every node, the same calls). */
    @Override
    public void setup(DsaNode node) {
        parseArgs(node.args());
        values = node.createSharedDoubleArray("my-program.values", n, Math.max(1, n / 64));
    }

    /** Once per worker thread, on every node. */
    @Override
    public void work(DsaWorker worker) {
        int from = values.layout().startingIndexAtThread(worker.threadId());
        int to = values.layout().maxIndexAtThread(worker.threadId());
        for (int i = from; i < to; i++) values.write(i, i + 1);
        worker.barrier();   // every block written
        double partial = 0;
        for (int i = from; i < to; i++) partial += values.read(i);
        double sum = worker.allReduce(partial, ReduceOp.SUM);
        if (worker.threadId() == 0) {
            worker.node().progress("summed " + n + " values");
            double expected = (double) n * (n + 1) / 2;
            if (sum != expected) throw new IllegalStateException("sum " + sum + ", expected " + expected);
            worker.node().report("sum of 1.." + n + " = " + (long) sum + " (verified)");
        }
    }

    private void parseArgs(List<String> args) {
        if (args.size() > 1) throw new IllegalArgumentException("my-program: " + args.size() + " arguments given, at most 1: [n=1000]");
        String text = args.isEmpty() ? "1000" : args.get(0);
        try {
            n = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("my-program: n '" + text + "' is not an integer");
        }
        if (n < 1 || n > 100_000_000) throw new IllegalArgumentException("my-program: n " + n + " out of range [1, 100000000]");
    }
}
