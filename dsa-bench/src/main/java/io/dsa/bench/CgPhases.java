package io.dsa.bench;

import io.dsa.ArrayLayout;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ReduceOp;
import io.dsa.SharedDoubleArray;
import io.dsa.examples.Cg;
import io.dsa.examples.NpbCg;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where a CG step's time goes ({@code dsa bench cg --phases}): the inner step of the {@code cg}
 * example's plain run (NPB CG's {@code conj_grad}: vectors in shared arrays, each worker's rows
 * as its block, element reads and writes, {@code allReduce} for the dot products, a barrier after
 * {@code p} is rewritten), with {@link System#nanoTime()} between its phases, on every worker.
 *
 * <p>Only for a VM whose nodes all run in this JVM ({@code DsaCluster.local}): the workers leave
 * their timings in {@link #RESULTS}, and one clock orders every node's stamps, so {@link #summary}
 * can say how long after the last worker's arrival at each round every node got its release. The
 * vectors start from {@code x = 1} and are not verified (the {@code cg} rows of the same command are).
 */
public final class CgPhases implements DsaProgram {
    /** The phases of a step, in order. */
    static final List<String> PHASES = List.of("first read of each other block of p", "rest of q = A p and p.q", "allReduce(p.q)",
            "z, r updates and r.r", "allReduce(r.r)", "first write of p", "rest of p", "barrier");
    /** The rounds of a step, whose arrival and return every worker stamps. */
    static final List<String> ROUNDS = List.of("allReduce(p.q)", "allReduce(r.r)", "barrier");
    /** The spread of a whole step's time over the summarised steps, after the rounds' release latencies. */
    static final List<String> STEP_SPREAD = List.of("step mean", "step p90", "step max");
    /** By global worker id: {@code [phase][step]} durations, then {@code [PHASES.size() + 2 round][step]} arrival, return. */
    static final Map<Integer, long[][]> RESULTS = new ConcurrentHashMap<>();

    private NpbCg.Size size;
    private int steps;
    private NpbCg.Matrix matrix;
    private SharedDoubleArray z;
    private SharedDoubleArray p;
    private SharedDoubleArray q;
    private SharedDoubleArray r;

    /** Creates the program; {@link #setup} reads the arguments {@code [class [steps]]}. */
    public CgPhases() {}

    @Override
    public void setup(DsaNode node) {
        List<String> args = node.args();
        size = NpbCg.Size.parse(args.isEmpty() ? "S" : args.get(0));
        steps = args.size() > 1 ? Integer.parseInt(args.get(1)) : 400;
        if (steps < 1) throw new IllegalArgumentException("steps " + steps + ", valid range [1, " + Integer.MAX_VALUE + "]");
        matrix = NpbCg.makea(size);
        int part = (size.na + node.network().getGlobalThreadCount() - 1) / node.network().getGlobalThreadCount();
        z = node.createSharedDoubleArray("cgphases.z", size.na, part);
        p = node.createSharedDoubleArray("cgphases.p", size.na, part);
        q = node.createSharedDoubleArray("cgphases.q", size.na, part);
        r = node.createSharedDoubleArray("cgphases.r", size.na, part);
    }

    @Override
    public void work(DsaWorker w) {
        ArrayLayout layout = p.layout();
        int lo = layout.startingIndexAtThread(w.threadId());
        int hi = layout.maxIndexAtThread(w.threadId());
        int workers = w.node().network().getGlobalThreadCount();
        List<Integer> others = new ArrayList<>();
        for (int t = 0; t < workers; t++) {
            if (t != w.threadId() && layout.startingIndexAtThread(t) < layout.maxIndexAtThread(t)) others.add(layout.startingIndexAtThread(t));
        }
        NpbCg.Matrix mine = matrix.rows(lo, hi);
        long[][] t = new long[PHASES.size() + 2 * ROUNDS.size()][steps];
        for (int j = lo; j < hi; j++) {
            r.write(j, 1);
            p.write(j, 1);
            z.write(j, 0);
        }
        double rho = w.allReduce((double) (hi - lo), ReduceOp.SUM);
        int[] start = mine.rowStart();
        int[] col = mine.col();
        double[] a = mine.a();
        for (int s = 0; s < steps; s++) {
            long t0 = System.nanoTime();
            double touched = 0;
            for (int other : others) touched += p.read(other);
            long t1 = System.nanoTime();
            for (int i = 0; i < mine.n(); i++) {
                double sum = 0;
                for (int k = start[i]; k < start[i + 1]; k++) sum += a[k] * p.read(col[k]);
                q.write(lo + i, sum);
            }
            double d = touched * 0;
            for (int j = lo; j < hi; j++) d += p.read(j) * q.read(j);
            long t2 = System.nanoTime();
            d = w.allReduce(d, ReduceOp.SUM);
            long t3 = System.nanoTime();
            double alpha = rho / d;
            double rho0 = rho;
            rho = Cg.updateZR(z, r, p, q, lo, hi, alpha);
            long t4 = System.nanoTime();
            rho = w.allReduce(rho, ReduceOp.SUM);
            long t5 = System.nanoTime();
            double beta = rho / rho0;
            if (lo < hi) p.write(lo, r.read(lo) + beta * p.read(lo));
            long t6 = System.nanoTime();
            for (int j = lo + 1; j < hi; j++) p.write(j, r.read(j) + beta * p.read(j));
            long t7 = System.nanoTime();
            w.barrier();
            long t8 = System.nanoTime();
            long[] stamps = {t0, t1, t2, t3, t4, t5, t6, t7, t8};
            for (int x = 0; x < PHASES.size(); x++) t[x][s] = stamps[x + 1] - stamps[x];
            long[] rounds = {t2, t3, t4, t5, t7, t8};   // arrival and return of each round
            for (int x = 0; x < rounds.length; x++) t[PHASES.size() + x][s] = rounds[x];
        }
        RESULTS.put(w.threadId(), t);
    }

    /**
     * The last run's summary: per node (its first worker), the median microseconds of each phase
     * over the later three quarters of the steps, per round how long after the last worker's
     * arrival that worker returned, and the mean, 90th percentile and longest of its whole steps
     * over the same steps (a median per phase hides the steps that stall; the run's time is their sum).
     *
     * @param nodes the VM's nodes
     * @param threads workers per node
     * @return one row per node: the phases' medians, their sum, the rounds' release latencies, then the whole step's mean,
     *         90th percentile and maximum ({@link #STEP_SPREAD}; all in microseconds)
     * @throws IllegalStateException if a worker left no timings (not every node ran in this JVM)
     */
    static double[][] summary(int nodes, int threads) {
        int workers = nodes * threads;
        long[][][] all = new long[workers][][];
        for (int wk = 0; wk < workers; wk++) {
            all[wk] = RESULTS.get(wk);
            if (all[wk] == null) throw new IllegalStateException("worker " + wk + " of " + workers + " left no CG phase timings");
        }
        int steps = all[0][0].length;
        int from = steps / 4;
        double[][] rows = new double[nodes][PHASES.size() + 1 + ROUNDS.size() + STEP_SPREAD.size()];
        for (int n = 0; n < nodes; n++) {
            long[][] t = all[n * threads];
            double total = 0;
            for (int x = 0; x < PHASES.size(); x++) {
                double m = median(Arrays.copyOfRange(t[x], from, steps));
                rows[n][x] = m;
                total += m;
            }
            rows[n][PHASES.size()] = total;
            for (int rd = 0; rd < ROUNDS.size(); rd++) {
                long[] latency = new long[steps - from];
                for (int s = from; s < steps; s++) {
                    long last = Long.MIN_VALUE;
                    for (long[][] other : all) last = Math.max(last, other[PHASES.size() + 2 * rd][s]);
                    latency[s - from] = t[PHASES.size() + 2 * rd + 1][s] - last;
                }
                rows[n][PHASES.size() + 1 + rd] = median(latency);
            }
            long[] whole = new long[steps - from];
            for (int s = from; s < steps; s++) {
                for (int x = 0; x < PHASES.size(); x++) whole[s - from] += t[x][s];
            }
            Arrays.sort(whole);
            int at = PHASES.size() + 1 + ROUNDS.size();
            rows[n][at] = Arrays.stream(whole).average().orElse(0) / 1e3;
            rows[n][at + 1] = whole[Math.max(0, (int) Math.ceil(0.9 * whole.length) - 1)] / 1e3;   // nearest rank
            rows[n][at + 2] = whole[whole.length - 1] / 1e3;
        }
        return rows;
    }

    /** @return the summary as Markdown table rows, one per node ({@link #summary}) */
    static String table(double[][] rows, String shape, String wait) {
        StringBuilder b = new StringBuilder();
        for (int n = 0; n < rows.length; n++) {
            b.append(String.format(Locale.ROOT, "| %s %s | %d |", shape, wait, n));
            for (double v : rows[n]) b.append(String.format(Locale.ROOT, " %.0f |", v));
            b.append('\n');
        }
        return b.toString();
    }

    private static double median(long[] v) {
        long[] c = v.clone();
        Arrays.sort(c);
        return c.length % 2 == 1 ? c[c.length / 2] / 1e3 : (c[c.length / 2 - 1] + c[c.length / 2]) / 2e3;
    }
}
