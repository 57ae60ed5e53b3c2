package io.dsa.bench;

import io.dsa.DsaProgram;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.RunReport;
import io.dsa.agent.transport.TransportSecurity;
import io.dsa.agent.WaitStrategy;
import io.dsa.examples.Fft2d;
import io.dsa.examples.Lu;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dsa bench lu} and {@code dsa bench fft} (paper Figs. 12-14): the DSA example's compute
 * time vs partition size and VM shape (nodes x threads, one JVM per node), its speedup over the
 * sequential Java version ({@link Sequential}, in this JVM), and the MPI + C version of the same
 * algorithm ({@code dsa-bench/src/main/c/lu_mpi.c}, {@code fft_mpi.c}; skipped with a message if
 * {@code mpicc}/{@code mpirun} are missing). Times are medians over {@code --reps} runs.
 *
 * <p>Each DSA run above starts its nodes' JVMs afresh (node 0 in this JVM), so it measures the JIT's
 * warm-up as much as DSA (its crypto, its codec and the example's kernels start interpreted), while
 * the sequential run is timed after as many warm-up runs as {@code --warm-runs}. So the {@code dsa-warm} rows run each shape in
 * this JVM ({@code DsaCluster.local}: every node in one JVM, over the same loopback connections and
 * protection) {@code --warm-runs} times and take the median of the later half: DSA and
 * sequential Java both warm (BENCHMARKS.md, "Warm runs"). The warm runs of every shape, strategy and
 * partition are interleaved, a round running each once, so that none is timed warmer for running
 * later in this JVM ({@link BenchCommand.WarmRuns#medians}).
 */
abstract class LuFftCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    BenchCommand.Common common = new BenchCommand.Common();

    @Option(names = "--n", defaultValue = "1024", description = "Matrix side (default: ${DEFAULT-VALUE}).")
    int n;

    @Option(names = "--blocks", split = ",", paramLabel = "B,..", defaultValue = "32,64,128",
            description = "Partition sides (default: ${DEFAULT-VALUE}).")
    List<Integer> blocks;

    @Option(names = "--shapes", split = ",", paramLabel = "NxT,..", defaultValue = "2x1,1x4,2x2,4x1",
            description = "VM shapes nodes x threads (default: ${DEFAULT-VALUE}).")
    List<String> shapes;

    @Mixin
    BenchCommand.WarmRuns warm = new BenchCommand.WarmRuns();

    // not BenchCommand.Waits: its default is three strategies, and an LU or FFT run per strategy takes minutes
    @Option(names = "--wait", split = ",", paramLabel = "STRATEGY,..", defaultValue = "ADAPTIVE",
            description = "Wait strategies of the DSA VMs (DsaConfig.waitStrategy: PARK, SPIN, ADAPTIVE, POLL), each in VMs of its"
                    + " own in this run (default: ${DEFAULT-VALUE}, a VM's default).")
    List<WaitStrategy> waits;

    @Mixin
    BenchCommand.TuningOptions tuning = new BenchCommand.TuningOptions();

    @Mixin
    MpiPeer.Options peer = new MpiPeer.Options();

    /** One measurement; kind is dsa, dsa-warm, seq or mpi; threads is 1 for seq and mpi; the DSA VM's wait strategy, null for seq and mpi. */
    record Row(String kind, int nodes, int threads, int block, double seconds, double speedup, double load, WaitStrategy strategy) {
        /** @return the wait strategy's name, or "" for seq and mpi */
        String waitName() { return strategy == null ? "" : strategy.name(); }
    }

    /** The CSV's columns: wait is the DSA VM's wait strategy, empty for seq and mpi. */
    static final String CSV_HEADER = "kind,n,nodes,threads,partition,seconds,speedup,load,wait";

    abstract String name();

    abstract DsaProgram program();

    /** The report-line marker before the DSA compute time in seconds. */
    abstract String timeMarker();

    /** @return one sequential run's seconds, verified */
    abstract double sequential(int block);

    /** @return the MPI command's arguments after the executable */
    abstract List<String> mpiArgs(int block);

    /** Whether the MPI version depends on the block size (LU) or not (FFT). */
    abstract boolean mpiUsesBlock();

    abstract String title();

    abstract List<String> targetLines(List<Row> rows);

    @Override
    public Integer call() throws Exception {
        if (common.smoke) { n = 64; blocks = List.of(16); shapes = List.of("2x1"); peer.reps = 1; peer.mpiNp = List.of(2); warm.runs = 1; }
        List<int[]> vmShapes = BenchCommand.vmShapes(spec, shapes);
        if (peer.reps < 1) throw new CommandLine.ParameterException(spec.commandLine(), "--reps: " + peer.reps + " not >= 1");
        warm.check(spec);
        BenchCommand.Waits.distinct(spec, waits);
        List<Row> rows = new ArrayList<>();
        Map<Integer, Double> seq = new LinkedHashMap<>();
        for (int b : blocks) {
            seq.put(b, warm.sequentialMedian(() -> sequential(b), peer.reps));
            rows.add(new Row("seq", 1, 1, b, seq.get(b), 1.0, BarrierBench.loadAverage(), null));
            System.out.printf(Locale.ROOT, "%s n=%d seq block %d: %.3f s%n", name(), n, b, seq.get(b));
        }
        for (int[] shape : vmShapes) {
            for (WaitStrategy wait : waits) {
                for (int b : blocks) {
                    double[] t = new double[peer.reps];
                    for (int r = 0; r < peer.reps; r++) {
                        RunReport report = ProcessVm.run(program(), shape[0], shape[1], List.of(Integer.toString(n), Integer.toString(b)),
                                common.out, TransportSecurity.ENCRYPT, wait, DsaConfig.DEFAULT_PREFETCH_WINDOW, tuning.tuning());
                        t[r] = seconds(report);
                    }
                    double s = BenchOut.median(t);
                    rows.add(new Row("dsa", shape[0], shape[1], b, s, seq.get(b) / s, BarrierBench.loadAverage(), wait));
                    System.out.printf(Locale.ROOT, "%s n=%d dsa %dx%d %s block %d: %.3f s (speedup %.2f)%n", name(), n, shape[0], shape[1],
                            wait, b, s, seq.get(b) / s);
                }
            }
        }
        if (warm.runs > 0) rows.addAll(warm(vmShapes, seq));
        if (!peer.noMpi) rows.addAll(mpi(seq));
        write(rows);
        return 0;
    }

    // Every shape, strategy and partition run --warm-runs times with every node in this JVM, interleaved (a round runs each
    // once: BenchCommand.WarmRuns#medians); each row is the median of its later half.
    private List<Row> warm(List<int[]> vmShapes, Map<Integer, Double> seq) throws IOException {
        List<BenchCommand.WarmRuns.Case> cases = new ArrayList<>();
        record WarmAt(int[] shape, WaitStrategy strategy, int block) {}
        List<WarmAt> at = new ArrayList<>();
        for (int[] shape : vmShapes) {
            for (WaitStrategy wait : waits) {
                for (int b : blocks) {
                    DsaConfig config = tuning.tuning().apply(DsaConfig.builder()).nodes(shape[0]).threadsPerNode(shape[1])
                            .waitStrategy(wait).build();
                    cases.add(new BenchCommand.WarmRuns.Case(config, this::program, List.of(Integer.toString(n), Integer.toString(b))));
                    at.add(new WarmAt(shape, wait, b));
                }
            }
        }
        double[] medians = warm.medians(cases, this::seconds);
        List<Row> rows = new ArrayList<>();
        for (int c = 0; c < cases.size(); c++) {
            WarmAt k = at.get(c);
            double s = medians[c];
            rows.add(new Row("dsa-warm", k.shape()[0], k.shape()[1], k.block(), s, seq.get(k.block()) / s, BarrierBench.loadAverage(),
                    k.strategy()));
            System.out.printf(Locale.ROOT, "%s n=%d dsa-warm %dx%d %s block %d: %.3f s (speedup %.2f)%n", name(), n, k.shape()[0],
                    k.shape()[1], k.strategy(), k.block(), s, seq.get(k.block()) / s);
        }
        return rows;
    }

    private double seconds(RunReport report) throws IOException {
        for (String line : report.lines()) {
            int at = line.indexOf(timeMarker());
            if (at < 0) continue;
            String rest = line.substring(at + timeMarker().length()).trim();
            return Double.parseDouble(rest.substring(0, rest.indexOf(' ')));
        }
        throw new IOException("no '" + timeMarker() + "' in the report " + report.lines());
    }

    private List<Row> mpi(Map<Integer, Double> seq) throws Exception {
        List<Row> rows = new ArrayList<>();
        Path exe = MpiPeer.compile(peer.cSrc.resolve(name() + "_mpi.c"), common.out);
        if (exe == null) return rows;
        for (int np : peer.mpiNp) {
            for (int b : mpiUsesBlock() ? blocks : List.of(blocks.get(0))) {
                double s = MpiPeer.time(exe, np, mpiArgs(b), name());
                int rowBlock = mpiUsesBlock() ? b : 0;
                double base = seq.get(mpiUsesBlock() ? b : blocks.get(0));
                rows.add(new Row("mpi", np, 1, rowBlock, s, base / s, BarrierBench.loadAverage(), null));
                System.out.printf(Locale.ROOT, "%s n=%d mpi np=%d block %d: %.3f s%n", name(), n, np, rowBlock, s);
            }
        }
        return rows;
    }

    static Row find(List<Row> rows, String kind, int nodes, int threads, int block, WaitStrategy wait) {
        return rows.stream().filter(r -> r.kind().equals(kind) && r.nodes() == nodes && r.threads() == threads && r.block() == block
                && r.strategy() == wait).findFirst().orElse(null);
    }

    /**
     * @return one "DSA 2x1 vs MPI np=2" ratio line per partition size where both were measured, then best vs best; the same for
     *         the warm runs
     */
    List<String> target(List<Row> rows, double limit, String label) {
        List<String> lines = new ArrayList<>();
        for (WaitStrategy wait : waits) {
            // the wait is named where the run compares several
            String how = waits.size() > 1 ? " " + wait : "";
            lines.addAll(target(rows, limit, label, "dsa", "DSA" + how, wait));
            if (rows.stream().anyMatch(r -> r.kind().equals("dsa-warm"))) lines.addAll(target(rows, limit, label, "dsa-warm", "DSA warm" + how, wait));
        }
        return lines;
    }

    private List<String> target(List<Row> rows, double limit, String label, String kind, String what, WaitStrategy wait) {
        List<String> lines = new ArrayList<>();
        Row bestDsa = null, bestMpi = null;
        for (int b : blocks) {
            Row dsa = find(rows, kind, 2, 1, b, wait), mpi = find(rows, "mpi", 2, 1, mpiUsesBlock() ? b : 0, null);
            if (dsa != null && (bestDsa == null || dsa.seconds() < bestDsa.seconds())) bestDsa = dsa;
            if (mpi != null && (bestMpi == null || mpi.seconds() < bestMpi.seconds())) bestMpi = mpi;
            if (dsa != null && mpi != null) {
                lines.add(BenchOut.ratio(label + " n=" + n + ", " + what + " 2 nodes x 1 thread, partition " + b + " vs MPI + C np=2"
                        + (mpiUsesBlock() ? ", same block" : ""), dsa.seconds() * 1e3, mpi.seconds() * 1e3, limit, "ms"));
            }
        }
        if (bestDsa != null && bestMpi != null && mpiUsesBlock()) {
            lines.add(BenchOut.ratio(label + " n=" + n + ", best " + what + " 2x1 (partition " + bestDsa.block() + ") vs best MPI + C np=2 (block "
                    + bestMpi.block() + ")", bestDsa.seconds() * 1e3, bestMpi.seconds() * 1e3, limit, "ms"));
        }
        if (lines.isEmpty()) lines.add(label + " (" + what + ") vs MPI + C: not measured in this run (needs shape 2x1 and MPI np=2)");
        return lines;
    }

    private void write(List<Row> rows) throws IOException {
        List<String> csv = new ArrayList<>();
        StringBuilder table = new StringBuilder("| kind | wait | nodes | threads | partition | seconds | speedup vs sequential Java | load |\n"
                + "|---|---|---:|---:|---:|---:|---:|---:|\n");
        for (Row r : rows) {
            csv.add(String.format(Locale.ROOT, "%s,%d,%d,%d,%d,%.7f,%.3f,%.2f,%s", r.kind(), n, r.nodes(), r.threads(), r.block(), r.seconds(),
                    r.speedup(), r.load(), r.waitName()));
            table.append(String.format(Locale.ROOT, "| %s | %s | %d | %d | %s | %.4f | %.2f | %.1f |%n", r.kind(),
                    r.strategy() == null ? "–" : r.waitName(), r.nodes(), r.threads(), r.block() == 0 ? "–" : Integer.toString(r.block()),
                    r.seconds(), r.speedup(), r.load()));
        }
        BenchOut.csv(common.out, name(), CSV_HEADER, csv);
        Map<String, double[][]> series = new LinkedHashMap<>();
        for (String shape : shapes) {
            String[] p = shape.toLowerCase(Locale.ROOT).split("x");
            int nodes = Integer.parseInt(p[0]), threads = Integer.parseInt(p[1]);
            for (WaitStrategy wait : waits) {
                String how = waits.size() > 1 ? " " + wait : "";
                List<Row> s = rows.stream().filter(r -> r.kind().equals("dsa") && r.nodes() == nodes && r.threads() == threads
                        && r.strategy() == wait).toList();
                series.put("DSA " + nodes + "x" + threads + how, new double[][] {s.stream().mapToDouble(Row::block).toArray(),
                        s.stream().mapToDouble(Row::seconds).toArray()});
                List<Row> w = rows.stream().filter(r -> r.kind().equals("dsa-warm") && r.nodes() == nodes && r.threads() == threads
                        && r.strategy() == wait).toList();
                if (!w.isEmpty()) {
                    series.put("DSA " + nodes + "x" + threads + how + " warm", new double[][] {w.stream().mapToDouble(Row::block).toArray(),
                            w.stream().mapToDouble(Row::seconds).toArray()});
                }
            }
        }
        List<Row> seqRows = rows.stream().filter(r -> r.kind().equals("seq")).toList();
        series.put("sequential Java", new double[][] {seqRows.stream().mapToDouble(Row::block).toArray(), seqRows.stream().mapToDouble(Row::seconds).toArray()});
        for (int np : peer.mpiNp) {
            List<Row> m = rows.stream().filter(r -> r.kind().equals("mpi") && r.nodes() == np).toList();
            if (m.isEmpty()) continue;
            double[] xs = mpiUsesBlock() ? m.stream().mapToDouble(Row::block).toArray() : blocks.stream().mapToDouble(Integer::doubleValue).toArray();
            double[] ys = mpiUsesBlock() ? m.stream().mapToDouble(Row::seconds).toArray() : blocks.stream().mapToDouble(b -> m.get(0).seconds()).toArray();
            series.put("MPI + C np=" + np, new double[][] {xs, ys});
        }
        BenchOut.plot(common.out, name(), title() + ", n=" + n, "partition side", "seconds (median)", true, series);
        String notes = String.format(Locale.ROOT, "- n=%d; DSA: one JVM per node, node 0 in the bench JVM, the example's own compute timer "
                + "(verification excluded); sequential Java in the bench JVM after %d warm-up run(s); dsa-warm: every node in the "
                + "bench JVM (DsaCluster.local), %d runs in a row, the median of the later half; MPI + C: OpenMPI over loopback TCP; "
                + "medians of %d run(s); DSA VMs wait by %s.%s", n, warm.sequentialWarmUps(), warm.runs, peer.reps, waits,
                tuning.tuning().notes());
        BenchOut.markdown(common.out, name(), title() + " (paper Figs. 12-14)", BenchCommand.typed(spec), notes, table.toString(),
                targetLines(rows));
    }

    /** {@code dsa bench lu}. */
    @Command(name = "lu", mixinStandardHelpOptions = true,
            description = "LU time vs partition size and VM shape, speedup over sequential Java, beside MPI + C (Figs. 12-14).")
    static final class LuBench extends LuFftCommand {
        @Override String name() { return "lu"; }
        @Override DsaProgram program() { return new Lu(); }
        @Override String timeMarker() { return "factorisation "; }
        @Override boolean mpiUsesBlock() { return true; }
        @Override String title() { return "LU factorisation"; }
        @Override List<String> mpiArgs(int block) { return List.of(Integer.toString(n), Integer.toString(block), Integer.toString(peer.reps)); }
        /** Issue 12's target: LU 1024 on 2x1, best partition, within 1.2x of MPI + C np=2 (it was 1.5x before). */
        @Override List<String> targetLines(List<Row> rows) { return target(rows, 1.2, "LU"); }

        @Override
        double sequential(int block) { return sequentialLu(n, block); }

        /** @return the seconds of one sequential blocked LU of the {@code n x n} test matrix with {@code block x block} blocks, verified */
        static double sequentialLu(int n, int block) {
            double[] a = Sequential.luMatrix(n);
            long t0 = System.nanoTime();
            Sequential.lu(a, n, block);
            double s = (System.nanoTime() - t0) / 1e9;
            double residual = Sequential.luResidual(a, n, 0, n / 2, n - 1);
            if (!(residual < 1e-9)) throw new IllegalStateException("sequential LU residual " + residual + " >= 1e-9");
            return s;
        }
    }

    /** {@code dsa bench fft}. */
    @Command(name = "fft", mixinStandardHelpOptions = true,
            description = "2-D FFT time vs partition size and VM shape, speedup over sequential Java, beside MPI + C (Figs. 12-14).")
    static final class FftBench extends LuFftCommand {
        @Override String name() { return "fft"; }
        @Override DsaProgram program() { return new Fft2d(); }
        @Override String timeMarker() { return "forward "; }
        @Override boolean mpiUsesBlock() { return false; }
        @Override String title() { return "2-D FFT (forward transform)"; }
        @Override List<String> mpiArgs(int block) { return List.of(Integer.toString(n), Integer.toString(peer.reps)); }
        @Override List<String> targetLines(List<Row> rows) { return target(rows, 2.0, "FFT"); }

        @Override
        double sequential(int block) { return sequentialFft(n); }

        /** @return the seconds of one sequential forward 2-D FFT of an {@code n x n} array, verified by its inverse */
        static double sequentialFft(int n) {
            double[] re = new double[n * n], im = new double[n * n];
            for (int i = 0; i < n * n; i++) { re[i] = (i % 1000) / 500.0 - 1; im[i] = (i % 777) / 388.5 - 1; }
            double[] re0 = re.clone(), im0 = im.clone();
            long t0 = System.nanoTime();
            Sequential.fft2d(re, im, n, false);
            double s = (System.nanoTime() - t0) / 1e9;
            Sequential.fft2d(re, im, n, true);
            double err = 0;
            for (int i = 0; i < n * n; i++) err = Math.max(err, Math.abs(re[i] - re0[i]) + Math.abs(im[i] - im0[i]));
            if (!(err < 1e-9)) throw new IllegalStateException("sequential FFT inverse differs from the input by " + err);
            return s;
        }
    }
}
