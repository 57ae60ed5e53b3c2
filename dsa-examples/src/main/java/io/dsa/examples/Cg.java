package io.dsa.examples;

import io.dsa.ArrayLayout;
import io.dsa.ArrayUse;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaScope;
import io.dsa.DsaWorker;
import io.dsa.ProgramName;
import io.dsa.ReduceOp;
import io.dsa.SharedDoubleArray;
import java.util.List;

/**
 * The NAS Parallel Benchmarks' CG ({@link NpbCg}) as a user would first write it on DSA: the
 * vectors x, z, p, q and r are shared arrays of {@code na} doubles; each worker owns a block of
 * rows (owner computes: it updates only its elements of every vector, and multiplies only its rows
 * of the sparse matrix, which it keeps in plain Java arrays); the matrix-vector products read
 * {@code p} (and at the end {@code z}) through the shared array, so each node fetches the other
 * nodes' blocks as partition misses; dot products are {@code allReduce}s.
 *
 * <p>Collectives per outer iteration: 76 global rounds. The CG step's two dot products cannot share
 * one: {@code rho = r.r} needs {@code r - alpha q}, and {@code alpha} needs the reduced {@code p.q}
 * (merging them would need a different, re-associated recurrence, not NPB's algorithm). So a
 * step costs {@code allReduce(p.q)}, {@code allReduce(r.r)} and a barrier after {@code p} is
 * rewritten (before the next product reads it); the last step needs no barrier (the next reader
 * of {@code p} is behind the next {@code allReduce(r.r)}). Where the algorithm allows, one
 * collective carries several values: the residual {@code ||x - A z||^2}, {@code x.z} and
 * {@code z.z} at the end of an outer iteration are one {@code allReduce} of three values. Each
 * collective orders memory like a barrier, which is what makes the writes to {@code p} and
 * {@code z} before it visible to the readers after it.
 *
 * <p>Resumable (the plain version): a checkpoint or a move happens at a plain global barrier, and
 * the only plain barriers are the ones after {@code p} is rewritten in steps 0-23 of each
 * {@code conj_grad}; there every vector is in the shared arrays and the one scalar the next step
 * needs, {@code rho}, is in {@code cg.rho} (thread 0 writes it before the barrier). A worker that
 * re-enters {@link #work} at epoch {@code 76 it + 3 s + 4} (after step {@code s}'s barrier of outer
 * iteration {@code it}) reads {@code rho} back and goes on with step {@code s + 1}, with the same
 * arithmetic in the same order: the result is bitwise the uninterrupted run's.
 *
 * <p>Verification: {@code zeta} against NPB's published value, relative error at most 1e-10; a
 * failed check fails the job. The report gives zeta, the error, the verdict and the time of the
 * {@code niter} timed iterations (NPB's benchmark time: after one untimed iteration).
 *
 * <p>{@link Scoped} ({@code cg-scoped}) is the same CG with scopes.
 *
 * <p>Arguments: {@code [class=S] [partitionSize=ceil(na/threads)]}; the default partition size
 * makes each worker's block of rows exactly one partition, homed at its node.
 */
@ProgramName("cg")
public class Cg implements DsaProgram {
    static final String NAME = "cg";
    static final String USAGE = "cg [class=S|W|A] [partitionSize=ceil(na/threads)]";
    /** The report-line marker before the timed iterations' seconds. */
    public static final String TIME_MARKER = " iterations ";

    private NpbCg.Size size;
    private NpbCg.Matrix matrix;
    private int partitionSize;
    private SharedDoubleArray x;
    private SharedDoubleArray z;
    private SharedDoubleArray p;
    private SharedDoubleArray q;
    private SharedDoubleArray r;
    /** The plain version's {@code rho} after the last step's reduction, written by thread 0 before each barrier (for a resume). */
    private SharedDoubleArray rhoSaved;

    /** Global rounds of one outer iteration of the plain version: 1 + 25 x 3 - 1 barrier + the final sums. */
    static final int ROUNDS_PER_ITERATION = 76;

    /** Test hook: thread 0 completes it with {@code {zeta, rnorm}} (the given instance runs on node 0). */
    private java.util.concurrent.CompletableFuture<double[]> capture;

    /** Test hook: thread 0 hands {@code {zeta, rnorm}} to {@code sink}. @return this */
    Cg captureResult(java.util.concurrent.CompletableFuture<double[]> sink) {
        capture = sink;
        return this;
    }

    /** Test hook: the global rounds of the first outer iteration, as thread 0 counted them. */
    volatile long roundsOfFirstIteration;

    /** Whether this is {@link Scoped}: the vectors are used through scopes. */
    private final boolean scoped;

    /** Creates the program; {@link #setup(DsaNode)} reads the arguments. */
    public Cg() { this(false); }

    private Cg(boolean scoped) { this.scoped = scoped; }

    /**
     * {@code cg-scoped}: the same CG with scopes. A worker's rows are those of its partitions
     * ({@link ArrayLayout#partitionsOfThread}). The whole run is one owner-computes scope over
     * {@code x}, {@code z} and {@code q}, which only their owners touch: every update of them
     * runs on the plain arrays {@link DsaScope#local} gives. {@code r} is in a nested scope that
     * alternates: a release scope while its owners write their part (the writes are buffered and
     * never demand the data in), then a read cache that brings all of it to every node; the switch
     * between them carries the written elements in its own round (docs/consistency.md, "Diffs
     * pushed in the switch"), so the copies stay valid and nothing is fetched. Every worker then
     * computes all of {@code p = r + beta p} in a plain array of its own, the same arithmetic the
     * owners of {@code p} would do, so {@code p} needs no exchange and the product runs on plain
     * arrays. For the final {@code A z}, the owners write {@code z} into {@code r}'s storage, read
     * the same way. Each switch is {@link DsaScope#next}, made in the round of a reduction the
     * algorithm does anyway ({@code rho}, {@code p.q}, the final sums): a step costs two global
     * rounds ({@code p.q} and {@code r.r}), and an outer iteration 52, where {@code cg} takes 76.
     * Same arguments, the same arithmetic (with the default partition size, zeta and rnorm are
     * bitwise those of {@code cg}; with several partitions per worker its sums group the rows
     * differently) and the same check against NPB's zeta as {@code cg}.
     */
    @ProgramName("cg-scoped")
    public static final class Scoped extends Cg {
        /** Creates the program; {@link #setup(DsaNode)} reads the arguments. */
        public Scoped() { super(true); }
    }

    @Override
    public void setup(DsaNode node) {
        parseArgs(node.args(), node.network().getGlobalThreadCount());
        matrix = NpbCg.makea(size); // every node generates the whole matrix (NPB's generator is one sequential stream)
        x = node.createSharedDoubleArray("cg.x", size.na, partitionSize);
        z = node.createSharedDoubleArray("cg.z", size.na, partitionSize);
        p = node.createSharedDoubleArray("cg.p", size.na, partitionSize);
        q = node.createSharedDoubleArray("cg.q", size.na, partitionSize);
        r = node.createSharedDoubleArray("cg.r", size.na, partitionSize);
        rhoSaved = node.createSharedDoubleArray("cg.rho", 1, 1); // homed at node 0, where thread 0 writes it
    }

    /**
     * Resumable (the plain version only): at its plain barriers every vector is in the shared
     * arrays and {@code rho} in {@code cg.rho}; a worker re-entering {@link #work} at such a
     * barrier's epoch goes on with the next CG step.
     */
    @Override
    public boolean resumable() { return !scoped; }

    /** Checks the arguments before any node starts (the same parse as {@link #setup(DsaNode)}). */
    @Override
    public void validate(List<String> args, int nodes, int threadsPerNode) {
        parseArgs(args, nodes * threadsPerNode);
    }

    // Reads the arguments into the fields; throws IllegalArgumentException naming a bad one.
    private void parseArgs(List<String> args, int threads) {
        ProgramArgs.atMost(programName(), args, 2, programName() + USAGE.substring(NAME.length()));
        size = NpbCg.Size.parse(args.isEmpty() ? "S" : args.get(0));
        partitionSize = ProgramArgs.intArg(programName(), args, 1, "partitionSize", (size.na + threads - 1) / threads, 1, size.na);
    }

    /** @return the name this program runs under: {@code NAME}, or {@code NAME-scoped} for {@link Scoped} */
    private String programName() { return scoped ? NAME + "-scoped" : NAME; }

    @Override
    public void work(DsaWorker worker) {
        NpbCg.Result result = scoped ? runScoped(worker) : runPlain(worker);
        if (worker.threadId() == 0) {
            if (capture != null) capture.complete(new double[] {result.zeta(), result.rnorm()});
            result.check();
            var net = worker.node().network();
            worker.node().report(result.describe() + ", " + net.nodeCount() + " nodes x " + net.getLocalThreadCount()
                    + " threads, partitions of " + partitionSize + (scoped ? ", scoped (owner computes, release and read cache of r, p at every worker)" : ""));
        }
    }

    /** The plain run: every vector read and written through the shared arrays. @return zeta, rnorm and the time */
    private NpbCg.Result runPlain(DsaWorker worker) {
        ArrayLayout layout = x.layout();
        int lo = layout.startingIndexAtThread(worker.threadId());
        int hi = layout.maxIndexAtThread(worker.threadId());
        NpbCg.Matrix mine = matrix.rows(lo, hi); // this worker's rows, global column numbers
        double zeta = 0;
        double rnorm = 0;
        long start = System.nanoTime();
        // a worker resumed at epoch E (a checkpoint's or a move's barrier) re-enters outer iteration E / 76 after step s's
        // barrier, E % 76 = 3 s + 4; a fresh one starts at iteration 0, step 0
        long resumedAt = worker.epoch();
        int firstIt = (int) (resumedAt / ROUNDS_PER_ITERATION);
        int firstStep = resumedAt == 0 ? 0 : resumeStep(resumedAt);
        for (int it = firstIt; it <= size.niter; it++) {
            boolean resumed = it == firstIt && firstStep > 0;
            if (it <= 1 && !resumed) {
                for (int j = lo; j < hi; j++) x.write(j, 1.0); // it = 0 is NPB's untimed iteration; both start from ones
                start = System.nanoTime();
            }
            long epoch = worker.epoch();
            double residual = conjGrad(worker, mine, lo, hi, resumed ? firstStep : 0);
            double xz = 0;
            double zz = 0;
            for (int j = lo; j < hi; j++) {
                double zj = z.read(j);
                xz += x.read(j) * zj;
                zz += zj * zj;
            }
            double[] sums = worker.allReduce(new double[] {residual, xz, zz}, ReduceOp.SUM);
            countRounds(worker, it, epoch);
            rnorm = Math.sqrt(sums[0]);
            zeta = size.shift + 1.0 / sums[1];
            double norm = 1.0 / Math.sqrt(sums[2]);
            for (int j = lo; j < hi; j++) x.write(j, norm * z.read(j));
        }
        return new NpbCg.Result(size, zeta, rnorm, (System.nanoTime() - start) / 1e9);
    }

    /**
     * {@link Scoped}'s run: {@code x, z, q} owner-computes for the whole run; {@code r} in a nested
     * scope that is a release scope while its owners write it and a read cache while every worker
     * reads it, switched by {@link DsaScope#next} in the rounds of the reductions; {@code p}
     * replicated in a plain array at every worker. @return zeta, rnorm and the time
     */
    private NpbCg.Result runScoped(DsaWorker worker) {
        ArrayLayout layout = r.layout();
        int[] mine = layout.partitionsOfThread(worker.threadId());
        int[] first = new int[mine.length];
        NpbCg.Matrix[] rows = new NpbCg.Matrix[mine.length];
        for (int k = 0; k < mine.length; k++) {
            first[k] = layout.partitionFirstCol(mine[k]);
            rows[k] = matrix.rows(first[k], first[k] + layout.partitionCols(mine[k]));
        }
        double zeta = 0;
        double rnorm = 0;
        long start = 0;
        try (DsaScope scope = worker.scope(ArrayUse.ownerComputes(x), ArrayUse.ownerComputes(z), ArrayUse.ownerComputes(q))) {
            Vectors v = new Vectors(mine.length, size.na);
            for (int k = 0; k < mine.length; k++) {
                v.x[k] = scope.local(x, mine[k]);
                v.z[k] = scope.local(z, mine[k]);
                v.q[k] = scope.local(q, mine[k]);
                v.r[k] = new double[v.x[k].length];
            }
            DsaScope rScope = worker.scope(ArrayUse.release(r));
            for (int it = 0; it <= size.niter; it++) {
                if (it <= 1) {
                    for (double[] xk : v.x) java.util.Arrays.fill(xk, 1.0);
                    start = System.nanoTime();
                }
                long epoch = worker.epoch();
                rScope = conjGradScoped(worker, rows, first, v, rScope);
                double xz = 0;
                double zz = 0;
                for (int k = 0; k < mine.length; k++) {
                    for (int j = 0; j < v.x[k].length; j++) {
                        double zj = v.z[k][j];
                        xz += v.x[k][j] * zj;
                        zz += zj * zj;
                    }
                }
                double[] sums = {v.residual, xz, zz};
                // the reduction's round is also where r stops being read and is written again
                rScope = rScope.next(sums, ReduceOp.SUM, ArrayUse.release(r));
                countRounds(worker, it, epoch);
                rnorm = Math.sqrt(sums[0]);
                zeta = size.shift + 1.0 / sums[1];
                double norm = 1.0 / Math.sqrt(sums[2]);
                for (int k = 0; k < mine.length; k++) {
                    for (int j = 0; j < v.x[k].length; j++) v.x[k][j] = norm * v.z[k][j];
                }
            }
            rScope.close();
        }
        return new NpbCg.Result(size, zeta, rnorm, (System.nanoTime() - start) / 1e9);
    }

    /** Test hook: thread 0 records the global rounds ({@link DsaWorker#epoch}) of the first outer iteration. */
    private void countRounds(DsaWorker worker, int it, long epochBefore) {
        if (it == 0 && worker.threadId() == 0) roundsOfFirstIteration = worker.epoch() - epochBefore;
    }

    /**
     * A worker's vectors in {@link Scoped}: per partition {@code k} of its own, the plain arrays of
     * {@code x, z, q} (the scope's) and its part of {@code r} (private, written to the shared
     * {@code r}); {@code all}, the whole of {@code r} read in each step (and of {@code z} for the
     * last product); {@code pAll}, the whole of {@code p}, which every worker updates itself; and
     * the worker's part of the last {@code ||x - A z||^2}.
     */
    private static final class Vectors {
        final double[][] x;
        final double[][] z;
        final double[][] q;
        final double[][] r;
        final double[] all;
        final double[] pAll;
        double residual;

        Vectors(int partitions, int na) {
            x = new double[partitions][];
            z = new double[partitions][];
            q = new double[partitions][];
            r = new double[partitions][];
            all = new double[na];
            pAll = new double[na];
        }
    }

    /**
     * NPB's {@code conj_grad} in {@link Scoped}: 25 CG steps for {@code A z = x} on this worker's
     * partitions; sets {@code v.residual} to this worker's part of {@code ||x - A z||^2}.
     * {@code rScope} is {@code r}'s scope, a release scope on entry. A step's two reductions are
     * its two rounds: {@code p.q}, whose round switches {@code r} to a release scope, and
     * {@code rho = r.r}, whose round switches it back to a read cache and so brings every worker
     * all of the new {@code r} (the owners' writes ride that round: docs/consistency.md, "Diffs
     * pushed in the switch"); then every worker computes all of {@code p = r + beta p} itself, the
     * same arithmetic the owners would do, instead of a third round to exchange {@code p}. @return
     * {@code r}'s scope, a read cache (of {@code z}, carried in {@code r}'s storage, for the last product)
     */
    private DsaScope conjGradScoped(DsaWorker worker, NpbCg.Matrix[] rows, int[] first, Vectors v, DsaScope rScope) {
        double[] rho = {0};
        for (int k = 0; k < rows.length; k++) {
            for (int j = 0; j < v.x[k].length; j++) {
                double xj = v.x[k][j];
                v.q[k][j] = 0;
                v.z[k][j] = 0;
                v.r[k][j] = xj;
                rho[0] += xj * xj;
            }
            r.write(0, first[k], 1, v.r[k].length, v.r[k]);
        }
        DsaScope s = rScope.next(rho, ReduceOp.SUM, ArrayUse.readCache(r));
        r.read(0, 0, 1, v.pAll.length, v.pAll);   // p = r, whole: local hits in the read cache
        for (int step = 0; step < NpbCg.CG_STEPS; step++) {
            double[] d = {0};
            for (int k = 0; k < rows.length; k++) {
                NpbCg.multiply(rows[k], v.pAll, v.q[k]);
                for (int j = 0; j < v.q[k].length; j++) d[0] += v.pAll[first[k] + j] * v.q[k][j];
            }
            s = s.next(d, ReduceOp.SUM, ArrayUse.release(r));
            double alpha = rho[0] / d[0];
            double rho0 = rho[0];
            rho[0] = 0;
            for (int k = 0; k < rows.length; k++) {
                for (int j = 0; j < v.r[k].length; j++) {
                    v.z[k][j] += alpha * v.pAll[first[k] + j];
                    double rj = v.r[k][j] - alpha * v.q[k][j];
                    v.r[k][j] = rj;
                    rho[0] += rj * rj;
                }
            }
            if (step < NpbCg.CG_STEPS - 1) {
                for (int k = 0; k < rows.length; k++) r.write(0, first[k], 1, v.r[k].length, v.r[k]);
                s = s.next(rho, ReduceOp.SUM, ArrayUse.readCache(r));
                r.read(0, 0, 1, v.all.length, v.all);   // the new r, whole
                double beta = rho[0] / rho0;
                for (int j = 0; j < v.pAll.length; j++) v.pAll[j] = v.all[j] + beta * v.pAll[j];
            } else {
                // the last step's r is never read again: r's storage carries z for the final product, switched to a
                // read cache in the round of the last rho (which only the plain version's recurrence uses)
                for (int k = 0; k < rows.length; k++) r.write(0, first[k], 1, v.z[k].length, v.z[k]);
                s = s.next(rho, ReduceOp.SUM, ArrayUse.readCache(r));
            }
        }
        r.read(0, 0, 1, v.all.length, v.all);   // z, whole
        double sum = 0;
        for (int k = 0; k < rows.length; k++) {
            NpbCg.multiply(rows[k], v.all, v.r[k]);
            for (int j = 0; j < v.r[k].length; j++) {
                double d = v.x[k][j] - v.r[k][j];
                sum += d * d;
            }
        }
        v.residual = sum;
        return s;
    }

    /**
     * NPB's {@code conj_grad} on this worker's rows {@code [lo, hi)}: 25 CG steps for {@code A z = x}.
     * @return this worker's part of {@code ||x - A z||^2} (the caller reduces it with its norms)
     */
    private double conjGrad(DsaWorker worker, NpbCg.Matrix mine, int lo, int hi, int fromStep) {
        double rho = 0;
        if (fromStep == 0) {
            for (int j = lo; j < hi; j++) {
                double xj = x.read(j);
                q.write(j, 0);
                z.write(j, 0);
                r.write(j, xj);
                p.write(j, xj);
                rho += xj * xj;
            }
            rho = worker.allReduce(rho, ReduceOp.SUM); // also publishes every block of p before the first product
        } else {
            rho = rhoSaved.read(0); // resumed after step fromStep - 1's barrier: the vectors are in the shared arrays
        }
        for (int step = fromStep; step < NpbCg.CG_STEPS; step++) {
            multiply(mine, p, q, lo);
            double d = 0;
            for (int j = lo; j < hi; j++) d += p.read(j) * q.read(j);
            d = worker.allReduce(d, ReduceOp.SUM); // every product has read p before anyone rewrites it
            double alpha = rho / d;
            double rho0 = rho;
            rho = worker.allReduce(updateZR(z, r, p, q, lo, hi, alpha), ReduceOp.SUM);
            double beta = rho / rho0;
            for (int j = lo; j < hi; j++) p.write(j, r.read(j) + beta * p.read(j));
            if (step < NpbCg.CG_STEPS - 1) {
                if (worker.threadId() == 0) rhoSaved.write(0, rho); // in a checkpoint taken at the barrier
                worker.barrier(); // p is whole again before the next product reads it
            }
        }
        // ||x - A z||: z was last written before the last allReduce, so every block is visible
        multiply(mine, z, r, lo);
        double sum = 0;
        for (int j = lo; j < hi; j++) {
            double d = x.read(j) - r.read(j);
            sum += d * d;
        }
        return sum;
    }

    /**
     * @return the CG step a worker resumed at epoch {@code epoch} goes on with: {@code s + 1} after
     *         step {@code s}'s barrier, at {@code epoch % 76 == 3 s + 4}, {@code s} in [0, 23]
     * @throws IllegalStateException if {@code epoch} is not such a barrier's (resumes happen only there)
     */
    static int resumeStep(long epoch) {
        int within = (int) (epoch % ROUNDS_PER_ITERATION);
        int s = (within - 4) / 3;
        if (within < 4 || (within - 4) % 3 != 0 || s > NpbCg.CG_STEPS - 2) {
            throw new IllegalStateException("cg cannot resume at epoch " + epoch + ": round " + within + " of an outer iteration of "
                    + ROUNDS_PER_ITERATION + " is not a plain barrier (those are rounds 3 s + 4, s in [0, " + (NpbCg.CG_STEPS - 2) + "])");
        }
        return s + 1;
    }

    /**
     * A CG step's updates of a worker's rows {@code [lo, hi)}: {@code z += alpha p}, {@code r -= alpha q}.
     * Public for {@code dsa bench cg --phases}, which times the plain step phase by phase.
     *
     * @return this worker's part of the new {@code r.r}
     */
    public static double updateZR(SharedDoubleArray z, SharedDoubleArray r, SharedDoubleArray p, SharedDoubleArray q,
                                  int lo, int hi, double alpha) {
        double rho = 0;
        for (int j = lo; j < hi; j++) {
            z.write(j, z.read(j) + alpha * p.read(j));
            double rj = r.read(j) - alpha * q.read(j);
            r.write(j, rj);
            rho += rj * rj;
        }
        return rho;
    }

    /**
     * {@code out[lo + i] = (rows . v)[i]} for this worker's rows, {@code v} read through the shared array: the
     * loop of {@link NpbCg#multiply}, two rows at a time (the same sums bit for bit), so that the plain, scoped and
     * sequential versions run one algorithm. Written out twice on purpose: one loop over an element reader (a lambda
     * or interface) would put a call the JIT may or may not inline into the sequential baseline's inner loop, the
     * very choice that gave the scoped CG its levels (BENCHMARKS.md, "The scoped CG's levels").
     */
    private static void multiply(NpbCg.Matrix rows, SharedDoubleArray v, SharedDoubleArray out, int lo) {
        int[] start = rows.rowStart();
        int[] col = rows.col();
        double[] a = rows.a();
        int n = rows.n();
        int i = 0;
        for (; i + 1 < n; i += 2) {
            int k0 = start[i];
            int k1 = start[i + 1];
            int end1 = start[i + 2];
            int both = Math.min(k1 - k0, end1 - k1);
            double sum0 = 0;
            double sum1 = 0;
            for (int t = 0; t < both; t++) {
                sum0 += a[k0 + t] * v.read(col[k0 + t]);
                sum1 += a[k1 + t] * v.read(col[k1 + t]);
            }
            for (int k = k0 + both; k < k1; k++) sum0 += a[k] * v.read(col[k]);
            for (int k = k1 + both; k < end1; k++) sum1 += a[k] * v.read(col[k]);
            out.write(lo + i, sum0);
            out.write(lo + i + 1, sum1);
        }
        if (i < n) {
            double sum = 0;
            for (int k = start[i]; k < start[i + 1]; k++) sum += a[k] * v.read(col[k]);
            out.write(lo + i, sum);
        }
    }
}
