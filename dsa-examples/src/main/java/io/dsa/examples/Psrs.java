package io.dsa.examples;

import io.dsa.ArrayLayout;
import io.dsa.ArrayUse;
import io.dsa.DsaException;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaScope;
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
 * <p>{@link Scoped} ({@code psrs-scoped}) sorts each block in place in an owner-computes scope.
 *
 * <p>Arguments: {@code [n=1048576] [partitionSize=4096] [seed=1]}.
 */
@ProgramName("psrs")
public class Psrs implements DsaProgram {
    static final String NAME = "psrs";
    static final String USAGE = "psrs [n=1048576] [partitionSize=4096] [seed=1]";

    /** Test hook: the global rounds ({@link DsaWorker#epoch}) thread 0 passed by the end of the sort. */
    volatile long rounds;

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

    /** Whether this is {@link Scoped}: each block is sorted in place in an owner-computes scope. */
    private final boolean scoped;

    /** Creates the program; {@link #setup(DsaNode)} reads the arguments. */
    public Psrs() { this(false); }

    private Psrs(boolean scoped) { this.scoped = scoped; }

    /**
     * {@code psrs-scoped}: PSRS with an owner-computes scope for its local sort. A worker's block
     * is the concatenation of its partitions of the input ({@link ArrayLayout#partitionsOfThread}),
     * not a range of indices. The input is filled and, in phase 1, sorted in an owner-computes
     * scope (the block is gathered from the plain arrays {@link DsaScope#local} gives, sorted, and
     * put back); closing it is phase 1's barrier. Phase 4 is the plain version's: each worker
     * reads piece {@code t} of every block with coherent region reads (one per run of adjacent
     * partitions, whose partitions are requested together), merges them and writes them to the
     * output. Five global rounds, as in {@code psrs}. Same arguments and the same check as
     * {@code psrs}.
     *
     * <p>An earlier version gathered from a read cache of the whole input and wrote the output
     * in a release scope. It was slower than the plain version (2x1, 2^20 keys, warm: 1.06-1.42x
     * sequential Java against 0.79-0.94x for this one): a read cache brings every partition to
     * every node, where a worker needs only its piece of each block (on 2 nodes, half of the other
     * node's block), and a release scope buffers and sends as diffs the writes that land, all but
     * a boundary partition's, on partitions the writer's node homes, where a plain write is a hit
     * (docs/consistency.md, "Examples and benchmarks with scopes").
     */
    @ProgramName("psrs-scoped")
    public static final class Scoped extends Psrs {
        /** Creates the program; {@link #setup(DsaNode)} reads the arguments. */
        public Scoped() { super(true); }
    }

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
        ProgramArgs.atMost(programName(), args, 3, programName() + USAGE.substring(NAME.length()));
        n = ProgramArgs.intArg(programName(), args, 0, "n", 1 << 20, 1, 1 << 27);
        partitionSize = ProgramArgs.intArg(programName(), args, 1, "partitionSize", Math.min(4096, n), 1, n);
        seed = ProgramArgs.intArg(programName(), args, 2, "seed", 1, 0, Integer.MAX_VALUE);
    }

    /** @return the name this program runs under: {@code NAME}, or {@code NAME-scoped} for {@link Scoped} */
    private String programName() { return scoped ? NAME + "-scoped" : NAME; }

    /** Key {@code i} of the input (public for the benchmarks' sequential sort). */
    public static long key(long seed, int i) { return Seeded.mix(seed, 42, i); }

    @Override
    public void work(DsaWorker worker) {
        long computeNanos = scoped ? sortScoped(worker) : sortPlain(worker);
        if (worker.threadId() == 0) rounds = worker.epoch();
        if (worker.threadId() == 0) {
            long[] result = new long[n];
            output.read(0, 0, 1, n, result);
            if (corruptBeforeCheck && n > 1) {
                long x = result[n / 2];
                result[n / 2] = result[n / 2 - 1];
                result[n / 2 - 1] = x;
            }
            check(n, seed, result);
            worker.node().report(String.format("psrs: sorted %d keys on %d workers%s (verified: sorted and a permutation"
                    + " of the input, equal to a sequential sort), compute %.1f ms", n, p,
                    scoped ? ", scoped (owner-computes sort, coherent gather)" : "", computeNanos / 1e6));
        }
    }

    /** The plain PSRS: blocks of indices, region reads and writes. @return the sort's nanoseconds */
    private long sortPlain(DsaWorker worker) {
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
        writeSamples(t, block);
        worker.barrier();

        // Phases 2 and 3: pivots from the samples, the block's pieces counted.
        writeCounts(t, block);
        worker.barrier();

        // Phase 4: gather piece t of every block, merge, and write at the scanned offset.
        Gather g = gather(worker);
        long[][] pieces = new long[p][];
        for (int s = 0; s < p; s++) {
            long start0 = input.layout().startingIndexAtThread(s) + g.before(s, t);
            int size = (int) g.counts()[s * p + t];
            pieces[s] = new long[size];
            if (size > 0) input.read(0, (int) start0, 1, size, pieces[s]);
        }
        long[] merged = merge(pieces, (int) g.mine());
        if (g.mine() > 0) output.write(0, (int) g.offset(), 1, (int) g.mine(), merged);
        worker.barrier();
        return System.nanoTime() - start;
    }

    /** {@link Scoped}'s PSRS: blocks of partitions sorted in place, gathered from a read cache into a release scope. @return nanoseconds */
    private long sortScoped(DsaWorker worker) {
        int t = worker.threadId();
        ArrayLayout layout = input.layout();
        int[][] partsOf = new int[p][];
        for (int s = 0; s < p; s++) partsOf[s] = layout.partitionsOfThread(s);
        int len = 0;
        for (int part : partsOf[t]) len += layout.partitionElements(part);
        long[] block = new long[len];
        // Phase 1: the block filled and sorted in place in its partitions, and its regular samples.
        DsaScope scope = worker.scope(ArrayUse.ownerComputes(input));
        for (int part : partsOf[t]) {
            long[] local = scope.local(input, part);
            int first = layout.partitionFirstCol(part);
            for (int i = 0; i < local.length; i++) local[i] = key(seed, first + i);
        }
        long start = System.nanoTime();
        int at = 0;
        for (int part : partsOf[t]) {
            long[] local = scope.local(input, part);
            System.arraycopy(local, 0, block, at, local.length);
            at += local.length;
        }
        Arrays.sort(block);
        at = 0;
        for (int part : partsOf[t]) {
            long[] local = scope.local(input, part);
            System.arraycopy(block, at, local, 0, local.length);
            at += local.length;
        }
        writeSamples(t, block);
        // one round: the sorted input back in its partitions at their homes, the samples published
        scope.close();

        // Phases 2 and 3 as in the plain version.
        writeCounts(t, block);
        worker.barrier();

        // Phase 4 as in the plain version: piece t of every block by coherent region reads (the pieces' partitions
        // requested together), merged, and written at the scanned offset.
        Gather g = gather(worker);
        long[][] pieces = new long[p][];
        for (int s = 0; s < p; s++) {
            pieces[s] = new long[(int) g.counts()[s * p + t]];
            readOfBlock(partsOf[s], g.before(s, t), pieces[s]);
        }
        long[] merged = merge(pieces, (int) g.mine());
        if (g.mine() > 0) output.write(0, (int) g.offset(), 1, (int) g.mine(), merged);
        worker.barrier();
        return System.nanoTime() - start;
    }

    /**
     * Reads {@code dst.length} keys from offset {@code from} of the block made of {@code parts}
     * (their elements one after another): one region read per run of partitions that lie one
     * after another in the array, so that a run's partitions are requested together.
     */
    private void readOfBlock(int[] parts, long from, long[] dst) {
        ArrayLayout layout = input.layout();
        long blockAt = 0;
        int done = 0;
        for (int k = 0; k < parts.length && done < dst.length; ) {
            // the run of partitions k..end-1 that follow one another in the array
            int first = layout.partitionFirstCol(parts[k]);
            int runSize = layout.partitionElements(parts[k]);
            int end = k + 1;
            while (end < parts.length && layout.partitionFirstCol(parts[end]) == first + runSize) {
                runSize += layout.partitionElements(parts[end]);
                end++;
            }
            long lo = Math.max(from + done, blockAt);
            if (lo < blockAt + runSize) {
                int count = (int) Math.min(blockAt + runSize - lo, dst.length - done);
                if (done == 0 && count == dst.length) {
                    input.read(0, first + (int) (lo - blockAt), 1, count, dst);   // the whole piece in one run: no copy
                } else {
                    long[] run = new long[count];
                    input.read(0, first + (int) (lo - blockAt), 1, count, run);
                    System.arraycopy(run, 0, dst, done, count);
                }
                done += count;
            }
            blockAt += runSize;
            k = end;
        }
    }

    /** Writes {@code p} regular samples of the sorted {@code block} to this worker's slots of {@code samples}. */
    private void writeSamples(int t, long[] block) {
        long[] mySamples = new long[p];
        for (int k = 0; k < p; k++) {
            mySamples[k] = block.length == 0 ? Long.MAX_VALUE : block[(int) ((long) k * block.length / p)];
        }
        samples.write(0, t * p, 1, p, mySamples);
    }

    /**
     * Phases 2 and 3: sorts every worker's samples (each worker identically), picks {@code p-1}
     * pivots, and writes the sizes of the sorted {@code block}'s pieces (piece j holds keys in
     * {@code (pivot[j-1], pivot[j]]}) to this worker's slots of {@code counts}.
     */
    private void writeCounts(int t, long[] block) {
        long[] all = new long[p * p];
        samples.read(0, 0, 1, p * p, all);
        Arrays.sort(all);
        long[] pivots = new long[p - 1];
        for (int k = 1; k < p; k++) pivots[k - 1] = all[k * p + p / 2 - 1];
        long[] myCounts = new long[p];
        int lo = 0;
        for (int j = 0; j < p; j++) {
            int hi = j == p - 1 ? block.length : upperBound(block, lo, block.length, pivots[j]);
            myCounts[j] = hi - lo;
            lo = hi;
        }
        counts.write(0, t * p, 1, p, myCounts);
    }

    /**
     * What phase 4 needs: every block's piece sizes ({@code counts[s * p + j]}), this worker's
     * output size and its offset in the output.
     */
    private record Gather(long[] counts, long mine, long offset, int p) {
        /** @return where piece {@code t} starts in block {@code s} */
        long before(int s, int t) {
            long at = 0;
            for (int j = 0; j < t; j++) at += counts[s * p + j];
            return at;
        }
    }

    /** Reads every block's piece sizes; this worker's output size and, by a scan, its offset (one collective). */
    private Gather gather(DsaWorker worker) {
        long[] allCounts = new long[p * p];
        counts.read(0, 0, 1, p * p, allCounts);
        long mine = 0;
        for (int s = 0; s < p; s++) mine += allCounts[s * p + worker.threadId()];
        long offset = worker.scan(mine, ReduceOp.SUM) - mine;
        return new Gather(allCounts, mine, offset, p);
    }

    /** @return the first index in {@code [lo, hi)} whose key is greater than {@code key} */
    static int upperBound(long[] a, int lo, int hi, long key) {
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (a[mid] <= key) lo = mid + 1; else hi = mid;
        }
        return lo;
    }

    /**
     * Merges sorted arrays into one of {@code total} keys: pairs of runs merged two at a time, in
     * {@code ceil(log2 k)} passes over the keys for {@code k} non-empty pieces (one pass for two
     * workers). A binary heap of the pieces' heads, which this replaced, cost a sift per key: 7-15 ms
     * for the 2^19 keys of a worker of a 2-worker sort, where one two-way pass takes 2-3 ms.
     */
    static long[] merge(long[][] pieces, int total) {
        long[][] runs = Arrays.stream(pieces).filter(r -> r.length > 0).toArray(long[][]::new);
        if (runs.length == 0) return new long[total];
        while (runs.length > 1) {
            long[][] next = new long[(runs.length + 1) / 2][];
            for (int i = 0; i < runs.length / 2; i++) next[i] = mergeTwo(runs[2 * i], runs[2 * i + 1]);
            if (runs.length % 2 == 1) next[next.length - 1] = runs[runs.length - 1];
            runs = next;
        }
        if (runs[0].length != total) {
            throw new IllegalArgumentException("pieces hold " + runs[0].length + " keys, expected " + total);
        }
        return runs[0];
    }

    /** @return the sorted {@code a} and {@code b} merged (equal keys from {@code a} first) */
    private static long[] mergeTwo(long[] a, long[] b) {
        long[] out = new long[a.length + b.length];
        int i = 0;
        int j = 0;
        int o = 0;
        while (i < a.length && j < b.length) {
            long x = a[i];
            long y = b[j];
            if (y < x) {
                out[o++] = y;
                j++;
            } else {
                out[o++] = x;
                i++;
            }
        }
        System.arraycopy(a, i, out, o, a.length - i);
        System.arraycopy(b, j, out, o + a.length - i, b.length - j);
        return out;
    }

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
