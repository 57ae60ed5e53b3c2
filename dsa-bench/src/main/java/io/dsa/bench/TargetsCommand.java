package io.dsa.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dsa bench targets}: every benchmark target of issues 12 (fast data path) and 13 (scoped
 * behaviour), measured by the experiment that owns it with the settings BENCHMARKS.md quotes,
 * {@code --runs} times one after another. Each run writes the experiments' own outputs to
 * {@code OUT/run-K/GROUP}; each target's ratio is taken from one run's CSV (DSA and its peer timed in
 * the same run), and the verdict from the median of the runs: {@code targets.csv} (one row per target
 * and run), {@code targets.md} and {@code targets.png}. Targets whose peer did not run (no
 * {@code mpicc}) are reported as not measured, never as met.
 */
@Command(name = "targets", mixinStandardHelpOptions = true,
        description = {"Issues 12 and 13's targets: runs the experiments that measure them --runs times, takes each target's"
                + " ratio from one run's CSV (DSA and its peer in the same run) and the verdict from the median of the runs;"
                + " writes targets.csv, targets.md and targets.png. Run it from the repository root (the MPI + C peers'"
                + " sources) on an otherwise idle machine; a run of all groups took about 6 minutes on a 2-core machine."})
final class TargetsCommand implements Callable<Integer> {
    /** Most runs. */
    static final int MAX_RUNS = 20;

    @Spec
    CommandSpec spec;

    @Mixin
    BenchCommand.Common common = new BenchCommand.Common();

    @Option(names = "--runs", defaultValue = "3", description = "Runs of every experiment, one after another, 1 to " + MAX_RUNS
            + " (default: ${DEFAULT-VALUE}; the issues ask for medians of at least 3).")
    int runs;

    @Option(names = "--only", split = ",", paramLabel = "GROUP,..",
            description = "Only these experiments: ${COMPLETION-CANDIDATES} (default: all).")
    List<Group> only;

    @Option(names = "--c-src", paramLabel = "DIR", defaultValue = "dsa-bench/src/main/c",
            description = "Sources of the MPI + C peers (default: ${DEFAULT-VALUE}).")
    Path cSrc;

    /** The experiments, in the order they run, each measuring some of the targets. */
    enum Group { barrier, stream, hits, fft, lu, cg, scopes }

    /**
     * A target: {@code ratio <= limit} ({@code < limit} where {@code strict}), or {@code >= limit}
     * where {@code atLeast}.
     *
     * @param name what the issue says, short
     * @param issue the issue's number
     * @param group the experiment that measures it
     * @param limit the bound
     * @param atLeast whether the ratio must reach the bound rather than stay under it
     * @param strict whether the ratio must be strictly under the bound ("faster than")
     * @param measure reads the ratio from one run's output directory of {@code group}
     */
    record Target(String name, int issue, Group group, double limit, boolean atLeast, boolean strict, Measurer measure) {
        /** @return whether {@code ratio} meets this target */
        boolean met(double ratio) { return atLeast ? ratio >= limit : strict ? ratio < limit : ratio <= limit; }

        /** @return the bound as the table shows it: "<= 2x", "< 1x", ">= 0.5" */
        String bound() { return (atLeast ? ">= " : strict ? "< " : "<= ") + fmt(limit); }
    }

    /** One run's figure of a target. @param ratio NaN when not measured @param detail the figures it comes from, or why not measured */
    record Measure(double ratio, String detail) {
        static Measure none(String why) { return new Measure(Double.NaN, why); }
    }

    /** Reads a target's figure from a run's output directory of its experiment. */
    @FunctionalInterface
    interface Measurer {
        /** @throws IOException if the experiment's CSV cannot be read */
        Measure of(Path dir) throws IOException;
    }

    /** Every target, in the issues' order within each experiment. */
    static final List<Target> TARGETS = List.of(
            new Target("global barrier 4x2 (ADAPTIVE) / MPI_Barrier np=4", 12, Group.barrier, 4, false, false,
                    d -> TargetFigures.barrier(d, "barrier")),
            new Target("one-value allReduce 4x2 (ADAPTIVE) / MPI_Barrier np=4", 12, Group.barrier, 4, false, false,
                    d -> TargetFigures.barrier(d, "allreduce")),
            new Target("streaming 128 KiB: best DSA way / MPI ping-pong (TCP)", 12, Group.stream, 0.5, true, false,
                    d -> TargetFigures.streamShare(d, 131072)),
            new Target("streaming 1 MiB: best DSA way / MPI ping-pong (TCP)", 12, Group.stream, 0.5, true, false,
                    d -> TargetFigures.streamShare(d, 1048576)),
            new Target("8 KiB read miss, PARK, MAC, warm / thin Netty round trip", 12, Group.stream, 1.3, false, false,
                    d -> TargetFigures.missTime(d, "PARK", "netty_gbps", "thin Netty")),
            new Target("8 KiB read miss, SPIN, MAC, warm / MPI ping-pong (TCP)", 12, Group.stream, 2, false, false,
                    d -> TargetFigures.missTime(d, "SPIN", "mpi_tcp_gbps", "MPI")),
            new Target("local read hit / double[] read", 12, Group.hits, 2, false, false, d -> TargetFigures.hit(d, "Read")),
            new Target("local write hit / double[] write", 12, Group.hits, 3, false, false, d -> TargetFigures.hit(d, "Write")),
            new Target("hit allocation, B/op (most of read and write)", 12, Group.hits, 0.01, false, false, TargetFigures::hitAllocation),
            new Target("FFT 1024 2x1, best partition, warm / MPI + C np=2", 12, Group.fft, 2, false, false,
                    d -> TargetFigures.bestWarm(d, "fft.csv")),
            new Target("LU 1024 2x1, best partition, warm / MPI + C np=2", 12, Group.lu, 1.2, false, false,
                    d -> TargetFigures.bestWarm(d, "lu.csv")),
            new Target("NPB CG S 2x1 warm / sequential Java", 12, Group.cg, 2, false, false, d -> TargetFigures.cg(d, 2, 1)),
            new Target("NPB CG S 4x2 warm / sequential Java", 12, Group.cg, 4, false, false, d -> TargetFigures.cg(d, 4, 2)),
            new Target("NPB CG S scoped 2x1, one job / sequential Java", 13, Group.scopes, 1, false, true,
                    d -> TargetFigures.scoped(d, "cg", "seq")),
            new Target("NPB CG S scoped 2x1, one job / MPI + C np=2", 13, Group.scopes, 1.3, false, false,
                    d -> TargetFigures.scoped(d, "cg", "mpi")),
            new Target("MM2 512 scoped 2x1, one job / sequential Java", 13, Group.scopes, 1, false, true,
                    d -> TargetFigures.scoped(d, "mm2", "seq")),
            new Target("MM2 512 scoped 2x1, one job / MPI + C np=2", 13, Group.scopes, 1.3, false, false,
                    d -> TargetFigures.scoped(d, "mm2", "mpi")),
            new Target("PSRS 2^20 scoped 2x1, one job / sequential Java", 13, Group.scopes, 1, false, true,
                    d -> TargetFigures.scoped(d, "psrs", "seq")),
            new Target("FFT 1024 scoped 2x1, one job / MPI + C np=2", 13, Group.scopes, 1.5, false, false,
                    d -> TargetFigures.scoped(d, "fft", "mpi")),
            new Target("owner-computes Jacobi sweep / the same loop on plain arrays (JMH)", 13, Group.scopes, 1.1, false, false,
                    d -> TargetFigures.kernel(d, "jacobiSweep")),
            new Target("owner-computes LU update / the same loop on plain arrays (JMH)", 13, Group.scopes, 1.1, false, false,
                    d -> TargetFigures.kernel(d, "luUpdate")));

    /** Creates the command. */
    TargetsCommand() {}

    @Override
    public Integer call() throws Exception {
        if (runs < 1 || runs > MAX_RUNS) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--runs " + runs + " out of range [1, " + MAX_RUNS + "]");
        }
        List<Group> groups = only == null || only.isEmpty() ? List.of(Group.values()) : only.stream().distinct().sorted().toList();
        Files.createDirectories(common.out);
        Map<Target, List<Measure>> measures = new LinkedHashMap<>();
        for (Target t : TARGETS) if (groups.contains(t.group())) measures.put(t, new ArrayList<>());
        long start = System.nanoTime();
        for (int run = 1; run <= runs; run++) {
            for (Group g : groups) {
                Path dir = common.out.resolve("run-" + run).resolve(g.name());
                long t0 = System.nanoTime();
                System.out.printf(Locale.ROOT, "targets: run %d of %d, %s (%.0f s so far)%n", run, runs, g, (t0 - start) / 1e9);
                String failed = null;   // an experiment that fails leaves its targets unmeasured in this run; the others go on
                try {
                    Files.createDirectories(dir);
                    int rc = runGroup(g, dir);
                    if (rc != 0) failed = "the experiment exited with " + rc;
                } catch (Exception e) {
                    failed = "the experiment failed: " + e;
                    System.out.printf(Locale.ROOT, "targets: run %d, %s failed: %s%n", run, g, e);
                }
                for (Map.Entry<Target, List<Measure>> e : measures.entrySet()) {
                    if (e.getKey().group() != g) continue;
                    Measure m = failed != null ? Measure.none(failed) : measureOrExplain(e.getKey(), dir);
                    e.getValue().add(m);
                    System.out.printf(Locale.ROOT, "targets: run %d, %s: %s%n", run, e.getKey().name(),
                            Double.isNaN(m.ratio()) ? "not measured (" + m.detail() + ")" : fmt(m.ratio()) + " (" + m.detail() + ")");
                }
                System.out.printf(Locale.ROOT, "targets: run %d, %s took %.0f s%n", run, g, (System.nanoTime() - t0) / 1e9);
            }
        }
        write(measures);
        System.out.printf(Locale.ROOT, "targets: %d run(s) in %.0f s; see %s%n", runs, (System.nanoTime() - start) / 1e9,
                common.out.resolve("targets.md"));
        return 0;
    }

    private static Measure measureOrExplain(Target t, Path dir) {
        try {
            return t.measure().of(dir);
        } catch (IOException | RuntimeException e) {
            return Measure.none("unreadable output: " + e.getMessage());
        }
    }

    // Runs one experiment into dir with the settings BENCHMARKS.md quotes for its targets (tiny ones under --smoke).
    private int runGroup(Group g, Path dir) throws Exception {
        List<String> smoke = common.smoke ? List.of("--smoke") : List.of();
        String out = dir.toString();
        String c = cSrc.toString();
        switch (g) {
            case barrier -> {
                List<String> args = new ArrayList<>(List.of("--out", out, "--mpi-src", cSrc.resolve("mpi_barrier.c").toString()));
                args.addAll(smoke);
                args.addAll(List.of("--nodes", "4", "--threads", "2", "--kinds", "TREE", "--proxies", "FLOAT", "--waits", "ADAPTIVE",
                        "--lanes", "on", "--ops", "barrier,allreduce"));
                if (!common.smoke) args.addAll(List.of("--reps", "5", "--warmup-ms", "3000"));
                BarrierBench bench = new BarrierBench();
                if (!bench.parse(args.toArray(new String[0]))) return 2;
                if (!Files.exists(bench.out.resolve("nodes.log"))) Files.createFile(bench.out.resolve("nodes.log"));
                bench.run();
                return 0;
            }
            case stream -> {
                // warm, as the FFT, LU and CG targets are: 20 untimed rounds first (with the default 2 the JIT is not done
                // with the miss path, and a SPIN miss took 4-9x its warm time: docs/runtime.md, "SPIN: the waiting thread does the I/O")
                List<String> args = new ArrayList<>(List.of("--out", out, "--c-src", c, "--sizes", "8,128,1024",
                        "--transport-security", "MAC,ENCRYPT", "--wait", "SPIN,ADAPTIVE,PARK"));
                if (!common.smoke) args.addAll(List.of("--warmup", "20"));
                return execute(new StreamCommand(), concat(args, smoke));
            }
            case hits -> {
                hits(dir);
                return 0;
            }
            case fft -> {
                return execute(new LuFftCommand.FftBench(), concat(List.of("--out", out, "--c-src", c, "--shapes", "2x1", "--blocks",
                        "128,512", "--reps", "3", "--warm-runs", "20", "--mpi-np", "2"), smoke));
            }
            case lu -> {
                return execute(new LuFftCommand.LuBench(), concat(List.of("--out", out, "--c-src", c, "--shapes", "2x1", "--blocks",
                        "64,128", "--reps", "3", "--warm-runs", "20", "--mpi-np", "2"), smoke));
            }
            case cg -> {
                return execute(new CgCommand(), concat(List.of("--out", out, "--c-src", c, "--classes", "S", "--shapes", "2x1,4x2",
                        "--wait", "ADAPTIVE", "--reps", "3", "--warm-runs", "20", "--mpi-np", "2"), smoke));
            }
            case scopes -> {
                return execute(new ScopesCommand(), concat(List.of("--out", out, "--c-src", c, "--examples", "mm2,cg,fft,psrs",
                        "--shapes", "2x1", "--reps", "3", "--mpi-np", "2", "--job-runs", "40", "--warm-runs", "10"), smoke));
            }
            default -> throw new IllegalStateException("group " + g);
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    // A fresh instance of an experiment's command, run as `dsa bench NAME ARGS` would run it.
    private static int execute(Object command, List<String> args) {
        return new CommandLine(command).execute(args.toArray(new String[0]));
    }

    // LocalHitBenchmark's element read and write beside a double[]'s, partitions of 64, with the GC profiler: hits.csv.
    private void hits(Path dir) throws Exception {
        TimeValue iteration = common.smoke ? TimeValue.milliseconds(DelegateCommands.Jmh.SMOKE_ITERATION_MS) : TimeValue.seconds(1);
        OptionsBuilder opts = new OptionsBuilder();
        opts.include(LocalHitBenchmark.class.getSimpleName() + ".(sharedRead|plainRead|sharedWrite|plainWrite)$").param("partitionSize", "64")
                .forks(1).warmupIterations(common.smoke ? 1 : 3).warmupTime(iteration).measurementIterations(common.smoke ? 1 : 5)
                .measurementTime(iteration).timeUnit(TimeUnit.NANOSECONDS).addProfiler(GCProfiler.class);
        if (common.smoke) System.setProperty("jmh.ignoreLock", "true");
        Collection<RunResult> results = new Runner(opts.build()).run();
        StringBuilder csv = new StringBuilder("benchmark,ns_per_op,alloc_bytes_per_op\n");
        for (RunResult r : results) {
            String bench = r.getParams().getBenchmark();
            Result<?> alloc = r.getSecondaryResults().get("·gc.alloc.rate.norm");
            if (alloc == null) alloc = r.getSecondaryResults().get("gc.alloc.rate.norm");
            csv.append(bench.substring(bench.lastIndexOf('.') + 1)).append(',')
                    .append(String.format(Locale.ROOT, "%.4f", r.getPrimaryResult().getScore())).append(',')
                    .append(alloc == null ? "" : String.format(Locale.ROOT, "%.6f", alloc.getScore())).append('\n');
        }
        Files.writeString(dir.resolve("hits.csv"), csv);
    }

    private void write(Map<Target, List<Measure>> measures) throws IOException {
        StringBuilder csv = new StringBuilder("target,issue,bound,run,ratio,detail\n");
        StringBuilder table = new StringBuilder("| target (issue) | bound | per run | median | verdict |\n| --- | --- | --- | ---: | --- |\n");
        List<String> names = new ArrayList<>();
        List<Double> shares = new ArrayList<>();
        for (Map.Entry<Target, List<Measure>> e : measures.entrySet()) {
            Target t = e.getKey();
            List<Measure> ms = e.getValue();
            List<String> perRun = new ArrayList<>();
            for (int r = 0; r < ms.size(); r++) {
                Measure m = ms.get(r);
                csv.append('"').append(t.name()).append("\",").append(t.issue()).append(",\"").append(t.bound()).append("\",")
                        .append(r + 1).append(',').append(Double.isNaN(m.ratio()) ? "" : fmt(m.ratio())).append(",\"")
                        .append(m.detail().replace('"', '\'')).append("\"\n");
                perRun.add(Double.isNaN(m.ratio()) ? "–" : fmt(m.ratio()));
            }
            Verdict v = verdict(t, ms);
            table.append("| ").append(t.name()).append(" (").append(t.issue()).append(") | ").append(t.bound()).append(" | ")
                    .append(String.join(", ", perRun)).append(" | ").append(Double.isNaN(v.median()) ? "–" : fmt(v.median()))
                    .append(" | ").append(v.text()).append(" |\n");
            if (!Double.isNaN(v.median())) {
                names.add(t.name());
                shares.add(t.atLeast() ? t.limit() / v.median() : v.median() / t.limit());
            }
        }
        Files.writeString(common.out.resolve("targets.csv"), csv);
        CategoryChart chart = new CategoryChartBuilder().width(1200).height(700).title("Targets: median / bound (under 1 is met)")
                .yAxisTitle("median / bound (at-least targets: bound / median)").build();
        chart.getStyler().setXAxisLabelRotation(60);
        chart.getStyler().setLegendVisible(false);
        if (names.isEmpty()) {   // XChart draws no chart without a series
            names.add("nothing measured");
            shares.add(0.0);
        }
        chart.addSeries("median / bound", names, shares);
        BitmapEncoder.saveBitmap(chart, common.out.resolve("targets.png").toString(), BitmapEncoder.BitmapFormat.PNG);
        String notes = String.format(Locale.ROOT, "- %d run(s) of each experiment, one after another; each run's outputs in `run-K/GROUP`%s",
                runs, common.smoke ? "; **smoke run: tiny sizes, the figures mean nothing**" : "");
        BenchOut.markdown(common.out, "targets", "Issues 12 and 13: every target", BenchCommand.typed(spec), notes, table.toString(), List.of());
    }

    /** @return {@code v} with three significant digits ("2.39", "0.0001", "144") */
    static String fmt(double v) {
        if (v == 0 || Double.isNaN(v)) return Double.isNaN(v) ? "" : "0";
        return new java.math.BigDecimal(v).round(new java.math.MathContext(3)).stripTrailingZeros().toPlainString();
    }

    /** A target's verdict over its runs. @param median NaN when no run measured it @param text what the table says */
    record Verdict(double median, String text) {}

    /**
     * @return the median of the measured runs and the verdict: "met by the median of N (M of N within)", "**not met** (...)"
     *         or "not measured: why" (a target is never met without figures)
     */
    static Verdict verdict(Target t, List<Measure> ms) {
        double[] ratios = ms.stream().mapToDouble(Measure::ratio).filter(r -> !Double.isNaN(r)).toArray();
        if (ratios.length == 0) {
            return new Verdict(Double.NaN, "not measured: " + (ms.isEmpty() ? "no run" : ms.get(ms.size() - 1).detail()));
        }
        double median = BenchOut.median(ratios);
        long within = Arrays.stream(ratios).filter(t::met).count();
        String of = ratios.length + (ratios.length < ms.size() ? " measured of " + ms.size() : "");
        if (t.met(median)) return new Verdict(median, "met by the median of " + of + " (" + within + " of " + ratios.length + " within)");
        return new Verdict(median, "**not met** (median of " + of + "; " + within + " of " + ratios.length + " within)");
    }
}
