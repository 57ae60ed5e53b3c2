package io.dsa.bench;

import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ReduceOp;
import java.util.Arrays;
import java.util.List;

/**
 * Times the global barrier and the one-value {@code allReduce}: args WARMUP WARMUP_MS ITERS REPS
 * [OPS], OPS a comma-separated list of {@code barrier} and {@code allreduce} (default
 * {@code barrier}). For each operation in turn, the warm-up runs batches of it until at least
 * WARMUP operations and WARMUP_MS milliseconds have passed on every worker (decided with an
 * {@code any} vote, so all workers run the same number): the JIT must have compiled its path
 * before timing starts. Each repetition then times ITERS consecutive operations with
 * {@link System#nanoTime()}; the time per operation is reduced with MAX over all workers and
 * worker 0 reports {@code "OP rep R NANOS"}. The {@code allreduce} operation is
 * {@code allReduce(value, SUM)} of one {@code double} per worker, each result (divided by the
 * number of workers: the mean) the next call's value, so that no call can be skipped.
 */
public final class BarrierProgram implements DsaProgram {
    private static final int WARMUP_BATCH = 50;
    /** The operations this program can time, in the order of the OPS argument's default. */
    static final List<String> OPS = List.of("barrier", "allreduce");

    @Override
    public void work(DsaWorker worker) {
        var args = worker.node().args();
        int warmup = Integer.parseInt(args.get(0));
        long warmupNanos = Long.parseLong(args.get(1)) * 1_000_000L;
        int iters = Integer.parseInt(args.get(2));
        int reps = Integer.parseInt(args.get(3));
        List<String> ops = args.size() > 4 ? Arrays.asList(args.get(4).split(",")) : List.of("barrier");
        for (String op : ops) {
            if (!OPS.contains(op)) throw new IllegalArgumentException("operation " + op + ": use one of " + OPS);
        }
        double value = worker.threadId();
        for (String op : ops) {
            boolean barrier = op.equals("barrier");
            long start = System.nanoTime();
            int done = 0;
            boolean more = true;
            while (more) {
                value = run(worker, barrier, WARMUP_BATCH, value);
                done += WARMUP_BATCH;
                more = worker.any(done < warmup || System.nanoTime() - start < warmupNanos);
            }
            for (int r = 0; r < reps; r++) {
                worker.barrier();
                long t0 = System.nanoTime();
                value = run(worker, barrier, iters, value);
                double perOp = (double) (System.nanoTime() - t0) / iters;
                double max = worker.allReduce(perOp, ReduceOp.MAX);
                if (worker.threadId() == 0) worker.node().report(op + " rep " + r + " " + max);
            }
        }
        if (Double.isNaN(value)) worker.node().report("the reduced value is NaN");
    }

    // count barriers, or count allReduce calls, each one's mean the next one's input
    private static double run(DsaWorker worker, boolean barrier, int count, double value) {
        if (barrier) {
            for (int i = 0; i < count; i++) worker.barrier();
            return value;
        }
        double workers = worker.node().network().getGlobalThreadCount();
        double v = value;
        for (int i = 0; i < count; i++) v = worker.allReduce(v, ReduceOp.SUM) / workers;
        return v;
    }
}
