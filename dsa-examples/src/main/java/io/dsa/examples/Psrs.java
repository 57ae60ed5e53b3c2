package io.dsa.examples;

import io.dsa.DsaException;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ProgramName;
import io.dsa.ReduceOp;
import io.dsa.SharedLongArray;
import java.util.List;
import java.util.Arrays;

/**
 * Parallel Sorting by Regular Sampling (PSRS), as in the Aurora paper: with {@code p} workers,
 * every worker sorts its block of the shared input and publishes {@code p} regular samples;
 * after a barrier every worker sorts the {@code p*p} samples identically and picks {@code p-1}
 * pivots; every worker partitions its block by the pivots and publishes the sizes of its
 * {@code p} pieces in a shared counts array; after a barrier, worker {@code j} finds where its
 * output goes (an exclusive scan of the output sizes), reads piece {@code j} of every block with
 * a region read, merges the {@code p} sorted pieces and writes them to the shared output. Thread
 * 0 checks the output against a sequentially sorted copy of the input (sorted and a permutation).
 *
 * <p>Arguments: {@code [n=1048576] [partitionSize=4096] [seed=1]}.
 */
@ProgramName("psrs")
public final class Psrs implements DsaProgram {
    static final String NAME = "psrs";
    static final String USAGE = "psrs [n=1048576] [partitionSize=4096] [seed=1]";

    /** Test hook: when set on node 0's instance, thread 0 swaps two output keys before the check. */
    boolean corruptBeforeCheck;

    private int n;
    private long seed;
    private int p;
    private SharedLongArray input;
    private SharedLongArray output;
    private SharedLongArray samples;
    private SharedLongArray counts;

    private int partitionSize;

    /** Creates the program; {@link #setup(DsaNode)} reads the arguments. */
    public Psrs() {}

    @Override
    public void setup(DsaNode node) {
        parseArgs(node.args(), node.network().getGlobalThreadCount());
        p = node.network().getGlobalThreadCount();
        input = node.createSharedLongArray("psrs.input", n, partitionSize);
        output = node.createSharedLongArray("psrs.output", n, partitionSize);
        samples = node.createSharedLongArray("psrs.samples", p * p, p);
        counts = node.createSharedLongArray("psrs.counts", p * p, p);
    }

    /** Checks the arguments before any node starts (the same parse as {@link #setup(DsaNode)}). */
    @Override
    public void validate(List<String> args, int nodes, int threadsPerNode) {
        parseArgs(args, nodes * threadsPerNode);
    }

    // Reads the arguments into the fields; throws IllegalArgumentException naming a bad one.
    private void parseArgs(List<String> args, int threads) {
        ProgramArgs.atMost(NAME, args, 3, USAGE);
        n = ProgramArgs.intArg(NAME, args, 0, "n", 1 << 20, 1, 1 << 27);
        partitionSize = ProgramArgs.intArg(NAME, args, 1, "partitionSize", Math.min(4096, n), 1, n);
        seed = ProgramArgs.intArg(NAME, args, 2, "seed", 1, 0, Integer.MAX_VALUE);
    }

    /** Key {@code i} of the input. */
    static long key(long seed, int i) { return Seeded.mix(seed, 42, i); }

    @Override
    public void work(DsaWorker worker) {
        int t = worker.threadId();
        int from = input.layout().startingIndexAtThread(t);
        int to = input.layout().maxIndexAtThread(t);
        int len = to - from;
        long[] block = new long[len];
        for (int i = 0; i < len; i++) block[i] = key(seed, from + i);
        if (len > 0) input.write(0, from, 1, len, block);
        worker.barrier();
        long start = System.nanoTime();

        // Phase 1: local sort and regular samples.
        if (len > 0) input.read(0, from, 1, len, block);
        Arrays.sort(block);
        if (len > 0) input.write(0, from, 1, len, block);
        long[] mySamples = new long[p];
        for (int k = 0; k < p; k++) {
            mySamples[k] = len == 0 ? Long.MAX_VALUE : block[(int) ((long) k * len / p)];
        }
        samples.write(0, t * p, 1, p, mySamples);
        worker.barrier();

        // Phase 2: every worker sorts the samples and picks the same p-1 pivots.
        long[] all = new long[p * p];
        samples.read(0, 0, 1, p * p, all);
        Arrays.sort(all);
        long[] pivots = new long[p - 1];
        for (int k = 1; k < p; k++) pivots[k - 1] = all[k * p + p / 2 - 1];

        // Phase 3: partition the block by the pivots (piece j holds keys in (pivot[j-1], pivot[j]]).
        long[] myCounts = new long[p];
        int lo = 0;
        for (int j = 0; j < p; j++) {
            int hi = j == p - 1 ? len : upperBound(block, lo, len, pivots[j]);
            myCounts[j] = hi - lo;
            lo = hi;
        }
        counts.write(0, t * p, 1, p, myCounts);
        worker.barrier();

        // Phase 4: gather piece t of every block, merge, and write at the scanned offset.
        long[] allCounts = new long[p * p];
        counts.read(0, 0, 1, p * p, allCounts);
        long mine = 0;
        for (int s = 0; s < p; s++) mine += allCounts[s * p + t];
        long offset = worker.scan(mine, ReduceOp.SUM) - mine;
        long[][] pieces = new long[p][];
        for (int s = 0; s < p; s++) {
            long start0 = input.layout().startingIndexAtThread(s);
            for (int j = 0; j < t; j++) start0 += allCounts[s * p + j];
            int size = (int) allCounts[s * p + t];
            pieces[s] = new long[size];
            if (size > 0) input.read(0, (int) start0, 1, size, pieces[s]);
        }
        long[] merged = merge(pieces, (int) mine);
        if (mine > 0) output.write(0, (int) offset, 1, (int) mine, merged);
        worker.barrier();
        long computeNanos = System.nanoTime() - start;

        if (t == 0) {
            long[] result = new long[n];
            output.read(0, 0, 1, n, result);
            if (corruptBeforeCheck && n > 1) {
                long x = result[n / 2];
                result[n / 2] = result[n / 2 - 1];
                result[n / 2 - 1] = x;
            }
            check(n, seed, result);
            worker.node().report(String.format("psrs: sorted %d keys on %d workers (verified: sorted and a permutation"
                    + " of the input, equal to a sequential sort), compute %.1f ms", n, p, computeNanos / 1e6));
        }
    }

    /** @return the first index in {@code [lo, hi)} whose key is greater than {@code key} */
    static int upperBound(long[] a, int lo, int hi, long key) {
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (a[mid] <= key) lo = mid + 1; else hi = mid;
        }
        return lo;
    }

    /** Merges sorted arrays with a binary heap of their heads. */
    static long[] merge(long[][] pieces, int total) {
        long[] out = new long[total];
        int k = pieces.length;
        int[] heap = new int[k];
        int[] pos = new int[k];
        int size = 0;
        for (int s = 0; s < k; s++) {
            if (pieces[s].length > 0) heap[size++] = s;
        }
        for (int i = size / 2 - 1; i >= 0; i--) siftDown(heap, size, i, pieces, pos);
        int o = 0;
        while (size > 0) {
            int s = heap[0];
            out[o++] = pieces[s][pos[s]++];
            if (pos[s] == pieces[s].length) heap[0] = heap[--size];
            siftDown(heap, size, 0, pieces, pos);
        }
        return out;
    }

    private static void siftDown(int[] heap, int size, int i, long[][] pieces, int[] pos) {
        while (true) {
            int l = 2 * i + 1;
            if (l >= size) return;
            int m = l;
            if (l + 1 < size && head(heap[l + 1], pieces, pos) < head(heap[l], pieces, pos)) m = l + 1;
            if (head(heap[m], pieces, pos) >= head(heap[i], pieces, pos)) return;
            int x = heap[i];
            heap[i] = heap[m];
            heap[m] = x;
            i = m;
        }
    }

    private static long head(int s, long[][] pieces, int[] pos) { return pieces[s][pos[s]]; }

    /**
     * @throws DsaException naming the first key out of order, or the first that differs from a
     *     sequential sort of the input (so the output is sorted and a permutation of the input)
     */
    static void check(int n, long seed, long[] result) {
        for (int i = 1; i < n; i++) {
            if (result[i - 1] > result[i]) {
                throw new DsaException(NAME + ": output[" + (i - 1) + "] = " + result[i - 1] + " > output[" + i + "] = "
                        + result[i] + ", expected sorted (non-decreasing) output");
            }
        }
        long[] expected = new long[n];
        for (int i = 0; i < n; i++) expected[i] = key(seed, i);
        Arrays.sort(expected);
        for (int i = 0; i < n; i++) {
            if (expected[i] != result[i]) {
                throw new DsaException(NAME + ": output[" + i + "] = " + result[i] + ", expected " + expected[i]
                        + " (sequential sort of the input)");
            }
        }
    }
}
