package io.dsa.bench;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** The experiments that call existing benchmarks: {@code barrier} ({@link BarrierBench}) and {@code jmh}. */
final class DelegateCommands {
    private DelegateCommands() {}

    /** {@code dsa bench barrier}: runs {@link BarrierBench} with {@code --out} and any options after {@code --}. */
    @Command(name = "barrier", mixinStandardHelpOptions = true,
            description = {"Barrier latency, tree vs centralised, nodes x threads (Fig. 11): runs io.dsa.bench.BarrierBench.",
                "Options after '--' go to BarrierBench; 'dsa bench barrier -- --help' lists them (--nodes, --threads, --reps, ...)."})
    static final class Barrier implements Callable<Integer> {
        @Mixin
        BenchCommand.Common common = new BenchCommand.Common();

        @Parameters(paramLabel = "BARRIER_OPTION", description = "BarrierBench options (after --).")
        List<String> rest = new ArrayList<>();

        @Override
        public Integer call() throws Exception {
            List<String> args = new ArrayList<>(List.of("--out", common.out.toString()));
            if (common.smoke) args.add("--smoke");
            args.addAll(rest);
            BarrierBench bench = new BarrierBench();
            if (!bench.parse(args.toArray(new String[0]))) return 0;
            // BarrierBench reads out/nodes.log after every configuration, also a 1-node one that started no child
            // to create it: make sure it exists.
            Files.createDirectories(bench.out);
            if (!Files.exists(bench.out.resolve("nodes.log"))) Files.createFile(bench.out.resolve("nodes.log"));
            bench.run();
            return 0;
        }
    }

    /**
     * {@code dsa bench jmh}: the JMH micro benchmarks with short settings (LocalHitBenchmark with
     * the GC profiler, RemoteMissBenchmark, ThinNettyRoundTripBenchmark, ReleaseScopeBenchmark...); writes {@code jmh.csv}
     * (JMH's CSV) and {@code jmh.md}.
     */
    @Command(name = "jmh", mixinStandardHelpOptions = true,
            description = "Runs the JMH micro benchmarks (local hit, remote miss, thin Netty, codec, record layer, MAC choice, a small message under a bulk transfer, a release scope's round; all with -prof gc) with short settings.")
    static final class Jmh implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        BenchCommand.Common common = new BenchCommand.Common();

        @Option(names = "--include", defaultValue = "LocalHitBenchmark|RemoteMissBenchmark|ThinNettyRoundTripBenchmark|CodecBenchmark|RecordLayerBenchmark|MacChoiceBenchmark|SmallMessageUnderBulkBenchmark|ReleaseScopeBenchmark",
                description = "Benchmark regex (default: ${DEFAULT-VALUE}).")
        String include;

        /** Length of a warm-up or measurement iteration under {@code --smoke}, in milliseconds. */
        static final int SMOKE_ITERATION_MS = 200;

        @Option(names = "--iterations", defaultValue = "3", description = "Measurement iterations of 1 s (default: ${DEFAULT-VALUE}).")
        int iterations;

        @Override
        public Integer call() throws Exception {
            Files.createDirectories(common.out);
            int iters = common.smoke ? 1 : iterations;
            // a smoke run shows that every benchmark runs and reports, not a figure: 200 ms iterations
            TimeValue iteration = common.smoke ? TimeValue.milliseconds(SMOKE_ITERATION_MS) : TimeValue.seconds(1);
            OptionsBuilder opts = new OptionsBuilder();
            opts.include(include).forks(1).warmupIterations(common.smoke ? 1 : 2).warmupTime(iteration)
                    .measurementIterations(iters).measurementTime(iteration).timeUnit(TimeUnit.NANOSECONDS)
                    .addProfiler(GCProfiler.class).resultFormat(ResultFormatType.CSV)
                    .result(common.out.resolve("jmh.csv").toString());
            // JMH refuses to start while another JMH run holds its machine-wide lock; a smoke run
            // checks that the benchmarks work, not their timings, so it may share the machine
            if (common.smoke) System.setProperty("jmh.ignoreLock", "true");
            Collection<RunResult> results = new Runner(opts.build()).run();
            List<String> names = new ArrayList<>();
            List<Double> scores = new ArrayList<>();
            StringBuilder table = new StringBuilder("| benchmark | params | score | error | unit | gc.alloc.rate.norm B/op |\n|---|---|---:|---:|---|---:|\n");
            for (RunResult r : results) {
                Result<?> primary = r.getPrimaryResult();
                Result<?> alloc = r.getSecondaryResults().get("·gc.alloc.rate.norm");
                if (alloc == null) alloc = r.getSecondaryResults().get("gc.alloc.rate.norm");
                String bench = r.getParams().getBenchmark();
                List<String> params = new ArrayList<>();
                for (String k : r.getParams().getParamsKeys()) params.add(k + "=" + r.getParams().getParam(k));
                String shortName = bench.substring(bench.lastIndexOf('.', bench.lastIndexOf('.') - 1) + 1);
                names.add(shortName + " " + String.join(" ", params));
                scores.add(primary.getScore());
                table.append(String.format(Locale.ROOT, "| %s | %s | %.1f | %s | %s | %s |%n", shortName,
                        String.join(" ", params), primary.getScore(), Double.isNaN(primary.getScoreError()) ? "–"
                                : String.format(Locale.ROOT, "%.1f", primary.getScoreError()), primary.getScoreUnit(),
                        alloc == null ? "–" : String.format(Locale.ROOT, "%.1f", alloc.getScore())));
            }
            CategoryChart chart = new CategoryChartBuilder().width(1100).height(650).title("JMH micro benchmarks (ns/op)")
                    .yAxisTitle("ns/op").build();
            chart.getStyler().setXAxisLabelRotation(60);
            chart.getStyler().setLegendVisible(false);
            if (!names.isEmpty()) chart.addSeries("score", names, scores);
            BitmapEncoder.saveBitmap(chart, common.out.resolve("jmh.png").toString(), BitmapEncoder.BitmapFormat.PNG);
            String notes = String.format(Locale.ROOT, "- 1 fork, %d x %s warm-up, %d x %s measurement, GC profiler", common.smoke ? 1 : 2,
                    iteration, iters, iteration);
            BenchOut.markdown(common.out, "jmh", "JMH micro benchmarks (short settings)", BenchCommand.typed(spec), notes, table.toString(), List.of());
            return 0;
        }
    }
}
