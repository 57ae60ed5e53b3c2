package io.dsa.examples;

import io.dsa.ArrayLayout;
import io.dsa.ArrayUse;
import io.dsa.ArraySpec;
import io.dsa.Distribution;
import io.dsa.DsaException;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaScope;
import io.dsa.DsaWorker;
import io.dsa.ElementType;
import io.dsa.ProgramName;
import io.dsa.ReduceOp;
import io.dsa.SharedDoubleArray;
import java.util.List;

/**
 * Jacobi iteration of the 5-point Laplace stencil on an {@code n x n} grid with fixed boundary
 * values: two shared arrays in bands of {@code partitionRows} full rows, read from one and written
 * to the other, swapped every iteration, one global barrier per iteration. Each worker owns a
 * contiguous band of rows; it reads its band plus one halo row on each side (the only remote
 * data) and writes its band.
 *
 * <p>Every iteration's state is just (iteration number, the array it reads), so iteration {@code t}
 * starts from nothing but the shared arrays: the program is {@link #resumable()}, and a node
 * migrated during a run resumes at iteration {@code epoch() - 1}.
 *
 * <p>Verification: thread 0 runs the same iterations sequentially with the same arithmetic (in the
 * same order), and the results must be bitwise equal. The report gives the final residual
 * {@code max |u(i-1,j) + u(i+1,j) + u(i,j-1) + u(i,j+1) - 4 u(i,j)|} over the interior.
 *
 * <p>{@link Scoped} ({@code jacobi-scoped}) is the same iteration with scopes: owner computes.
 *
 * <p>Arguments: {@code [n=512] [iterations=100] [partitionRows=16]}.
 */
@ProgramName("jacobi")
public class Jacobi implements DsaProgram {
    static final String NAME = "jacobi";
    static final String USAGE = "jacobi [n=512] [iterations=100] [partitionRows=16]";

    /** Thread 0 reports the iteration it reached about this often. */
    static final long PROGRESS_NANOS = 1_000_000_000L;
    private int n;
    private int iterations;
    private int partitionRows;
    private SharedDoubleArray[] grids;
    /** Test hook: thread 0 adds {@code corruptDelta} to this element of the result before checking. */
    private int[] corruptAt;
    private double corruptDelta;

    /** Test hook: thread 0 completes it with the final grid. */
    private java.util.concurrent.CompletableFuture<double[]> capture;

    /** Whether this is {@link Scoped}: the sweep runs in owner-computes scopes. */
    private final boolean scoped;

    /** Creates the program; {@link #setup(DsaNode)} reads the arguments. */
    public Jacobi() { this(false); }

    private Jacobi(boolean scoped) { this.scoped = scoped; }

    /**
     * {@code jacobi-scoped}: the same iteration, each sweep in a scope where the source grid is a
     * read cache of a region (the rows of the worker's partitions and the halo row on each side:
     * at entry its node gets those partitions, all requests in flight together, and no others)
     * and the destination grid is owner-computes. A worker sweeps the rows of its partitions
     * ({@link ArrayLayout#partitionsOfThread}) from copies read with local hits into the plain
     * arrays {@link DsaScope#local} gives. One sweep's scope becomes the next one's, with the grids'
     * roles swapped, by {@link DsaScope#next}: one global round per iteration, as the plain
     * version's barrier. Same arguments and the same bitwise check as {@code jacobi}. Not
     * resumable: a scope's epochs would need re-entering inside the scope.
     */
    @ProgramName("jacobi-scoped")
    public static final class Scoped extends Jacobi {
        /** Creates the program; {@link #setup(DsaNode)} reads the arguments. */
        public Scoped() { super(true); }
    }

    /**
     * Resumable (the plain version only): the state between iterations lives in the shared grids,
     * and iteration {@code t} starts at epoch {@code t + 1}, so a migrated node's workers re-enter
     * {@link #work} there.
     */
    @Override
    public boolean resumable() { return !scoped; }

    /** Test hook: the global rounds ({@link DsaWorker#epoch}) thread 0 passed from the start to the end of the iterations. */
    volatile long rounds;

    /** Test hook: thread 0 hands the final grid to {@code sink} (the given instance runs on node 0). */
    Jacobi captureResult(java.util.concurrent.CompletableFuture<double[]> sink) {
        capture = sink;
        return this;
    }

    /** Test hook: the check must then fail naming element {@code (row, col)}. */
    Jacobi corruptBeforeCheck(int row, int col, double delta) {
        corruptAt = new int[] {row, col};
        corruptDelta = delta;
        return this;
    }

    @Override
    public void setup(DsaNode node) {
        parseArgs(node.args(), node.network().getGlobalThreadCount());
        grids = new SharedDoubleArray[2];
        for (int g = 0; g < 2; g++) {
            grids[g] = (SharedDoubleArray) node.createSharedArray(
                    ArraySpec.of("jacobi.u" + g, ElementType.DOUBLE, n, n, partitionRows, n, Distribution.BLOCK));
        }
    }

    /** Checks the arguments before any node starts (the same parse as {@link #setup(DsaNode)}). */
    @Override
    public void validate(List<String> args, int nodes, int threadsPerNode) {
        parseArgs(args, nodes * threadsPerNode);
    }

    // Reads the arguments into the fields; throws IllegalArgumentException naming a bad one.
    private void parseArgs(List<String> args, int threads) {
        ProgramArgs.atMost(programName(), args, 3, programName() + USAGE.substring(NAME.length()));
        n = ProgramArgs.intArg(programName(), args, 0, "n", 512, 3, 1 << 14);
        iterations = ProgramArgs.intArg(programName(), args, 1, "iterations", 100, 0, 1 << 20);
        partitionRows = ProgramArgs.intArg(programName(), args, 2, "partitionRows", Math.min(16, n), 1, n);
    }

    /** @return the name this program runs under: {@code NAME}, or {@code NAME-scoped} for {@link Scoped} */
    private String programName() { return scoped ? NAME + "-scoped" : NAME; }

    @Override
    public void work(DsaWorker worker) {
        double seconds = scoped ? sweepScoped(worker) : sweepPlain(worker);
        if (worker.threadId() == 0) rounds = worker.epoch();
        finish(worker, seconds);
    }

    /** The plain iterations: each worker reads its band with halos and writes its rows. @return their seconds */
    private double sweepPlain(DsaWorker worker) {
        int threadId = worker.threadId();
        Band mineBand = Band.of(grids[0].layout(), threadId, n);
        int from = mineBand.from();
        int to = mineBand.to();
        int rows = to - from;
        int haloFrom = mineBand.haloFrom();
        int haloTo = mineBand.haloTo();
        double[] band = new double[(haloTo - haloFrom) * n];
        double[] next = new double[rows * n];

        if (worker.epoch() == 0) {
            if (rows > 0) {
                for (int r = 0; r < rows; r++) {
                    for (int c = 0; c < n; c++) next[r * n + c] = initial(from + r, c, n);
                }
                grids[0].write(from, 0, rows, n, next);
                grids[1].write(from, 0, rows, n, next);
            }
            worker.barrier();
        }

        long start = System.nanoTime();
        long lastProgress = start;
        // epoch 1 + t starts iteration t: a worker resumed after a migration re-enters here
        for (int t = (int) (worker.epoch() - 1); t < iterations; t++) {
            SharedDoubleArray src = grids[t % 2];
            SharedDoubleArray dst = grids[(t + 1) % 2];
            if (rows > 0) {
                src.read(haloFrom, 0, haloTo - haloFrom, n, band);
                for (int i = from; i < to; i++) {
                    sweepRow(band, (i - haloFrom) * n, next, (i - from) * n, i, n);
                }
                dst.write(from, 0, rows, n, next);
            }
            worker.barrier();
            if (threadId == 0 && System.nanoTime() - lastProgress >= PROGRESS_NANOS) {
                lastProgress = System.nanoTime();
                worker.node().progress("iteration " + (t + 1) + " of " + iterations);
            }
        }
        return (System.nanoTime() - start) / 1e9;
    }

    /**
     * The iterations of {@link Scoped}: the sweep of each partition of this worker reads the
     * source grid from a read cache of its rows and halo and writes the plain arrays of the
     * destination grid's owner-computes partitions. @return their seconds
     */
    private double sweepScoped(DsaWorker worker) {
        ArrayLayout layout = grids[0].layout();
        int[] mine = layout.partitionsOfThread(worker.threadId());
        for (int p : mine) {
            int first = layout.partitionFirstRow(p);
            double[] block = new double[layout.partitionElements(p)];
            for (int r = 0; r < layout.partitionRows(p); r++) {
                for (int c = 0; c < n; c++) block[r * n + c] = initial(first + r, c, n);
            }
            grids[0].writePartition(p, block);
            grids[1].writePartition(p, block);
        }
        // no barrier: the scope's opening round orders these writes before every read

        long start = System.nanoTime();
        long lastProgress = start;
        double[][] cur = new double[mine.length][];
        double[][] above = new double[mine.length][n];
        double[][] below = new double[mine.length][n];
        int lo = n;
        int hi = 0;
        for (int k = 0; k < mine.length; k++) {
            cur[k] = new double[layout.partitionElements(mine[k])];
            lo = Math.min(lo, layout.partitionFirstRow(mine[k]));
            hi = Math.max(hi, layout.partitionFirstRow(mine[k]) + layout.partitionRows(mine[k]));
        }
        // the region this worker reads: its rows and a halo row on each side (a worker without rows names row 0)
        int regionFrom = Math.max(0, Math.min(lo, n - 1) - 1);
        int regionTo = Math.min(n, Math.max(hi, regionFrom + 1) + 1);
        DsaScope scope = worker.scope(ArrayUse.readCache(grids[0], regionFrom, 0, regionTo - regionFrom, n),
                ArrayUse.ownerComputes(grids[1]));
        for (int t = 0; t < iterations; t++) {
            SharedDoubleArray src = grids[t % 2];
            SharedDoubleArray dst = grids[(t + 1) % 2];
            for (int k = 0; k < mine.length; k++) {
                int first = layout.partitionFirstRow(mine[k]);
                int last = first + layout.partitionRows(mine[k]) - 1;
                src.readPartition(mine[k], cur[k]);
                if (first > 0) src.read(first - 1, 0, 1, n, above[k]);
                if (last < n - 1) src.read(last + 1, 0, 1, n, below[k]);
                sweepPartition(cur[k], scope.local(dst, mine[k]), above[k], below[k], first, layout.partitionRows(mine[k]), n);
            }
            if (worker.threadId() == 0 && System.nanoTime() - lastProgress >= PROGRESS_NANOS) {
                lastProgress = System.nanoTime();
                worker.node().progress("iteration " + (t + 1) + " of " + iterations);
            }
            // one round: dst written back and made the next sweep's read cache, src taken back for owner computes
            if (t < iterations - 1) {
                scope = scope.next(ArrayUse.readCache(dst, regionFrom, 0, regionTo - regionFrom, n), ArrayUse.ownerComputes(src));
            }
        }
        scope.close();
        return (System.nanoTime() - start) / 1e9;
    }

    /**
     * One sweep of a partition of {@code rows} full rows from {@code first}: {@code cur} and
     * {@code out} hold the partition row-major, {@code above} and {@code below} the rows just
     * outside it (unused at the grid's edge). Every row is swept in place from {@code cur}, the
     * first and last ones with their outside neighbour from {@code above} or {@code below}; the
     * arithmetic is {@link #sweepRow}'s, so the result is bitwise the plain version's.
     */
    public static void sweepPartition(double[] cur, double[] out, double[] above, double[] below, int first, int rows, int n) {
        for (int r = 0; r < rows; r++) {
            boolean top = r == 0;
            boolean bottom = r == rows - 1;
            sweepRow(top ? above : cur, top ? 0 : (r - 1) * n, cur, r * n, bottom ? below : cur, bottom ? 0 : (r + 1) * n,
                    out, r * n, first + r, n);
        }
    }

    /** The residual and, on thread 0, the bitwise check against the sequential iteration and the report. */
    private void finish(DsaWorker worker, double seconds) {
        int threadId = worker.threadId();
        SharedDoubleArray result = grids[iterations % 2];
        Band mine = Band.of(grids[0].layout(), threadId, n);
        double localResidual = 0;
        if (mine.to() > mine.from()) {
            double[] band = new double[(mine.haloTo() - mine.haloFrom()) * n];
            result.read(mine.haloFrom(), 0, mine.haloTo() - mine.haloFrom(), n, band);
            localResidual = residual(band, mine.haloFrom(), mine.from(), mine.to(), n);
        }
        double residual = worker.allReduce(localResidual, ReduceOp.MAX);

        if (threadId == 0) {
            if (corruptAt != null) {
                result.write(corruptAt[0], corruptAt[1], result.read(corruptAt[0], corruptAt[1]) + corruptDelta);
            }
            double[] u = new double[n * n];
            result.read(0, 0, n, n, u);
            if (capture != null) capture.complete(u.clone());
            check(u, sequential(n, iterations), n);
            worker.node().report(String.format("jacobi %dx%d, %d iterations, partitions %dx%d%s: bitwise equal to sequential"
                    + " (verified, max difference 0), residual %.6e, iterations %.3f s", n, n, iterations, partitionRows, n,
                    scoped ? ", scoped (owner computes, read cache of rows and halo)" : "", residual, seconds));
        }
    }

    /** A worker's block of rows {@code [from, to)} and, with a halo row on each side where they exist, {@code [haloFrom, haloTo)}. */
    private record Band(int from, int to, int haloFrom, int haloTo) {
        static Band of(ArrayLayout layout, int threadId, int n) {
            int from = layout.startingIndexAtThread(threadId);
            int to = layout.maxIndexAtThread(threadId);
            return new Band(from, to, Math.max(0, from - 1), Math.min(n, to + 1));
        }
    }

    /** Initial value of {@code (i, j)}: the fixed boundary values on the edges, 0 inside. */
    static double initial(int i, int j, int n) {
        if (i == 0) return Math.sin(Math.PI * j / (n - 1));
        if (j == 0) return (double) i / (n - 1);
        if (i == n - 1 || j == n - 1) return 0.25;
        return 0;
    }

    /**
     * Row {@code i} of the next iterate from the current one: {@code cur} holds row {@code i} at
     * {@code curRow} with its neighbours {@code n} before and after; boundary values are copied.
     * Both the parallel and the sequential code use this method, so they are bitwise equal.
     */
    public static void sweepRow(double[] cur, int curRow, double[] out, int outRow, int i, int n) {
        sweepRow(cur, curRow - n, cur, curRow, cur, curRow + n, out, outRow, i, n);
    }

    /**
     * {@link #sweepRow(double[], int, double[], int, int, int)} with the rows above and below
     * row {@code i} in arrays of their own: {@code up} at {@code upRow}, {@code down} at
     * {@code downRow} (not read for a boundary row). The same arithmetic in the same order.
     */
    public static void sweepRow(double[] up, int upRow, double[] cur, int curRow, double[] down, int downRow, double[] out,
                                int outRow, int i, int n) {
        if (i == 0 || i == n - 1) {
            System.arraycopy(cur, curRow, out, outRow, n);
            return;
        }
        out[outRow] = cur[curRow];
        for (int j = 1; j < n - 1; j++) {
            int c = curRow + j;
            out[outRow + j] = 0.25 * (((up[upRow + j] + down[downRow + j]) + cur[c - 1]) + cur[c + 1]);
        }
        out[outRow + n - 1] = cur[curRow + n - 1];
    }

    /** Max residual over the interior rows of {@code [from, to)}; {@code band} holds rows from {@code bandFrom}. */
    static double residual(double[] band, int bandFrom, int from, int to, int n) {
        double worst = 0;
        for (int i = Math.max(1, from); i < Math.min(n - 1, to); i++) {
            int row = (i - bandFrom) * n;
            for (int j = 1; j < n - 1; j++) {
                int c = row + j;
                double r = Math.abs(band[c - n] + band[c + n] + band[c - 1] + band[c + 1] - 4 * band[c]);
                if (Double.isNaN(r)) return Double.NaN;
                worst = Math.max(worst, r);
            }
        }
        return worst;
    }

    /** The grid after {@code iterations} sequential Jacobi iterations, row-major. */
    public static double[] sequential(int n, int iterations) {
        double[] cur = new double[n * n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) cur[i * n + j] = initial(i, j, n);
        }
        double[] next = new double[n * n];
        for (int t = 0; t < iterations; t++) {
            for (int i = 0; i < n; i++) sweepRow(cur, i * n, next, i * n, i, n);
            double[] swap = cur;
            cur = next;
            next = swap;
        }
        return cur;
    }

    /** @throws DsaException naming the first element of {@code u} that is not bitwise equal to {@code expected} */
    static void check(double[] u, double[] expected, int n) {
        for (int k = 0; k < n * n; k++) {
            if (Double.doubleToLongBits(u[k]) != Double.doubleToLongBits(expected[k])) {
                throw new DsaException(NAME + ": u[" + (k / n) + "][" + (k % n) + "] = " + u[k] + ", expected " + expected[k]
                        + " (sequential), difference " + Math.abs(u[k] - expected[k]));
            }
        }
    }
}
