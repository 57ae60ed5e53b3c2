package io.dsa.bench;

import io.dsa.ArrayLayout;
import io.dsa.ArraySpec;
import io.dsa.ArrayUse;
import io.dsa.Distribution;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaScope;
import io.dsa.DsaWorker;
import io.dsa.ElementType;
import io.dsa.SharedDoubleArray;
import io.dsa.agent.DsaCluster;
import io.dsa.agent.DsaConfig;
import io.dsa.examples.Jacobi;
import io.dsa.examples.LuKernels;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Issue 13's target "owner-computes kernels (LU trailing update, Jacobi sweep) run within 10% of
 * the same loop on a plain local {@code double[]}", in one JMH run: each kernel over the arrays
 * {@link DsaScope#local} gives inside an open owner-computes scope of a one-node VM, beside the
 * same kernel over arrays the benchmark allocates itself.
 *
 * <ul>
 *   <li>{@code jacobiSweepScoped}: one sweep of the {@code jacobi-scoped} example's kernel
 *       ({@link Jacobi#sweepPartition}) over every partition of the grid; {@code jacobiSweepPlain}:
 *       the sequential sweep ({@link Jacobi#sweepRow} row by row) over one {@code n x n} array.</li>
 *   <li>{@code luUpdateScoped}: the trailing update of LU's first step ({@link LuKernels#subtractProduct}
 *       on every block below and right of the first block row and column) on the scope's blocks;
 *       {@code luUpdatePlain}: the same calls on private copies of the blocks.</li>
 * </ul>
 *
 * <p>The VM's one worker opens the scope, hands its arrays over and waits in it until tear-down.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ScopedKernelBenchmark {
    /** Side of the Jacobi grid and of the LU matrix. */
    @Param({"512"})
    int n;

    /** Rows of a Jacobi partition. */
    @Param({"16"})
    int partitionRows;

    /** Side of an LU block. */
    @Param({"64"})
    int block;

    private DsaCluster cluster;
    private CompletableFuture<Void> run;
    private final CountDownLatch release = new CountDownLatch(1);

    // Jacobi: the scope's partitions of both grids, their halo rows, and the plain grids
    private double[][] jacobiSrc;
    private double[][] jacobiDst;
    private double[][] above;
    private double[][] below;
    private int[] firstRow;
    private int[] rowsOf;
    private double[] plainCur;
    private double[] plainNext;

    // LU: the scope's blocks, the panels of step 0, and private copies of the blocks
    private double[][] luScoped;
    private double[][] luPlain;
    private double[][] lPanel;
    /** The U panel's blocks, each as rows in arrays of their own, as {@code Lu} reads them. */
    private double[][][] uPanel;
    private double[] luRow;
    private int grid;

    /** Holds an owner-computes scope over the grids and the matrix open and publishes its arrays. */
    static final class HoldScope implements DsaProgram {
        final ScopedKernelBenchmark bench;
        final CompletableFuture<DsaScope> opened = new CompletableFuture<>();
        SharedDoubleArray u0;
        SharedDoubleArray u1;
        SharedDoubleArray a;

        HoldScope(ScopedKernelBenchmark bench) { this.bench = bench; }

        @Override
        public void setup(DsaNode node) {
            int n = bench.n;
            u0 = (SharedDoubleArray) node.createSharedArray(
                    ArraySpec.of("kernel.u0", ElementType.DOUBLE, n, n, bench.partitionRows, n, Distribution.BLOCK));
            u1 = (SharedDoubleArray) node.createSharedArray(
                    ArraySpec.of("kernel.u1", ElementType.DOUBLE, n, n, bench.partitionRows, n, Distribution.BLOCK));
            a = (SharedDoubleArray) node.createSharedArray(
                    ArraySpec.of("kernel.A", ElementType.DOUBLE, n, n, bench.block, bench.block, Distribution.BLOCK_CYCLIC));
        }

        @Override
        public void work(DsaWorker worker) {
            try (DsaScope scope = worker.scope(ArrayUse.ownerComputes(u0), ArrayUse.ownerComputes(u1), ArrayUse.ownerComputes(a))) {
                bench.adopt(this, scope);
                opened.complete(scope);
                bench.release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                opened.completeExceptionally(e);
                throw e;
            }
        }
    }

    /** Starts a one-node VM whose worker opens the scope, and waits for its arrays. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        if (block < 1 || n % block != 0) throw new IllegalArgumentException("block " + block + " must divide n=" + n);
        if (partitionRows < 1 || partitionRows > n) {
            throw new IllegalArgumentException("partitionRows " + partitionRows + " out of range [1, " + n + "]");
        }
        cluster = DsaCluster.local(DsaConfig.builder().nodes(1).threadsPerNode(1).build());
        HoldScope program = new HoldScope(this);
        run = CompletableFuture.runAsync(() -> cluster.run(program));
        CompletableFuture.anyOf(program.opened, run).get(60, TimeUnit.SECONDS);
        if (!program.opened.isDone()) throw new IllegalStateException("the VM ended before its scope opened");
        program.opened.get();
    }

    /** Fills the scope's arrays and the plain ones with the same values; runs on the VM's worker inside the scope. */
    void adopt(HoldScope program, DsaScope scope) {
        ArrayLayout grids = program.u0.layout();
        int parts = grids.partitionCount();
        jacobiSrc = new double[parts][];
        jacobiDst = new double[parts][];
        above = new double[parts][n];
        below = new double[parts][n];
        firstRow = new int[parts];
        rowsOf = new int[parts];
        plainCur = new double[n * n];
        plainNext = new double[n * n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) plainCur[i * n + j] = initial(i, j);
        }
        for (int p = 0; p < parts; p++) {
            jacobiSrc[p] = scope.local(program.u0, p);
            jacobiDst[p] = scope.local(program.u1, p);
            firstRow[p] = grids.partitionFirstRow(p);
            rowsOf[p] = grids.partitionRows(p);
            System.arraycopy(plainCur, firstRow[p] * n, jacobiSrc[p], 0, rowsOf[p] * n);
            if (firstRow[p] > 0) System.arraycopy(plainCur, (firstRow[p] - 1) * n, above[p], 0, n);
            int last = firstRow[p] + rowsOf[p] - 1;
            if (last < n - 1) System.arraycopy(plainCur, (last + 1) * n, below[p], 0, n);
        }

        ArrayLayout matrix = program.a.layout();
        grid = matrix.partitionGridRows();
        luScoped = new double[matrix.partitionCount()][];
        luPlain = new double[matrix.partitionCount()][];
        lPanel = new double[grid][];
        uPanel = new double[grid][][];
        luRow = new double[block];
        for (int p = 0; p < matrix.partitionCount(); p++) {
            luScoped[p] = scope.local(program.a, p);
            int r0 = matrix.partitionFirstRow(p);
            int c0 = matrix.partitionFirstCol(p);
            int w = matrix.partitionCols(p);
            for (int r = 0; r < matrix.partitionRows(p); r++) {
                for (int c = 0; c < w; c++) luScoped[p][r * w + c] = initial(r0 + r, c0 + c);
            }
            luPlain[p] = luScoped[p].clone();
            if (p % grid == 0) lPanel[p / grid] = luScoped[p].clone();
            if (p / grid == 0) uPanel[p % grid] = LuKernels.rowsOf(luScoped[p], block, block);
        }
    }

    private double initial(int i, int j) {
        return i == j ? n + 1.0 : ((i * 7919 + j * 104729) % 1000) / 1000.0 - 0.5;
    }

    /** Lets the worker close its scope and stops the VM. */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        release.countDown();
        try {
            run.get(60, TimeUnit.SECONDS);
        } finally {
            cluster.close();
        }
    }

    /** @return one element of the result (consumed by JMH) */
    @Benchmark
    public double jacobiSweepScoped() {
        for (int p = 0; p < jacobiSrc.length; p++) {
            Jacobi.sweepPartition(jacobiSrc[p], jacobiDst[p], above[p], below[p], firstRow[p], rowsOf[p], n);
        }
        return jacobiDst[jacobiDst.length / 2][n + 1];
    }

    /** @return one element of the result (consumed by JMH) */
    @Benchmark
    public double jacobiSweepPlain() {
        for (int i = 0; i < n; i++) Jacobi.sweepRow(plainCur, i * n, plainNext, i * n, i, n);
        return plainNext[(n / 2) * n + 1];
    }

    /** @return one element of the result (consumed by JMH) */
    @Benchmark
    public double luUpdateScoped() { return luUpdate(luScoped); }

    /** @return one element of the result (consumed by JMH) */
    @Benchmark
    public double luUpdatePlain() { return luUpdate(luPlain); }

    // Step 0's trailing update on blocks: A_ij -= L_i0 U_0j for every i, j > 0 (full blocks: n a multiple of block)
    private double luUpdate(double[][] blocks) {
        for (int bi = 1; bi < grid; bi++) {
            for (int bj = 1; bj < grid; bj++) {
                LuKernels.subtractProduct(blocks[bi * grid + bj], lPanel[bi], uPanel[bj], block, block, block, luRow);
            }
        }
        return blocks[blocks.length - 1][0];
    }
}
