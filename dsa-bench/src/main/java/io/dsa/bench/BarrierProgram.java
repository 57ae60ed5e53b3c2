package io.dsa.bench;

import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ReduceOp;

/**
 * Times the global barrier: args WARMUP ITERS REPS. After WARMUP barriers, each repetition times
 * ITERS consecutive barriers with {@link System#nanoTime()}; the per-barrier time is reduced with
 * MAX over all workers and worker 0 reports {@code "rep R NANOS"}.
 */
public final class BarrierProgram implements DsaProgram {
    @Override
    public void work(DsaWorker worker) {
        var args = worker.node().args();
        int warmup = Integer.parseInt(args.get(0));
        int iters = Integer.parseInt(args.get(1));
        int reps = Integer.parseInt(args.get(2));
        for (int i = 0; i < warmup; i++) worker.barrier();
        for (int r = 0; r < reps; r++) {
            worker.barrier();
            long t0 = System.nanoTime();
            for (int i = 0; i < iters; i++) worker.barrier();
            double perBarrier = (double) (System.nanoTime() - t0) / iters;
            double max = worker.allReduce(perBarrier, ReduceOp.MAX);
            if (worker.threadId() == 0) worker.node().report("rep " + r + " " + max);
        }
    }
}
