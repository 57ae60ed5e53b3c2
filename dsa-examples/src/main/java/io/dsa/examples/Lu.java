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
import io.dsa.SharedDoubleArray;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * LU factorisation without pivoting of a shared {@code n x n} double matrix in a 2-D
 * {@link Distribution#BLOCK_CYCLIC} distribution of {@code b x b} blocks (the paper's section
 * 4.5.1). The matrix is strictly diagonally dominant, so no pivoting is needed.
 *
 * <p>Right-looking blocked algorithm, owner computes: every block is updated only by a worker
 * of the node that homes it, and the panel blocks are read whole ({@code readPartition}, all
 * requested first with {@code requestPartitionCopy} so that their transfers travel together) and
 * written whole ({@code writePartition}). Two schedules, the same arithmetic on every block in
 * the same order, so the same factors bit for bit:
 * <ul>
 *   <li>{@code columns}, where every column of blocks is homed at one node (the node grid of one
 *   row that one node or a prime number of nodes give): one global round per step, as the MPI + C peer has one
 *   broadcast per step. A node's columns are dealt round-robin to its threads; at step {@code k}
 *   a column's thread solves {@code U_kj = L_kk^-1 A_kj} and updates the column's trailing blocks
 *   {@code A_ij -= L_ik U_kj}, and the thread of column {@code k + 1}, having updated it first,
 *   factors {@code A_k+1,k+1} and solves its panels {@code L_i,k+1 = A_i,k+1 U_k+1,k+1^-1} at
 *   once (look-ahead); barrier ({@link #factoriseByColumns}).
 *   <li>{@code phases}, for any layout: per step the owner of the diagonal block factors it
 *   ({@code A_kk = L_kk U_kk}); barrier; the owners of the panel blocks solve {@code U_kj} and
 *   {@code L_ik}; barrier; the owners of the trailing blocks ({@link ArrayLayout#partitionsOfThread})
 *   update them; barrier ({@link #factoriseInPhases}).
 * </ul>
 * {@code auto} (the default) runs {@code columns} where the layout allows and {@code phases}
 * elsewhere.
 *
 * <p>Thread 0 then checks the residual {@code ||L*U - A||_max / ||A||_max < 1e-9} against the
 * original matrix, regenerated from its formula.
 *
 * <p>{@link Scoped} ({@code lu-scoped}) runs the trailing update in an owner-computes scope.
 *
 * <p>Arguments: {@code [n=1024] [partitionSize=64] [schedule=auto]} (the block size, 8..128, at most n;
 * {@code auto}, {@code columns} or {@code phases}; {@code lu-scoped} takes the first two and
 * runs the phases).
 */
@ProgramName("lu")
public class Lu implements DsaProgram {
    static final String NAME = "lu";
    static final String USAGE = "lu [n=1024] [partitionSize=64] [schedule=auto]";
    /** The schedules ({@link #factoriseByColumns}, {@link #factoriseInPhases}); {@code auto} picks columns where the layout allows. */
    static final List<String> SCHEDULES = List.of("auto", "columns", "phases");
    /** Largest accepted relative residual. */
    static final double TOLERANCE = 1e-9;

    private int n;
    private int blockSize;
    /** One of {@link #SCHEDULES}. */
    private String schedule;
    private SharedDoubleArray matrix;
    /** Test hook: thread 0 adds {@code delta} to this element of the factors before checking. */
    private int[] corruptAt;
    private double corruptDelta;

    /** Test hook: thread 0 completes it with the factors. */
    private java.util.concurrent.CompletableFuture<double[]> capture;

    /** Whether this is {@link Scoped}: the trailing update runs in an owner-computes scope. */
    private final boolean scoped;

    /** Creates the program; {@link #setup(DsaNode)} reads the arguments. */
    public Lu() { this(false); }

    private Lu(boolean scoped) { this.scoped = scoped; }

    /**
     * {@code lu-scoped}: the same factorisation, its trailing update (the O(n^3) part) in a scope
     * that makes the matrix owner-computes: each worker updates its blocks in place in the plain
     * arrays {@link DsaScope#local} gives. The panel blocks {@code L_ik} and {@code U_kj} it needs
     * are read whole by plain {@code readPartition}s just before the scope opens (the matrix
     * cannot be both owner-computes and a read cache in one scope, and a read cache of a region
     * is not built). The panel solves are plain, as in {@code lu}; the first diagonal block is
     * factored plainly too, and each next one inside the scope by its owner, right after its
     * update (look-ahead), so the scope's closing is also the barrier between that factor and
     * the next step's panels: three global rounds per step (panels' barrier, the scope's opening
     * and closing), as the plain version has. Same arguments and check as {@code lu}, and the
     * same results bit for bit. Not resumable.
     */
    @ProgramName("lu-scoped")
    public static final class Scoped extends Lu {
        /** Creates the program; {@link #setup(DsaNode)} reads the arguments. */
        public Scoped() { super(true); }
    }

    /**
     * Resumable (the plain version only): between barriers the whole state is the shared matrix,
     * and phase {@code s} of the factorisation starts at epoch {@code s + 1}, so a migrated node's
     * workers re-enter there.
     */
    @Override
    public boolean resumable() { return !scoped; }

    /** Test hook: thread 0 hands the factors to {@code sink} (the given instance runs on node 0). */
    Lu captureResult(java.util.concurrent.CompletableFuture<double[]> sink) {
        capture = sink;
        return this;
    }

    /** Test hook: the check must then fail naming element {@code (row, col)}. */
    Lu corruptBeforeCheck(int row, int col, double delta) {
        corruptAt = new int[] {row, col};
        corruptDelta = delta;
        return this;
    }

    @Override
    public void setup(DsaNode node) {
        parseArgs(node.args(), node.network().nodeCount(), node.network().getLocalThreadCount());
        matrix = (SharedDoubleArray) node.createSharedArray(spec());
    }

    /** Checks the arguments before any node starts (the same parse as {@link #setup(DsaNode)}). */
    @Override
    public void validate(List<String> args, int nodes, int threadsPerNode) {
        parseArgs(args, nodes, threadsPerNode);
    }

    // Reads the arguments into the fields; throws IllegalArgumentException naming a bad one.
    private void parseArgs(List<String> args, int nodes, int threadsPerNode) {
        String usage = scoped ? NAME + "-scoped [n=1024] [partitionSize=64]" : USAGE;
        ProgramArgs.atMost(programName(), args, scoped ? 2 : 3, usage);
        n = ProgramArgs.intArg(programName(), args, 0, "n", 1024, 1, 8192);
        blockSize = ProgramArgs.intArg(programName(), args, 1, "partitionSize", Math.min(64, n), Math.min(8, n),
                Math.min(128, n));
        schedule = scoped ? "phases" : args.size() > 2 ? args.get(2).strip() : "auto";
        if (!SCHEDULES.contains(schedule)) {
            throw new IllegalArgumentException(NAME + ": schedule '" + schedule + "' is not one of " + SCHEDULES);
        }
        if (schedule.equals("columns")) {
            ArrayLayout layout = ArrayLayout.of(spec(), nodes, threadsPerNode);
            if (!columnsHomedWhole(layout)) {
                throw new IllegalArgumentException(NAME + ": schedule 'columns' needs every column of blocks homed at one node,"
                        + " a node grid of one row (one node or a prime number of nodes); " + nodes + " nodes make a node grid of "
                        + layout.nodeGrid()[0] + " rows: use 'auto' or 'phases'");
            }
        }
    }

    /** @return the matrix's spec for the parsed arguments */
    private ArraySpec spec() {
        return ArraySpec.of("lu.A", ElementType.DOUBLE, n, n, blockSize, blockSize, Distribution.BLOCK_CYCLIC);
    }

    /** @return the name this program runs under: {@code NAME}, or {@code NAME-scoped} for {@link Scoped} */
    private String programName() { return scoped ? NAME + "-scoped" : NAME; }

    @Override
    public void work(DsaWorker worker) {
        ArrayLayout layout = matrix.layout();
        int[] mine = layout.partitionsOfThread(worker.threadId());
        int grid = layout.partitionGridRows();

        if (worker.epoch() == 0) {
            for (int p : mine) {
                matrix.writePartition(p, original(layout, p));
            }
            worker.barrier();
        }

        long start = System.nanoTime();
        if (schedule.equals("columns") || (schedule.equals("auto") && columnsHomedWhole(layout))) {
            factoriseByColumns(worker, layout);
        } else {
            factoriseInPhases(worker, layout, mine);
        }
        double seconds = (System.nanoTime() - start) / 1e9;

        if (worker.threadId() == 0) {
            double[] lu = new double[n * n];
            matrix.read(0, 0, n, n, lu);
            if (capture != null) capture.complete(lu.clone());
            if (corruptAt != null) lu[corruptAt[0] * n + corruptAt[1]] += corruptDelta;
            double residual = check(lu, n);
            worker.node().report(String.format("lu %dx%d, blocks %dx%d BLOCK_CYCLIC%s: ||L*U - A||/||A|| = %.3e"
                    + " (verified, < %.0e), factorisation %.3f s", n, n, blockSize, blockSize,
                    scoped ? ", scoped (owner-computes trailing update, panels by plain reads)" : "", residual, TOLERANCE, seconds));
        }
    }

    /** @return whether every column of blocks has all its blocks homed at one node (a node grid of one row) */
    private static boolean columnsHomedWhole(ArrayLayout layout) {
        int grid = layout.partitionGridCols();
        for (int p = 0; p < layout.partitionCount(); p++) {
            if (layout.homeOf(p) != layout.homeOf(p % grid)) return false;
        }
        return true;
    }

    /**
     * The column schedule, where every column of blocks is homed at one node (a node grid of one
     * row: one node or a prime number of nodes): one global round per step, as the MPI + C peer's one broadcast
     * per step. The columns of a node are dealt round-robin to its threads, and a column's thread
     * does everything to it: at step {@code k} it solves {@code U_kj = L_kk^-1 A_kj} and updates
     * the column's trailing blocks {@code A_ij -= L_ik U_kj}, reading {@code L_kk} and the
     * {@code L_ik} that step {@code k - 1} left final (all requested at the step's start, each read at
     * its first use); the thread of column
     * {@code k + 1} takes it first and, once updated, factors {@code A_k+1,k+1} and solves the
     * column's {@code L_i,k+1 = A_i,k+1 U_k+1,k+1^-1} at once (look-ahead: the next step's
     * panels are ready at this step's barrier). Each block gets the same operations in the same
     * order as in {@link #factoriseInPhases}, so the factors are the same bit for bit. Phase
     * {@code s} (0: column 0's factor and panels; {@code s >= 1}: step {@code s - 1}) starts at
     * epoch {@code s + 1}.
     */
    private void factoriseByColumns(DsaWorker worker, ArrayLayout layout) {
        int grid = layout.partitionGridCols();
        int threads = worker.node().network().getLocalThreadCount();
        int[] columns = columnsOfThread(layout, worker.nodeId(), worker.localThreadId(), threads);
        double[] diagonal = new double[blockSize * blockSize];
        double[] next = new double[blockSize * blockSize];   // the look-ahead's diagonal block: diagonal still serves this step
        double[] block = new double[blockSize * blockSize];
        double[] row = new double[layout.cols()];
        double[][] lPanels = new double[grid][blockSize * blockSize];   // L_ik of the step, read once per step
        int[] lStep = new int[grid];   // the step lPanels[i] was read at
        Arrays.fill(lStep, -1);
        double[][] uRows = new double[blockSize][blockSize];
        for (long s = worker.epoch() - 1; s < grid; s++) {
            if (s == 0) {
                if (columns.length > 0 && columns[0] == 0) factorColumn(layout, 0, diagonal, block);
            } else {
                int k = (int) s - 1;
                int kk = k * grid + k;
                int first = 0;
                while (first < columns.length && columns[first] <= k) first++;
                if (first < columns.length) {
                    for (int i = k; i < grid; i++) matrix.requestPartitionCopy(i * grid + k);
                    matrix.readPartition(kk, diagonal);
                    int h = layout.partitionRows(kk);
                    for (int c = first; c < columns.length; c++) {
                        int j = columns[c];
                        int kj = k * grid + j;
                        int w = layout.partitionCols(kj);
                        matrix.readPartition(kj, block);
                        LuKernels.solveUnitLower(diagonal, h, block, w);
                        matrix.writePartition(kj, block);
                        for (int r = 0; r < h; r++) System.arraycopy(block, r * w, uRows[r], 0, w);
                        for (int i = k + 1; i < grid; i++) {
                            if (lStep[i] != k) {   // first use this step: its transfer, requested above, overlapped the work so far
                                matrix.readPartition(i * grid + k, lPanels[i]);
                                lStep[i] = k;
                            }
                            int ij = i * grid + j;
                            matrix.readPartition(ij, block);
                            LuKernels.subtractProduct(block, lPanels[i], uRows, layout.partitionRows(ij), h, w, row);
                            matrix.writePartition(ij, block);
                        }
                        if (j == k + 1) factorColumn(layout, j, next, block);
                    }
                }
            }
            worker.barrier();
        }
    }

    /**
     * Column {@code j}'s own step, its trailing updates done: factors the diagonal block
     * {@code A_jj} and solves the column's panels {@code L_ij = A_ij U_jj^-1} below it. Overwrites
     * {@code diagonal} and {@code block}.
     */
    private void factorColumn(ArrayLayout layout, int j, double[] diagonal, double[] block) {
        int grid = layout.partitionGridCols();
        int jj = j * grid + j;
        int h = layout.partitionRows(jj);
        matrix.readPartition(jj, diagonal);
        LuKernels.factor(diagonal, h);
        matrix.writePartition(jj, diagonal);
        for (int i = j + 1; i < grid; i++) {
            int ij = i * grid + j;
            matrix.readPartition(ij, block);
            LuKernels.solveUpperRight(diagonal, h, block, layout.partitionRows(ij));
            matrix.writePartition(ij, block);
        }
    }

    /** @return the columns of blocks homed at {@code node}, dealt round-robin to its {@code threads} threads: {@code local}'s, ascending */
    static int[] columnsOfThread(ArrayLayout layout, int node, int local, int threads) {
        int grid = layout.partitionGridCols();
        int[] out = new int[grid];
        int count = 0;
        int seen = 0;
        for (int j = 0; j < grid; j++) {
            if (layout.homeOf(j) == node) {
                if (seen % threads == local) out[count++] = j;
                seen++;
            }
        }
        return Arrays.copyOf(out, count);
    }

    /**
     * The three-phase schedule, for layouts that spread a column of blocks over several nodes
     * (and for {@link Scoped}): per step the diagonal block's factor, the panel solves and the
     * trailing update, each ended by a barrier. Phase {@code s = 3k + (0, 1, 2)} starts at epoch
     * {@code s + 1}.
     */
    private void factoriseInPhases(DsaWorker worker, ArrayLayout layout, int[] mine) {
        int grid = layout.partitionGridRows();
        double[] diagonal = new double[blockSize * blockSize];
        // the block being factored, solved or updated, and the update's row: one array each for the whole run
        // (readPartition and writePartition take an array at least as long as the partition), as the MPI + C peer
        // works in place; a fresh array per block (128 KiB at partitions of 128) meant more young collections and a
        // warm 2x1 run 1.05x as long (BENCHMARKS.md, "Kept: one array per run for LU's block")
        double[] block = new double[blockSize * blockSize];
        double[] row = new double[layout.cols()];
        // phase s = 3k + (0 factor, 1 panels, 2 trailing update) starts at epoch s + 1: a worker
        // resumed after a migration re-enters at its phase, the matrix holds everything else
        for (long s = worker.epoch() - 1; s < 3L * grid; s++) {
            int k = (int) (s / 3);
            int kk = k * grid + k;
            switch ((int) (s % 3)) {
                case 0 -> {
                    // lu-scoped factored this diagonal block in the previous step's scope; its closing was the barrier
                    if (scoped && k > 0) continue;
                    if (owns(mine, kk)) {
                        matrix.readPartition(kk, block);
                        LuKernels.factor(block, layout.partitionRows(kk));
                        matrix.writePartition(kk, block);
                    }
                }
                case 1 -> {
                    boolean diagonalRead = false;
                    for (int p : mine) {
                        int bi = p / grid;
                        int bj = p % grid;
                        if ((bi == k && bj > k) || (bj == k && bi > k)) {
                            if (!diagonalRead) {
                                matrix.readPartition(kk, diagonal);
                                diagonalRead = true;
                            }
                            int h = layout.partitionRows(kk);
                            matrix.readPartition(p, block);
                            if (bi == k) {
                                LuKernels.solveUnitLower(diagonal, h, block, layout.partitionCols(p));
                            } else {
                                LuKernels.solveUpperRight(diagonal, h, block, layout.partitionRows(p));
                            }
                            matrix.writePartition(p, block);
                        }
                    }
                }
                default -> {
                    if (scoped) {
                        updateScoped(worker, layout, mine, k);
                        continue;   // the scope's closing is the step's barrier
                    }
                    requestPanels(mine, grid, k);
                    Map<Integer, double[]> lPanels = new HashMap<>();
                    Map<Integer, double[][]> uPanels = new HashMap<>();
                    for (int p : mine) {
                        int bi = p / grid;
                        int bj = p % grid;
                        if (bi > k && bj > k) {
                            double[] l = lPanels.computeIfAbsent(bi * grid + k, q -> readWhole(layout, q));
                            double[][] u = uPanels.computeIfAbsent(k * grid + bj, q -> uRows(layout, q));
                            matrix.readPartition(p, block);
                            LuKernels.subtractProduct(block, l, u, layout.partitionRows(p), layout.partitionCols(kk), layout.partitionCols(p), row);
                            matrix.writePartition(p, block);
                        }
                    }
                }
            }
            worker.barrier();
        }
    }

    /**
     * Step {@code k}'s trailing update of {@link Scoped}: the panel blocks by plain reads, then
     * {@code A_ij -= L_ik U_kj} on this worker's blocks in an owner-computes scope, and the owner
     * of the next diagonal block factors it there.
     */
    private void updateScoped(DsaWorker worker, ArrayLayout layout, int[] mine, int k) {
        int grid = layout.partitionGridRows();
        int kk = k * grid + k;
        requestPanels(mine, grid, k);
        Map<Integer, double[]> lPanels = new HashMap<>();
        Map<Integer, double[][]> uPanels = new HashMap<>();
        for (int p : mine) {
            if (p / grid > k && p % grid > k) {
                lPanels.computeIfAbsent((p / grid) * grid + k, q -> readWhole(layout, q));
                uPanels.computeIfAbsent(k * grid + p % grid, q -> uRows(layout, q));
            }
        }
        double[] row = new double[layout.cols()];
        try (DsaScope scope = worker.scope(ArrayUse.ownerComputes(matrix))) {
            for (int p : mine) {
                int bi = p / grid;
                int bj = p % grid;
                if (bi > k && bj > k) {
                    LuKernels.subtractProduct(scope.local(matrix, p), lPanels.get(bi * grid + k), uPanels.get(k * grid + bj),
                            layout.partitionRows(p), layout.partitionCols(kk), layout.partitionCols(p), row);
                }
            }
            // look ahead: the next diagonal block is final now (its owner just updated it), so its owner factors it here,
            // in the plain array, and the next step starts with the panels: one global round less per step
            int next = (k + 1) * grid + k + 1;
            if (k + 1 < grid && owns(mine, next)) LuKernels.factor(scope.local(matrix, next), layout.partitionRows(next));
        }
    }

    /**
     * Step {@code k}'s trailing update is about to read the panel blocks {@code L(i,k)} and
     * {@code U(k,j)} of this worker's blocks {@code (i,j)}: requests them all now
     * ({@link SharedDoubleArray#requestPartitionCopy}, which does not wait), so that the copies of
     * other nodes' blocks travel together instead of one round trip per block as the update reaches
     * each (a local block's request completes at once).
     */
    private void requestPanels(int[] mine, int grid, int k) {
        java.util.BitSet requested = new java.util.BitSet();
        for (int p : mine) {
            int bi = p / grid;
            int bj = p % grid;
            if (bi > k && bj > k) {
                for (int panel : new int[] {bi * grid + k, k * grid + bj}) {
                    if (!requested.get(panel)) {
                        requested.set(panel);
                        matrix.requestPartitionCopy(panel);
                    }
                }
            }
        }
    }

    private static boolean owns(int[] mine, int partition) {
        for (int p : mine) if (p == partition) return true;
        return false;
    }

    private double[] readWhole(ArrayLayout layout, int partition) {
        double[] data = new double[layout.partitionElements(partition)];
        matrix.readPartition(partition, data);
        return data;
    }

    /** @return a U panel block read whole, its rows each in an array of its own ({@link LuKernels#subtractProduct}) */
    private double[][] uRows(ArrayLayout layout, int partition) {
        return LuKernels.rowsOf(readWhole(layout, partition), layout.partitionRows(partition), layout.partitionCols(partition));
    }

    /** The original elements of {@code partition}, row-major in the partition's shape. */
    private double[] original(ArrayLayout layout, int partition) {
        int r0 = layout.partitionFirstRow(partition);
        int c0 = layout.partitionFirstCol(partition);
        int rows = layout.partitionRows(partition);
        int cols = layout.partitionCols(partition);
        double[] block = new double[rows * cols];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) block[r * cols + c] = aAt(r0 + r, c0 + c, n);
        }
        return block;
    }

    /**
     * {@code A[i][j]}: a deterministic pseudo-random value in [-1, 1) off the diagonal, and
     * {@code n + 1 + (value in [0, 1))} on it, so every row is strictly diagonally dominant.
     */
    static double aAt(int i, int j, int n) {
        long z = (long) i * 0x9E3779B97F4A7C15L + (long) j * 0xC2B2AE3D27D4EB4FL + 0x165667B19E3779F9L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        double unit = (z >>> 11) * 0x1.0p-53;   // [0, 1)
        return i == j ? n + 1 + unit : 2 * unit - 1;
    }

    /**
     * Checks the packed factors {@code lu} (row-major {@code n x n}: L below the diagonal with a
     * unit diagonal, U on and above it) against the original matrix.
     *
     * @return {@code ||L*U - A||_max / ||A||_max}
     * @throws DsaException naming the worst element, its value in {@code L*U} and the expected one
     */
    static double check(double[] lu, int n) {
        double worst = -1;
        int worstI = 0;
        int worstJ = 0;
        double worstActual = 0;
        double maxA = 0;
        double[] row = new double[n];
        for (int i = 0; i < n; i++) {
            java.util.Arrays.fill(row, 0);
            // row i of L*U = sum over k <= i of L[i][k] * U[k][*], with L[i][i] = 1
            for (int k = 0; k < i; k++) {
                double lik = lu[i * n + k];
                for (int j = k; j < n; j++) row[j] += lik * lu[k * n + j];
            }
            for (int j = i; j < n; j++) row[j] += lu[i * n + j];
            for (int j = 0; j < n; j++) {
                double expected = aAt(i, j, n);
                maxA = Math.max(maxA, Math.abs(expected));
                double error = Math.abs(row[j] - expected);
                if (!Double.isNaN(worst) && (Double.isNaN(error) || error > worst)) {   // the first NaN is the worst
                    worst = error;
                    worstI = i;
                    worstJ = j;
                    worstActual = row[j];
                }
            }
        }
        double residual = worst / maxA;
        if (!(residual < TOLERANCE)) {
            throw new DsaException(NAME + ": (L*U)[" + worstI + "][" + worstJ + "] = " + worstActual + ", expected A["
                    + worstI + "][" + worstJ + "] = " + aAt(worstI, worstJ, n) + ": ||L*U - A||/||A|| = " + residual
                    + " >= " + TOLERANCE);
        }
        return residual;
    }
}
