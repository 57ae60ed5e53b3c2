package io.dsa.bench;

import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ReduceOp;

/**
 * Times the global barrier: args WARMUP WARMUP_MS ITERS REPS. The warm-up runs batches of
 * barriers until at least WARMUP barriers and WARMUP_MS milliseconds have passed on every worker
 * (decided with an {@code any} vote, so all workers run the same number of barriers): the JIT
 * must have compiled the barrier path before timing starts. Each repetition then times ITERS
 * consecutive barriers with {@link System#nanoTime()}; the per-barrier time is reduced with MAX
 * over all workers and worker 0 reports {@code "rep R NANOS"}.
 */
public final class BarrierProgram implements DsaProgram {
    private static final int WARMUP_BATCH = 50;

    @Override
    public void work(DsaWorker worker) {
        var args = worker.node().args();
        int warmup = Integer.parseInt(args.get(0));
        long warmupNanos = Long.parseLong(args.get(1)) * 1_000_000L;
        int iters = Integer.parseInt(args.get(2));
        int reps = Integer.parseInt(args.get(3));
        long start = System.nanoTime();
        int done = 0;
        boolean more = true;
        while (more) {
            for (int i = 0; i < WARMUP_BATCH; i++) worker.barrier();
            done += WARMUP_BATCH;
            more = worker.any(done < warmup || System.nanoTime() - start < warmupNanos);
        }
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
