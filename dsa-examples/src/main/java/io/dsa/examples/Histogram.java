package io.dsa.examples;

import io.dsa.ArrayLayout;
import io.dsa.DsaException;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ProgramName;
import io.dsa.ReduceOp;
import io.dsa.SharedLongArray;
import java.util.Arrays;
import java.util.List;

/**
 * A histogram built by accumulate (function shipping): every worker counts its share of seeded
 * samples into a private {@code long[]}, then adds the whole of it into the shared histogram with
 * one {@code accumulate(..., ReduceOp.SUM)}, and records, with {@code ReduceOp.MIN}, the first
 * sample that fell into each bin. The updates travel to the bins' homes; no worker ever demands
 * a bin's partition or takes its ownership, so the workers of all nodes add into the same
 * partitions at once without ownership moving between them. Thread 0 recounts sequentially and
 * checks every bin exactly.
 *
 * <p>Arguments: {@code [samples=1000000] [bins=4096] [partitionSize=256] [seed=1]}. A sample is the
 * mean of two seeded uniform values, so the bins near the middle fill fastest.
 */
@ProgramName("histogram")
public final class Histogram implements DsaProgram {
    static final String NAME = "histogram";
    static final String USAGE = "histogram [samples=1000000] [bins=4096] [partitionSize=256] [seed=1]";

    private int samples;
    private int bins;
    private int partitionSize;
    private int seed;
    private SharedLongArray counts;
    private SharedLongArray first;

    /** Creates the program; {@link #setup(DsaNode)} reads the arguments. */
    public Histogram() {}

    @Override
    public void setup(DsaNode node) {
        parseArgs(node.args());
        counts = node.createSharedLongArray("histogram.counts", bins, partitionSize);
        first = node.createSharedLongArray("histogram.first", bins, partitionSize);
    }

    /** Checks the arguments before any node starts (the same parse as {@link #setup(DsaNode)}). */
    @Override
    public void validate(List<String> args, int nodes, int threadsPerNode) {
        parseArgs(args);
    }

    // Reads the arguments into the fields; throws IllegalArgumentException naming a bad one.
    private void parseArgs(List<String> args) {
        ProgramArgs.atMost(NAME, args, 4, USAGE);
        samples = ProgramArgs.intArg(NAME, args, 0, "samples", 1_000_000, 1, 1 << 30);
        bins = ProgramArgs.intArg(NAME, args, 1, "bins", 4096, 1, 1 << 24);
        partitionSize = ProgramArgs.intArg(NAME, args, 2, "partitionSize", Math.min(256, bins), 1, bins);
        seed = ProgramArgs.intArg(NAME, args, 3, "seed", 1, 0, Integer.MAX_VALUE);
    }

    @Override
    public void work(DsaWorker worker) {
        int threads = worker.node().network().getGlobalThreadCount();
        int t = worker.threadId();
        // the bins' starting values: MIN needs "no sample yet" in every bin, written by the bin's owner
        ArrayLayout layout = first.layout();
        for (int b = layout.startingIndexAtThread(t); b < layout.maxIndexAtThread(t); b++) first.write(b, Long.MAX_VALUE);
        worker.barrier();

        long start = System.nanoTime();
        long[] mine = new long[bins];
        long[] firstOfMine = new long[bins];
        Arrays.fill(firstOfMine, Long.MAX_VALUE);
        long from = (long) samples * t / threads;
        long to = (long) samples * (t + 1) / threads;
        for (long i = from; i < to; i++) {
            int b = binOf(i);
            mine[b]++;
            if (firstOfMine[b] == Long.MAX_VALUE) firstOfMine[b] = i;
        }
        counts.accumulate(0, 0, 1, bins, mine, ReduceOp.SUM);
        first.accumulate(0, 0, 1, bins, firstOfMine, ReduceOp.MIN);
        worker.barrier();
        long elapsed = System.nanoTime() - start;

        if (t == 0) {
            long[] expected = new long[bins];
            long[] expectedFirst = new long[bins];
            Arrays.fill(expectedFirst, Long.MAX_VALUE);
            for (long i = 0; i < samples; i++) {
                int b = binOf(i);
                expected[b]++;
                if (expectedFirst[b] == Long.MAX_VALUE) expectedFirst[b] = i;
            }
            int busiest = 0;
            for (int b = 0; b < bins; b++) {
                long got = counts.read(b);
                if (got != expected[b]) {
                    throw new DsaException(NAME + ": bin " + b + " holds " + got + " samples, expected " + expected[b]);
                }
                if (first.read(b) != expectedFirst[b]) {
                    throw new DsaException(NAME + ": the first sample of bin " + b + " is " + first.read(b) + ", expected "
                            + expectedFirst[b]);
                }
                if (got > expected[busiest]) busiest = b;
            }
            worker.node().report(String.format("%s: %d samples in %d bins by %d workers (verified against sequential), "
                    + "busiest bin %d with %d, count and accumulate %.1f ms", NAME, samples, bins, threads, busiest,
                    expected[busiest], elapsed / 1e6));
        }
    }

    /** The bin of sample {@code i}: the mean of two seeded uniform values in {@code [0, bins)}. */
    private int binOf(long i) {
        return (Seeded.between(seed, 1, i, 0, bins - 1) + Seeded.between(seed, 2, i, 0, bins - 1)) / 2;
    }
}
