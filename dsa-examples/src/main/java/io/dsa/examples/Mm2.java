package io.dsa.examples;

import io.dsa.ArrayLayout;
import io.dsa.ArraySpec;
import io.dsa.ArrayUse;
import io.dsa.Distribution;
import io.dsa.DsaException;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaScope;
import io.dsa.DsaWorker;
import io.dsa.ElementType;
import io.dsa.ProgramName;
import io.dsa.SharedLongArray;
import java.util.Arrays;
import java.util.List;

/**
 * MM2 from the Aurora paper: {@code P = Q x R}, a barrier, then {@code R = Q x P}, on shared
 * {@code n x n} matrices of random small integers (seeded), held in shared long arrays so every
 * product is exact. Rows are divided among the workers; each worker computes its block of rows
 * from region reads of its rows of the left operand and of panels of the right operand. Thread 0
 * checks both products element by element against a sequential computation.
 *
 * <p>{@link Scoped} ({@code mm2-scoped}) is MM2 with scopes as in the Aurora paper.
 *
 * <p>Arguments: {@code [n=512] [partitionSize=32] [seed=1]}.
 */
@ProgramName("mm2")
public class Mm2 implements DsaProgram {
    static final String NAME = "mm2";
    static final String USAGE = "mm2 [n=512] [partitionSize=32] [seed=1]";
    /** Matrix entries are in {@code [-MAX_VALUE, MAX_VALUE]}. */
    static final int MAX_VALUE = 9;

    /** Test hook: when set on node 0's instance, thread 0 corrupts one element of R before the check. */
    boolean corruptBeforeCheck;

    private int n;
    private long seed;
    private SharedLongArray q;
    private SharedLongArray r;
    private SharedLongArray p;

    private int partitionSize;

    /** Whether this is {@link Scoped}: the products run in scopes. */
    private final boolean scoped;

    /** Creates the program; {@link #setup(DsaNode)} reads the arguments. */
    public Mm2() { this(false); }

    private Mm2(boolean scoped) { this.scoped = scoped; }

    /**
     * {@code mm2-scoped}: MM2 as the Aurora paper writes it with scopes. The matrices are held in
     * bands of {@code partitionSize} full rows, each node homing one contiguous run of bands (row
     * bands, as the MPI + C peer divides them). Each product runs in one scope in which both
     * operands are read caches (the right operand whole, the left one only the rows the worker's
     * bands of the result cover: its node's own bands) and the result is owner-computes: each
     * worker computes the bands of the result it owns ({@link ArrayLayout#partitionsOfThread}),
     * whole rows at a time, into the plain arrays {@link DsaScope#local} gives, from copies of the
     * operands read with local hits. The scope's closing is the barrier between the products. The
     * operands are filled in an owner-computes scope too. Same arguments (the partition size is a
     * band's rows) and the same exact check as {@code mm2}.
     */
    @ProgramName("mm2-scoped")
    public static final class Scoped extends Mm2 {
        /** Creates the program; {@link #setup(DsaNode)} reads the arguments. */
        public Scoped() { super(true); }
    }

    @Override
    public void setup(DsaNode node) {
        parseArgs(node.args(), node.network().getGlobalThreadCount());
        q = create(node, "mm2.Q");
        r = create(node, "mm2.R");
        p = create(node, "mm2.P");
    }

    // square partitions for mm2; for mm2-scoped bands of full rows, contiguous bands per node (row
    // bands, as the MPI + C peer divides the matrices), so a worker multiplies whole rows
    private SharedLongArray create(DsaNode node, String name) {
        return scoped ? (SharedLongArray) node.createSharedArray(
                ArraySpec.of(name, ElementType.LONG, n, n, partitionSize, n, Distribution.BLOCK))
                : node.createSharedLongArray(name, n, n, partitionSize);
    }

    /** Checks the arguments before any node starts (the same parse as {@link #setup(DsaNode)}). */
    @Override
    public void validate(List<String> args, int nodes, int threadsPerNode) {
        parseArgs(args, nodes * threadsPerNode);
    }

    // Reads the arguments into the fields; throws IllegalArgumentException naming a bad one.
    private void parseArgs(List<String> args, int threads) {
        ProgramArgs.atMost(programName(), args, 3, programName() + USAGE.substring(NAME.length()));
        n = ProgramArgs.intArg(programName(), args, 0, "n", 512, 1, 4096);
        partitionSize = ProgramArgs.intArg(programName(), args, 1, "partitionSize", Math.min(32, n), 1, n);
        seed = ProgramArgs.intArg(programName(), args, 2, "seed", 1, 0, Integer.MAX_VALUE);
    }

    /** @return the name this program runs under: {@code NAME}, or {@code NAME-scoped} for {@link Scoped} */
    private String programName() { return scoped ? NAME + "-scoped" : NAME; }

    @Override
    public void work(DsaWorker worker) {
        int threadId = worker.threadId();
        long computeNanos = scoped ? computeScoped(worker) : computePlain(worker);

        if (threadId == 0) {
            long[] pAll = new long[n * n];
            long[] rAll = new long[n * n];
            p.read(0, 0, n, n, pAll);
            r.read(0, 0, n, n, rAll);
            if (corruptBeforeCheck) rAll[rAll.length / 2] += 1;
            long checksum = check(n, seed, pAll, rAll);
            worker.node().report(String.format("mm2 %dx%d%s: P = Q*R, R = Q*P, sum of R = %d (verified against sequential),"
                    + " compute %.1f ms", n, n, scoped ? " scoped (read caches, owner computes)" : "", checksum, computeNanos / 1e6));
        }
    }

    /** Fills Q and R, then computes both products by rows with region reads. @return the products' nanoseconds */
    private long computePlain(DsaWorker worker) {
        int threadId = worker.threadId();
        int from = q.layout().startingIndexAtThread(threadId);
        int to = q.layout().maxIndexAtThread(threadId);
        int rows = to - from;

        if (rows > 0) {
            long[] block = new long[rows * n];
            fill(block, from, rows, 0);
            q.write(from, 0, rows, n, block);
            fill(block, from, rows, 1);
            r.write(from, 0, rows, n, block);
        }
        worker.barrier();
        long start = System.nanoTime();

        if (rows > 0) {
            long[] out = new long[rows * n];
            multiplyRows(q, r, from, rows, out);
            p.write(from, 0, rows, n, out);
        }
        worker.barrier();   // P complete; every read of R is done
        if (rows > 0) {
            long[] out = new long[rows * n];
            multiplyRows(q, p, from, rows, out);
            r.write(from, 0, rows, n, out);
        }
        worker.barrier();
        return System.nanoTime() - start;
    }

    /**
     * {@link Scoped}: fills this worker's blocks of Q and R in an owner-computes scope, then
     * {@code P = Q x R} and {@code R = Q x P}, each in a scope of two read caches and an
     * owner-computes result. @return the products' nanoseconds
     */
    private long computeScoped(DsaWorker worker) {
        ArrayLayout layout = p.layout();
        int[] mine = layout.partitionsOfThread(worker.threadId());
        try (DsaScope scope = worker.scope(ArrayUse.ownerComputes(q), ArrayUse.ownerComputes(r))) {
            for (int part : mine) {
                fillPartition(scope.local(q, part), layout, part, 0);
                fillPartition(scope.local(r, part), layout, part, 1);
            }
        }
        long[][] rightRows = mine.length == 0 ? new long[0][] : new long[n][n];
        long start = System.nanoTime();
        multiplyScoped(worker, q, r, p, mine, rightRows);
        multiplyScoped(worker, q, p, r, mine, rightRows);
        return System.nanoTime() - start;
    }

    private void fillPartition(long[] block, ArrayLayout layout, int part, int which) {
        int r0 = layout.partitionFirstRow(part);
        int c0 = layout.partitionFirstCol(part);
        int w = layout.partitionCols(part);
        for (int i = 0; i < layout.partitionRows(part); i++) {
            for (int j = 0; j < w; j++) block[i * w + j] = initial(seed, which, r0 + i, c0 + j, n);
        }
    }

    /**
     * {@code out = left x right} for this worker's bands {@code mine} of {@code out}, in a scope
     * where {@code left} and {@code right} are read caches and {@code out} is owner-computes. The
     * worker copies all of {@code right} into {@code rightRows} (a row per array: the kernel then
     * indexes the result's row and the right operand's rows alike, see {@link #addRowProduct}) and
     * each of its bands of {@code left}, multiplies the band's rows one at a time into a scratch
     * row, and copies each row into the result's band.
     */
    private void multiplyScoped(DsaWorker worker, SharedLongArray left, SharedLongArray right, SharedLongArray out,
                                int[] mine, long[][] rightRows) {
        ArrayLayout layout = out.layout();
        try (DsaScope scope = worker.scope(leftBand(left, mine), ArrayUse.readCache(right), ArrayUse.ownerComputes(out))) {
            if (mine.length == 0) return;
            for (int k = 0; k < n; k++) right.read(k, 0, 1, n, rightRows[k]);
            long[] leftRows = new long[layout.spec().partitionRows() * n];
            long[] row = new long[n];
            for (int part : mine) {
                int r0 = layout.partitionFirstRow(part);
                int h = layout.partitionRows(part);
                left.read(r0, 0, h, n, leftRows);
                long[] o = scope.local(out, part);
                for (int i = 0; i < h; i++) {
                    Arrays.fill(row, 0);
                    addRowProduct(leftRows, i * n, rightRows, n, row, 0, n);
                    System.arraycopy(row, 0, o, i * n, n);
                }
            }
        }
    }

    /**
     * The left operand's use in a product: a read cache of the rows this worker's bands of the
     * result cover (bands its own node homes), the only rows of it the worker reads. A worker with
     * no bands names the first row (its node fetches at most one band it does not read).
     */
    private ArrayUse leftBand(SharedLongArray left, int[] mine) {
        ArrayLayout layout = left.layout();
        if (mine.length == 0) return ArrayUse.readCache(left, 0, 0, 1, n);
        int first = n;
        int end = 0;
        for (int part : mine) {
            first = Math.min(first, layout.partitionFirstRow(part));
            end = Math.max(end, layout.partitionFirstRow(part) + layout.partitionRows(part));
        }
        return ArrayUse.readCache(left, first, 0, end - first, n);
    }

    /**
     * The kernel of every product here: {@code out[j] += left[leftOffset + k] * right[k][j]} for
     * {@code k} in {@code [0, count)} and {@code j} in {@code [from, to)} (zeros of the left
     * operand skipped, as the MPI + C peer does). The inner loop indexes {@code out} and the
     * right operand's row with the same {@code j}: the JIT vectorises it only then (with two
     * different offsets into arrays of one type it cannot rule out that they overlap, and the
     * loop runs at half speed; see docs/consistency.md, "Owner-computes kernels").
     */
    static void addRowProduct(long[] left, int leftOffset, long[][] right, int count, long[] out, int from, int to) {
        for (int k = 0; k < count; k++) {
            long a = left[leftOffset + k];
            if (a == 0) continue;
            long[] rk = right[k];
            for (int j = from; j < to; j++) out[j] += a * rk[j];
        }
    }

    /** The first {@code count} rows of the row-major {@code flat} with {@code width} columns, each in its own array. */
    static long[][] rows(long[] flat, int count, int width) {
        long[][] rows = new long[count][];
        for (int i = 0; i < count; i++) rows[i] = Arrays.copyOfRange(flat, i * width, (i + 1) * width);
        return rows;
    }

    /** Element {@code (i, j)} of the initial matrix {@code which} (0 = Q, 1 = R). */
    public static long initial(long seed, int which, int i, int j, int n) {
        return Seeded.between(seed, which, (long) i * n + j, -MAX_VALUE, MAX_VALUE);
    }

    private void fill(long[] block, int firstRow, int rows, int which) {
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < n; j++) block[i * n + j] = initial(seed, which, firstRow + i, j, n);
        }
    }

    /** {@code out = left[from..from+rows) x right}, a panel of the inner dimension at a time. */
    private void multiplyRows(SharedLongArray left, SharedLongArray right, int from, int rows, long[] out) {
        int panel = right.layout().spec().partitionRows();
        long[] leftPanel = new long[rows * panel];
        long[] rightPanel = new long[panel * n];
        long[][] outRows = new long[rows][n];
        for (int k0 = 0; k0 < n; k0 += panel) {
            int h = Math.min(panel, n - k0);
            left.read(from, k0, rows, h, leftPanel);
            right.read(k0, 0, h, n, rightPanel);
            long[][] rightRows = rows(rightPanel, h, n);
            for (int i = 0; i < rows; i++) addRowProduct(leftPanel, i * h, rightRows, h, outRows[i], 0, n);
        }
        for (int i = 0; i < rows; i++) System.arraycopy(outRows[i], 0, out, i * n, n);
    }

    /** Sequential {@code left x right} of row-major {@code n x n} matrices, with the kernel the workers use. */
    public static long[] multiply(long[] left, long[] right, int n) {
        long[][] rightRows = rows(right, n, n);
        long[] row = new long[n];
        long[] out = new long[n * n];
        for (int i = 0; i < n; i++) {
            Arrays.fill(row, 0);
            addRowProduct(left, i * n, rightRows, n, row, 0, n);
            System.arraycopy(row, 0, out, i * n, n);
        }
        return out;
    }

    /**
     * Checks {@code p} and {@code r} (the final R) against the sequential MM2.
     *
     * @return the sum of the elements of the final R
     * @throws DsaException naming the first wrong element, its value and the expected one
     */
    static long check(int n, long seed, long[] p, long[] r) {
        long[] q0 = new long[n * n];
        long[] r0 = new long[n * n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                q0[i * n + j] = initial(seed, 0, i, j, n);
                r0[i * n + j] = initial(seed, 1, i, j, n);
            }
        }
        long[] expectedP = multiply(q0, r0, n);
        compare("P", expectedP, p, n);
        long[] expectedR = multiply(q0, expectedP, n);
        compare("R", expectedR, r, n);
        long sum = 0;
        for (long v : r) sum += v;
        return sum;
    }

    private static void compare(String matrix, long[] expected, long[] actual, int n) {
        for (int i = 0; i < expected.length; i++) {
            if (expected[i] != actual[i]) {
                throw new DsaException(NAME + ": " + matrix + "[" + i / n + "][" + i % n + "] = " + actual[i]
                        + ", expected " + expected[i] + " (sequential MM2)");
            }
        }
    }
}
