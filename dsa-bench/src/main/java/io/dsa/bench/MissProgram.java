package io.dsa.bench;

import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ReduceOp;
import io.dsa.SharedDoubleArray;
import java.util.Arrays;

/**
 * Remote read and write miss times on a 2-node, 1-thread VM. Arguments: {@code SIDES WARMUP ITERS}
 * (SIDES comma-separated, e.g. {@code 8,16,32,64,128}). For each side {@code s}, a shared
 * {@code s x 2s} array of {@code s x s} partitions puts partition 0 at node 0 (BLOCK). Each round:
 * node 0 (the home) writes an element, which invalidates node 1's copy; barrier; node 1 times
 * {@code readPartition(0)} (a read miss: GET_S, the whole partition back); barrier; node 0 writes
 * again; barrier; node 1 times one element write to partition 0 (a write miss); barrier. Only
 * node 1's timed calls are measured. Thread 0 reports {@code "miss SIDE READ_MEDIAN_NS READ_P90_NS
 * WRITE_MEDIAN_NS WRITE_P90_NS"} (node 1's numbers, carried by MAX reductions).
 */
public final class MissProgram implements DsaProgram {
    private int[] sides;
    private SharedDoubleArray[] arrays;

    /** Creates the program; {@link #setup} reads the arguments. */
    public MissProgram() {}

    @Override
    public void setup(DsaNode node) {
        if (node.network().nodeCount() != 2) {
            throw new IllegalArgumentException("miss needs exactly 2 nodes, got " + node.network().nodeCount());
        }
        sides = Arrays.stream(node.args().get(0).split(",")).mapToInt(Integer::parseInt).toArray();
        arrays = new SharedDoubleArray[sides.length];
        for (int i = 0; i < sides.length; i++) {
            arrays[i] = node.createSharedDoubleArray("miss" + sides[i], sides[i], 2 * sides[i], sides[i]);
        }
    }

    @Override
    public void work(DsaWorker worker) {
        int warmup = Integer.parseInt(worker.node().args().get(1));
        int iters = Integer.parseInt(worker.node().args().get(2));
        boolean reader = worker.nodeId() == 1;
        for (int i = 0; i < sides.length; i++) {
            SharedDoubleArray a = arrays[i];
            if (a.homeOf(0) != 0) throw new IllegalStateException("partition 0 of " + sides[i] + "x" + 2 * sides[i] + " is not at node 0");
            double[] buffer = new double[sides[i] * sides[i]];
            double[] read = new double[iters], write = new double[iters];
            for (int k = -warmup; k < iters; k++) {
                if (!reader) a.write(0, 0, k);
                worker.barrier();
                if (reader) {
                    long t0 = System.nanoTime();
                    a.readPartition(0, buffer);
                    long t1 = System.nanoTime();
                    if (buffer[0] != k) throw new IllegalStateException("read miss saw " + buffer[0] + ", expected " + k);
                    if (k >= 0) read[k] = t1 - t0;
                }
                worker.barrier();
                if (!reader) a.write(0, 0, k + 0.5);
                worker.barrier();
                if (reader) {
                    long t0 = System.nanoTime();
                    a.write(0, 1, k);
                    long t1 = System.nanoTime();
                    if (k >= 0) write[k] = t1 - t0;
                }
                worker.barrier();
            }
            double[] mine = reader
                    ? new double[] {BenchOut.median(read), BenchOut.percentile(read, 90), BenchOut.median(write), BenchOut.percentile(write, 90)}
                    : new double[4];
            StringBuilder line = new StringBuilder("miss ").append(sides[i]);
            for (double v : mine) line.append(' ').append(worker.allReduce(v, ReduceOp.MAX));
            if (worker.threadId() == 0) worker.node().report(line.toString());
        }
    }
}
