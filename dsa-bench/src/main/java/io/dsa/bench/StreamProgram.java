package io.dsa.bench;

import io.dsa.ArraySpec;
import io.dsa.CacheState;
import io.dsa.Distribution;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ElementType;
import io.dsa.ReduceOp;
import io.dsa.SharedDoubleArray;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

/**
 * Bandwidth from node 0 to node 1 on a 2-node, 1-thread VM. Arguments: {@code BYTES BUDGET WARMUP
 * ROUNDS WINDOW} ({@code BYTES} comma-separated partition sizes, multiples of 8). For each size
 * {@code s}, a shared array of {@code 2P} partitions of {@code s} bytes (one row each, BLOCK: the
 * first {@code P} homed at node 0), {@code P = clamp(BUDGET / s, 4, 256)}. Each round, for each way
 * of reading: node 0 rewrites its {@code P} partitions (which invalidates node 1's copies), barrier;
 * node 1 checks that all {@code P} are INVALID there (so every read below is a real miss), then
 * times reading all of them, checks the values, barrier. The four ways: {@code readPartition}
 * one miss at a time (last partition first, so the runtime's sequential prefetch does not start);
 * a window of {@code WINDOW} {@code requestPartitionCopy} futures in flight, each partition then
 * copied out with {@code readPartition} (a hit); one region read covering all {@code P}; and a
 * plain {@code readPartition} loop from the first partition up, which the VM's prefetch window
 * ({@code DsaConfig.prefetchWindow}) turns into several requests in flight. Thread 0 reports
 * {@code "stream BYTES P ONE WINDOW REGION SEQUENTIAL"}: node 1's median GB/s (10^9 bytes per
 * second) of each way.
 */
public final class StreamProgram implements DsaProgram {
    private int[] sizes;
    private int[] counts;
    private SharedDoubleArray[] arrays;

    /** Creates the program; {@link #setup} reads the arguments. */
    public StreamProgram() {}

    /** @return how many partitions of {@code bytes} a round reads for a budget of {@code budget} bytes */
    static int partitions(int bytes, long budget) {
        return (int) Math.max(4, Math.min(256, budget / bytes));
    }

    @Override
    public void setup(DsaNode node) {
        if (node.network().nodeCount() != 2 || node.network().getLocalThreadCount() != 1) {
            throw new IllegalArgumentException("stream needs 2 nodes x 1 thread, got " + node.network().nodeCount() + " x "
                    + node.network().getLocalThreadCount());
        }
        sizes = Arrays.stream(node.args().get(0).split(",")).mapToInt(Integer::parseInt).toArray();
        long budget = Long.parseLong(node.args().get(1));
        counts = new int[sizes.length];
        arrays = new SharedDoubleArray[sizes.length];
        for (int i = 0; i < sizes.length; i++) {
            if (sizes[i] < 8 || sizes[i] % 8 != 0) throw new IllegalArgumentException("partition bytes " + sizes[i] + " not a positive multiple of 8");
            counts[i] = partitions(sizes[i], budget);
            int elements = sizes[i] / 8;
            arrays[i] = (SharedDoubleArray) node.createSharedArray(ArraySpec.of("stream" + sizes[i], ElementType.DOUBLE,
                    2 * counts[i], elements, 1, elements, Distribution.BLOCK));
        }
    }

    @Override
    public void work(DsaWorker worker) {
        int warmup = Integer.parseInt(worker.node().args().get(2));
        int rounds = Integer.parseInt(worker.node().args().get(3));
        int window = Integer.parseInt(worker.node().args().get(4));
        boolean reader = worker.nodeId() == 1;
        for (int i = 0; i < sizes.length; i++) {
            SharedDoubleArray a = arrays[i];
            int count = counts[i];
            int elements = sizes[i] / 8;
            if (a.homeOf(count - 1) != 0) throw new IllegalStateException("partition " + (count - 1) + " of " + a.name() + " is not at node 0");
            double[] partition = new double[elements];
            double[] region = reader ? new double[count * elements] : null;
            double[][] gbps = new double[WAYS][rounds];
            for (int k = -warmup; k < rounds; k++) {
                for (int way = 0; way < WAYS; way++) {
                    double stamp = (k + warmup) * 4.0 + way;
                    if (!reader) {
                        for (int p = 0; p < count; p++) {
                            partition[0] = stamp + p * 1e6;
                            if (elements > 1) partition[elements - 1] = -partition[0];
                            a.writePartition(p, partition);
                        }
                    }
                    worker.barrier();
                    if (reader) {
                        for (int p = 0; p < count; p++) {
                            if (a.cacheState(p) != CacheState.INVALID) {
                                throw new IllegalStateException("partition " + p + " of " + a.name() + " is " + a.cacheState(p)
                                        + " at node 1 before the timed read: it would not be a miss");
                            }
                        }
                        long t0 = System.nanoTime();
                        read(a, way, count, window, partition, region, stamp);
                        long ns = System.nanoTime() - t0;
                        if (way == 2) check(region, elements, count, stamp);
                        if (k >= 0) gbps[way][k] = (double) count * sizes[i] / ns;
                    }
                    worker.barrier();
                }
            }
            double[] mine = new double[WAYS];
            if (reader) for (int way = 0; way < WAYS; way++) mine[way] = BenchOut.median(gbps[way]);
            double[] all = worker.allReduce(mine, ReduceOp.MAX); // node 0 contributes zeros
            if (worker.threadId() == 0) {
                worker.node().report("stream " + sizes[i] + " " + count + " " + all[0] + " " + all[1] + " " + all[2] + " " + all[3]);
            }
        }
    }

    /** Ways of reading: one miss at a time, a window of futures, one region, a sequential loop. */
    static final int WAYS = 4;

    /** Reads partitions {@code [0, count)} of {@code a} one way (0 one at a time, 1 windowed, 2 one region, 3 sequential). */
    private static void read(SharedDoubleArray a, int way, int count, int window, double[] partition, double[] region,
            double stamp) {
        int elements = partition.length;
        switch (way) {
            case 0 -> {
                for (int p = count - 1; p >= 0; p--) {
                    a.readPartition(p, partition);
                    check(partition, 0, elements, p, stamp);
                }
            }
            case 3 -> {
                for (int p = 0; p < count; p++) {
                    a.readPartition(p, partition);
                    check(partition, 0, elements, p, stamp);
                }
            }
            case 1 -> {
                ArrayDeque<CompletableFuture<Void>> inFlight = new ArrayDeque<>();
                int next = 0;
                for (int p = 0; p < count; p++) {
                    while (next < count && next < p + window) inFlight.add(a.requestPartitionCopy(next++));
                    inFlight.poll().join();
                    a.readPartition(p, partition);
                    check(partition, 0, elements, p, stamp);
                }
            }
            case 2 -> a.read(0, 0, count, elements, region);
            default -> throw new IllegalArgumentException("way " + way);
        }
    }

    private static void check(double[] region, int elements, int count, double stamp) {
        for (int p = 0; p < count; p++) check(region, p * elements, elements, p, stamp);
    }

    /** Partition {@code p}'s first and last elements, at {@code data[at]}, are node 0's last write. */
    private static void check(double[] data, int at, int elements, int p, double stamp) {
        double expected = stamp + p * 1e6;
        double last = elements > 1 ? -expected : expected;
        if (data[at] != expected || data[at + elements - 1] != last) {
            throw new IllegalStateException("partition " + p + " read " + data[at] + " .. " + data[at + elements - 1] + ", expected "
                    + expected + " .. " + last + " (node 0's last write)");
        }
    }
}
