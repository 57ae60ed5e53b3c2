package io.dsa.bench;

import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ReduceOp;
import io.dsa.SharedDoubleArray;
import java.util.Arrays;

/**
 * Average write cost (paper Fig. 10) on an N-node, 1-thread VM. Arguments: {@code SIDES STRIDES
 * WARMUP ITERS}. For each side {@code s} a shared {@code s x s*N} array puts partition 0 at node 0.
 * Each round: every node but the writer (node 1) reads partition 0 (so N-1 nodes share it);
 * barrier; node 1 times writes to every {@code stride}-th element of partition 0 (the first write
 * misses and invalidates the sharers, the rest hit); barrier. The cost is the round's time over
 * its number of writes. Thread 0 reports {@code "wc SIDE STRIDE MEDIAN_NS P90_NS"} (node 1's).
 */
public final class WriteCostProgram implements DsaProgram {
    private int[] sides;
    private int[] strides;
    private SharedDoubleArray[] arrays;

    /** Creates the program; {@link #setup} reads the arguments. */
    public WriteCostProgram() {}

    @Override
    public void setup(DsaNode node) {
        int n = node.network().nodeCount();
        if (n < 2) throw new IllegalArgumentException("write-cost needs at least 2 nodes, got " + n);
        sides = Arrays.stream(node.args().get(0).split(",")).mapToInt(Integer::parseInt).toArray();
        strides = Arrays.stream(node.args().get(1).split(",")).mapToInt(Integer::parseInt).toArray();
        arrays = new SharedDoubleArray[sides.length];
        for (int i = 0; i < sides.length; i++) arrays[i] = node.createSharedDoubleArray("wc" + sides[i], sides[i], sides[i] * n, sides[i]);
    }

    @Override
    public void work(DsaWorker worker) {
        int warmup = Integer.parseInt(worker.node().args().get(2));
        int iters = Integer.parseInt(worker.node().args().get(3));
        boolean writer = worker.nodeId() == 1;
        for (int i = 0; i < sides.length; i++) {
            SharedDoubleArray a = arrays[i];
            int s = sides[i];
            if (a.homeOf(0) != 0) throw new IllegalStateException("partition 0 of the " + s + "-side array is not at node 0");
            double[] buffer = new double[s * s];
            for (int stride : strides) {
                int writes = (s * s + stride - 1) / stride;
                double[] cost = new double[iters];
                for (int k = -warmup; k < iters; k++) {
                    if (!writer) a.readPartition(0, buffer);
                    worker.barrier();
                    if (writer) {
                        long t0 = System.nanoTime();
                        for (int e = 0; e < s * s; e += stride) a.write(e / s, e % s, k);
                        long t1 = System.nanoTime();
                        if (k >= 0) cost[k] = (double) (t1 - t0) / writes;
                    }
                    worker.barrier();
                }
                double median = worker.allReduce(writer ? BenchOut.median(cost) : 0, ReduceOp.MAX);
                double p90 = worker.allReduce(writer ? BenchOut.percentile(cost, 90) : 0, ReduceOp.MAX);
                if (worker.threadId() == 0) worker.node().report("wc " + s + " " + stride + " " + median + " " + p90);
            }
        }
    }
}
