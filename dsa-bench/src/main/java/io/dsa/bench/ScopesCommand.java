package io.dsa.bench;

import io.dsa.DsaProgram;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.RunReport;
import io.dsa.agent.WaitStrategy;
import io.dsa.agent.transport.TransportSecurity;
import io.dsa.examples.Cg;
import io.dsa.examples.Fft2d;
import io.dsa.examples.Jacobi;
import io.dsa.examples.Lu;
import io.dsa.examples.Mm2;
import io.dsa.examples.NpbCg;
import io.dsa.examples.Psrs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
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
 * {@code dsa bench scopes} (issue 13): each example that has a scoped version ({@code jacobi},
 * {@code lu}, {@code mm2}, {@code cg}, {@code fft}, {@code psrs}) run plain and scoped on DSA VMs
 * of one JVM per node, beside the sequential Java version in this JVM and, where one exists
 * ({@code lu_mpi.c}, {@code mm2_mpi.c}, {@code cg_mpi.c}, {@code fft_mpi.c}), the MPI + C version of the same
 * algorithm (skipped with a message where {@code mpicc}/{@code mpirun} are missing). Every DSA run
 * passes the example's own self-check; the figures are the examples' own compute timers, medians
 * of {@code --runs}. Then, unless {@code --no-jmh}, {@link ScopedKernelBenchmark} in one JMH run:
 * the owner-computes kernels on a scope's arrays against the same loops on plain arrays. Writes
 * {@code scopes.csv}, {@code scopes.png}, {@code scopes-kernels.csv} and {@code scopes.md}.
 */
@Command(name = "scopes", mixinStandardHelpOptions = true,
        description = "The examples plain and with scopes (jacobi, lu, mm2, cg, fft, psrs) beside sequential Java and MPI + C, and the"
                + " owner-computes kernels against plain arrays (JMH).")
final class ScopesCommand implements Callable<Integer> {
    static final String CSV_HEADER = "example,kind,nodes,threads,seconds,vs_sequential,load";
    static final String KERNELS_HEADER = "kernel,scoped_us,scoped_error_us,plain_us,plain_error_us,ratio";
    /** The examples with a scoped version, in the order they run. */
    static final List<String> EXAMPLES = List.of("jacobi", "lu", "mm2", "cg", "fft", "psrs");

    @Spec
    CommandSpec spec;

    @Mixin
    BenchCommand.Common common = new BenchCommand.Common();

    @Mixin
    MpiPeer.Options peer = new MpiPeer.Options();

    @Mixin
    BenchCommand.TuningOptions tuningOptions = new BenchCommand.TuningOptions();

    @Option(names = "--examples", split = ",", paramLabel = "NAME,..", defaultValue = "jacobi,lu,mm2,cg,fft,psrs",
            description = "Examples, of ${DEFAULT-VALUE} (default: all).")
    List<String> examples;

    @Option(names = "--shapes", split = ",", paramLabel = "NxT,..", defaultValue = "2x1",
            description = "DSA VM shapes nodes x threads (default: ${DEFAULT-VALUE}); MPI runs with the shapes' node counts"
                    + " unless --mpi-np is given.")
    List<String> shapes;

    @Option(names = "--jacobi", split = ",", paramLabel = "N,ITER,ROWS", defaultValue = "512,100,16",
            description = "jacobi's arguments: side, iterations, partition rows (default: ${DEFAULT-VALUE}).")
    List<String> jacobiArgs;

    @Option(names = "--lu", split = ",", paramLabel = "N,B", defaultValue = "1024,64",
            description = "lu's arguments: side, block (a divisor of the side; default: ${DEFAULT-VALUE}).")
    List<String> luArgs;

    @Option(names = "--mm2", split = ",", paramLabel = "N,P", defaultValue = "512,32",
            description = "mm2's arguments: side, partition side (mm2-scoped: rows per band of full rows; default: ${DEFAULT-VALUE}).")
    List<String> mm2Args;

    @Option(names = "--fft", split = ",", paramLabel = "N,P", defaultValue = "1024,64",
            description = "fft's arguments: side (a power of two), partition side (default: ${DEFAULT-VALUE}).")
    List<String> fftArgs;

    @Option(names = "--psrs", split = ",", paramLabel = "N,P", defaultValue = "1048576,4096",
            description = "psrs's arguments: keys, partition length (default: ${DEFAULT-VALUE}).")
    List<String> psrsArgs;

    @Option(names = "--cg", paramLabel = "CLASS", defaultValue = "S", description = "cg's NPB class, S, W or A (default: ${DEFAULT-VALUE}).")
    String cgClass;

    @Option(names = "--no-jmh", description = "Skip the JMH run of the owner-computes kernels.")
    boolean noJmh;

    @Mixin
    BenchCommand.WarmRuns warm = new BenchCommand.WarmRuns();

    @Option(names = "--job-runs", paramLabel = "N", defaultValue = "40",
            description = "Runs of each scoped example's work in one job (one VM, every node in this JVM, a barrier between runs),"
                    + " as a long job runs: the scoped-job row is the median of the later half. 0: none, 1 to " + BenchCommand.WarmRuns.MAX
                    + " (default: ${DEFAULT-VALUE}; --smoke: 2). Not for the plain versions, nor lu-scoped: cg, jacobi, lu and"
                    + " lu-scoped find where to resume from the VM's epoch, so their work cannot run twice in one job.")
    int jobRuns;

    @Option(names = "--label", paramLabel = "TEXT", defaultValue = "",
            description = "Added to the plot's title and the Markdown, e.g. \"noisy, concurrent load\".")
    String label;

    /**
     * One example: its programs, its arguments, where its report gives the time, its sequential
     * Java run and its MPI + C peer (null source where there is none).
     */
    private record Example(String name, Supplier<DsaProgram> plain, Supplier<DsaProgram> scoped, List<String> args,
                           Pattern time, double unitSeconds, Sequential sequential, String mpiSource, List<String> mpiArgs) {}

    /** A sequential Java run of an example's algorithm, verified where the algorithm has a check of its own. */
    @FunctionalInterface
    private interface Sequential {
        /** @return its seconds */
        double run();
    }

    /** One measurement: kind seq, plain, scoped, plain-warm, scoped-warm ({@link BenchCommand.WarmRuns}) or mpi. */
    record Row(String example, String kind, int nodes, int threads, double seconds, double vsSequential, double load) {
        String label() {
            return switch (kind) {
                case "seq" -> "sequential Java";
                case "mpi" -> "MPI + C np=" + nodes;
                default -> "DSA " + nodes + "x" + threads + " " + kind;
            };
        }
    }

    @Override
    public Integer call() throws Exception {
        if (common.smoke) {
            jacobiArgs = List.of("48", "6", "8");
            luArgs = List.of("64", "16");
            mm2Args = List.of("48", "16");
            fftArgs = List.of("32", "8");
            psrsArgs = List.of("20000", "512");
            cgClass = "S";
            shapes = List.of("2x1");
            peer.reps = 1;
            warm.runs = 1;
            jobRuns = 2;
        }
        if (jobRuns < 0 || jobRuns > BenchCommand.WarmRuns.MAX) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--job-runs " + jobRuns + " out of range [0, "
                    + BenchCommand.WarmRuns.MAX + "]");
        }
        if (peer.reps < 1) throw new CommandLine.ParameterException(spec.commandLine(), "--runs: " + peer.reps + " not >= 1");
        warm.check(spec);
        for (String e : examples) {
            if (!EXAMPLES.contains(e)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--examples: '" + e + "' unknown, expected some of " + EXAMPLES);
            }
        }
        List<int[]> vmShapes = BenchCommand.vmShapes(spec, shapes);
        boolean npGiven = spec.commandLine().getParseResult() != null && spec.commandLine().getParseResult().hasMatchedOption("--mpi-np");
        List<Integer> ranks = npGiven ? peer.mpiNp : vmShapes.stream().map(s -> s[0]).distinct().toList();
        List<Row> rows = new ArrayList<>();
        for (String name : examples) {
            Example ex = example(name);
            double seq = sequentialMedian(ex);
            rows.add(print(new Row(name, "seq", 1, 1, seq, 1.0, BarrierBench.loadAverage())));
            for (int[] shape : vmShapes) {
                List<String> kinds = List.of("plain", "scoped");
                double[] cold = new double[kinds.size()];
                double[] coldLoad = new double[kinds.size()];
                for (int k = 0; k < kinds.size(); k++) {
                    double[] t = new double[peer.reps];
                    for (int r = 0; r < peer.reps; r++) {
                        DsaProgram program = kinds.get(k).equals("plain") ? ex.plain().get() : ex.scoped().get();
                        t[r] = seconds(ex, ProcessVm.run(program, shape[0], shape[1], ex.args(), common.out,
                                TransportSecurity.ENCRYPT, WaitStrategy.ADAPTIVE, DsaConfig.DEFAULT_PREFETCH_WINDOW, tuningOptions.tuning()));
                    }
                    cold[k] = BenchOut.median(t);
                    coldLoad[k] = BarrierBench.loadAverage();
                }
                // both kinds warm, interleaved (BenchCommand.WarmRuns#medians): the scoped version no longer runs after the
                // plain one has warmed the JIT on the same DSA code
                double[] warmSeconds = new double[0];
                if (warm.runs > 0) {
                    DsaConfig config = tuningOptions.tuning().apply(DsaConfig.builder()).nodes(shape[0]).threadsPerNode(shape[1]).build();
                    warmSeconds = warm.medians(List.of(new BenchCommand.WarmRuns.Case(config, ex.plain(), ex.args()),
                            new BenchCommand.WarmRuns.Case(config, ex.scoped(), ex.args())), report -> seconds(ex, report));
                }
                double warmLoad = BarrierBench.loadAverage();
                for (int k = 0; k < kinds.size(); k++) {
                    String kind = kinds.get(k);
                    rows.add(print(new Row(name, kind, shape[0], shape[1], cold[k], cold[k] / seq, coldLoad[k])));
                    if (warm.runs > 0) {
                        rows.add(print(new Row(name, kind + "-warm", shape[0], shape[1], warmSeconds[k], warmSeconds[k] / seq, warmLoad)));
                    }
                    if (kind.equals("scoped") && jobRuns > 0 && name.equals("lu")) {
                        System.out.println("scopes lu: no scoped-job row: lu-scoped resumes from the VM's epoch as lu does, so its"
                                + " work cannot run twice in one job");
                    } else if (kind.equals("scoped") && jobRuns > 0) {
                        double j = jobMedian(ex, tuningOptions.tuning().apply(DsaConfig.builder()).nodes(shape[0]).threadsPerNode(shape[1]).build());
                        rows.add(print(new Row(name, "scoped-job", shape[0], shape[1], j, j / seq, BarrierBench.loadAverage())));
                    }
                }
            }
            rows.addAll(mpi(ex, ranks, seq));
        }
        Map<String, double[]> kernels = noJmh ? Map.of() : kernels();
        write(rows, kernels);
        return 0;
    }

    private Example example(String name) {
        return switch (name) {
            case "jacobi" -> {
                int n = intArg("--jacobi", jacobiArgs, 0, 3);
                int iterations = intArg("--jacobi", jacobiArgs, 1, 3);
                yield new Example(name, Jacobi::new, Jacobi.Scoped::new, jacobiArgs, Pattern.compile(", iterations ([0-9.]+) s"), 1,
                        () -> timed(() -> Jacobi.sequential(n, iterations)), null, List.of());
            }
            case "lu" -> {
                int n = intArg("--lu", luArgs, 0, 2);
                int b = intArg("--lu", luArgs, 1, 2);
                if (n % b != 0) throw new CommandLine.ParameterException(spec.commandLine(), "--lu: block " + b + " must divide " + n);
                yield new Example(name, Lu::new, Lu.Scoped::new, luArgs, Pattern.compile("factorisation ([0-9.]+) s"), 1,
                        () -> LuFftCommand.LuBench.sequentialLu(n, b), "lu_mpi.c",
                        List.of(Integer.toString(n), Integer.toString(b), Integer.toString(peer.reps)));
            }
            case "mm2" -> {
                int n = intArg("--mm2", mm2Args, 0, 2);
                yield new Example(name, Mm2::new, Mm2.Scoped::new, mm2Args, Pattern.compile("compute ([0-9.]+) ms"), 1e-3,
                        () -> sequentialMm2(n), "mm2_mpi.c", List.of(Integer.toString(n), Integer.toString(peer.reps)));
            }
            case "fft" -> {
                int n = intArg("--fft", fftArgs, 0, 2);
                if (Integer.bitCount(n) != 1) throw new CommandLine.ParameterException(spec.commandLine(), "--fft: " + n + " is not a power of two");
                yield new Example(name, Fft2d::new, Fft2d.Scoped::new, fftArgs, Pattern.compile("forward ([0-9.]+) s"), 1,
                        () -> LuFftCommand.FftBench.sequentialFft(n), "fft_mpi.c", List.of(Integer.toString(n), Integer.toString(peer.reps)));
            }
            case "psrs" -> {
                int n = intArg("--psrs", psrsArgs, 0, 2);
                yield new Example(name, Psrs::new, Psrs.Scoped::new, psrsArgs, Pattern.compile("compute ([0-9.]+) ms"), 1e-3,
                        () -> sequentialSort(n), null, List.of());
            }
            default -> {
                NpbCg.Size size;
                try {
                    size = NpbCg.Size.parse(cgClass);
                } catch (io.dsa.DsaException e) {
                    throw new CommandLine.ParameterException(spec.commandLine(), "--cg: " + e.getMessage());
                }
                NpbCg.Matrix matrix = NpbCg.makea(size);
                yield new Example(name, Cg::new, Cg.Scoped::new, List.of(size.name()), Pattern.compile("\\d iterations ([0-9.]+) s"), 1,
                        () -> NpbCg.run(size, matrix).check().seconds(), "cg_mpi.c", List.of(size.name(), Integer.toString(peer.reps)));
            }
        };
    }

    private int intArg(String option, List<String> values, int index, int count) {
        if (values.size() != count) {
            throw new CommandLine.ParameterException(spec.commandLine(), option + ": " + values + " has " + values.size()
                    + " values, expected " + count);
        }
        try {
            int v = Integer.parseInt(values.get(index).strip());
            if (v < 1) throw new NumberFormatException();
            return v;
        } catch (NumberFormatException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), option + ": '" + values.get(index) + "' is not an integer >= 1");
        }
    }

    private static double timed(Runnable work) {
        long t0 = System.nanoTime();
        work.run();
        return (System.nanoTime() - t0) / 1e9;
    }

    /** MM2 sequentially: {@code P = Q x R}, {@code R = Q x P} with the example's matrices (seed 1) and product. */
    private static double sequentialMm2(int n) {
        long[] q = new long[n * n];
        long[] r = new long[n * n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                q[i * n + j] = Mm2.initial(1, 0, i, j, n);
                r[i * n + j] = Mm2.initial(1, 1, i, j, n);
            }
        }
        return timed(() -> Mm2.multiply(q, Mm2.multiply(q, r, n), n));
    }

    /** PSRS's baseline: {@code Arrays.sort} of the example's keys (seed 1), verified sorted. */
    private static double sequentialSort(int n) {
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) keys[i] = Psrs.key(1, i);
        double s = timed(() -> java.util.Arrays.sort(keys));
        for (int i = 1; i < n; i++) if (keys[i - 1] > keys[i]) throw new IllegalStateException("sequential sort: key " + i + " out of order");
        return s;
    }

    /** @return the median of {@code --runs} sequential runs, as warm as the DSA warm rows */
    private double sequentialMedian(Example ex) {
        return warm.sequentialMedian(() -> ex.sequential().run(), peer.reps);
    }

    /**
     * Runs the scoped example's work {@link #jobRuns} times in one job ({@link RepeatedWork}).
     *
     * @return the median of the later half of the runs' compute seconds, each from its own verified report line
     */
    private double jobMedian(Example ex, io.dsa.agent.DsaConfig config) throws IOException {
        RunReport report;
        try (io.dsa.agent.DsaCluster vm = io.dsa.agent.DsaCluster.local(config)) {
            report = vm.run(new RepeatedWork(ex.scoped(), jobRuns), ex.args().toArray(new String[0]));
        }
        List<Double> t = new ArrayList<>();
        for (String line : report.lines()) {
            double s = verifiedSeconds(ex, line);
            if (s >= 0) t.add(s);
        }
        if (t.size() != jobRuns) {
            throw new IOException(ex.name() + "-scoped: " + t.size() + " verified report lines with '" + ex.time() + "' in a job of "
                    + jobRuns + " runs, expected one per run: " + report.lines());
        }
        System.out.printf(Locale.ROOT, "runs of %s-scoped %s in one job: %s%n", ex.name(), ex.args(), t);
        double[] later = t.subList(jobRuns / 2, jobRuns).stream().mapToDouble(Double::doubleValue).toArray();
        return BenchOut.median(later);
    }

    /** @return the compute seconds of a verified report */
    private static double seconds(Example ex, RunReport report) throws IOException {
        for (String line : report.lines()) {
            double s = verifiedSeconds(ex, line);
            if (s >= 0) return s;
        }
        throw new IOException(ex.name() + ": no verified report line with '" + ex.time() + "' in " + report.lines());
    }

    /** @return the compute seconds {@code line} gives if it is a verified report line of {@code ex}, else -1 */
    private static double verifiedSeconds(Example ex, String line) {
        Matcher m = ex.time().matcher(line);
        return line.contains("verified") && !line.contains("NOT verified") && m.find() ? Double.parseDouble(m.group(1)) * ex.unitSeconds() : -1;
    }

    private List<Row> mpi(Example ex, List<Integer> ranks, double seq) throws Exception {
        if (peer.noMpi) return List.of();
        if (ex.mpiSource() == null) {
            System.out.println(ex.name() + ": no MPI + C peer (none exists in " + peer.cSrc + ")");
            return List.of();
        }
        Path exe = MpiPeer.compile(peer.cSrc.resolve(ex.mpiSource()), common.out);
        if (exe == null) return List.of();
        List<Row> rows = new ArrayList<>();
        for (int np : ranks) {
            double s = MpiPeer.time(exe, np, ex.mpiArgs(), ex.name() + " " + ex.mpiArgs());
            rows.add(print(new Row(ex.name(), "mpi", np, 1, s, s / seq, BarrierBench.loadAverage())));
        }
        return rows;
    }

    private static Row print(Row r) {
        System.out.printf(Locale.ROOT, "scopes %s %s: %.4f s (%.2fx sequential)%n", r.example(), r.label(), r.seconds(), r.vsSequential());
        return r;
    }

    /**
     * Runs {@link ScopedKernelBenchmark} (short settings; tiny sizes under {@code --smoke}).
     *
     * @return per kernel (jacobi sweep, LU update) {scoped, plain, scoped error, plain error} in microseconds per
     *         operation (the errors are JMH's 99.9% intervals)
     */
    private Map<String, double[]> kernels() throws Exception {
        OptionsBuilder opts = new OptionsBuilder();
        opts.include(ScopedKernelBenchmark.class.getSimpleName()).forks(1).warmupIterations(common.smoke ? 1 : 3)
                .warmupTime(TimeValue.seconds(1)).measurementIterations(common.smoke ? 1 : 5).measurementTime(TimeValue.seconds(1));
        if (common.smoke) {
            opts.param("n", "64").param("partitionRows", "8").param("block", "16")
                    .warmupTime(TimeValue.milliseconds(200)).measurementTime(TimeValue.milliseconds(200));
            System.setProperty("jmh.ignoreLock", "true");   // a smoke run checks that it works, not its timings
        }
        Collection<RunResult> results = new Runner(opts.build()).run();
        Map<String, double[]> kernels = new LinkedHashMap<>();
        for (RunResult r : results) {
            String method = r.getParams().getBenchmark().substring(r.getParams().getBenchmark().lastIndexOf('.') + 1);
            boolean scoped = method.endsWith("Scoped");
            String kernel = method.replaceFirst("(Scoped|Plain)$", "");
            double[] v = kernels.computeIfAbsent(kernel, k -> new double[] {Double.NaN, Double.NaN, Double.NaN, Double.NaN});
            v[scoped ? 0 : 1] = r.getPrimaryResult().getScore();
            v[scoped ? 2 : 3] = r.getPrimaryResult().getScoreError();
        }
        return kernels;
    }

    private void write(List<Row> rows, Map<String, double[]> kernels) throws IOException {
        Files.createDirectories(common.out);
        List<String> csv = new ArrayList<>();
        StringBuilder table = new StringBuilder("| example | kind | nodes | threads | seconds | vs sequential Java | load |\n"
                + "|---|---|---:|---:|---:|---:|---:|\n");
        for (Row r : rows) {
            csv.add(String.format(Locale.ROOT, "%s,%s,%d,%d,%.7f,%.3f,%.2f", r.example(), r.kind(), r.nodes(), r.threads(), r.seconds(),
                    r.vsSequential(), r.load()));
            table.append(String.format(Locale.ROOT, "| %s | %s | %d | %d | %.4f | %.2fx | %.1f |%n", r.example(), r.label(), r.nodes(),
                    r.threads(), r.seconds(), r.vsSequential(), r.load()));
        }
        BenchOut.csv(common.out, "scopes", CSV_HEADER, csv);
        plot(rows);

        List<String> kernelCsv = new ArrayList<>();
        for (Map.Entry<String, double[]> k : kernels.entrySet()) {
            double[] v = k.getValue();
            kernelCsv.add(String.format(Locale.ROOT, "%s,%.3f,%.3f,%.3f,%.3f,%.3f", k.getKey(), v[0], v[2], v[1], v[3], v[0] / v[1]));
        }
        if (!kernels.isEmpty()) BenchOut.csv(common.out, "scopes-kernels", KERNELS_HEADER, kernelCsv);

        List<String> targets = new ArrayList<>(targets(rows));
        for (Map.Entry<String, double[]> k : kernels.entrySet()) {
            double[] v = k.getValue();
            targets.add(BenchOut.ratio("kernel " + k.getKey() + " on a scope's arrays vs the same loop on plain double[]s (JMH)",
                    v[0], v[1], 1.10, "µs") + String.format(Locale.ROOT, " (errors ± %.1f and ± %.1f µs)", v[2], v[3]));
        }
        String notes = String.format(Locale.ROOT, "- %sDSA: the example (`NAME`) and its scoped version (`NAME-scoped`), one JVM per"
                + " node, node 0 in the bench JVM, each run passing the example's own check; the example's own compute timer"
                + " (verification excluded). Sequential Java in the bench JVM after as many warm-up runs as the warm rows (jacobi: `Jacobi.sequential`;"
                + " lu: the blocked LU of `dsa bench lu`; mm2: the example's sequential product, twice; cg: `NpbCg.run`; fft:"
                + " the sequential 2-D FFT of `dsa bench fft`, forward transform; psrs: `Arrays.sort` of the same keys). MPI + C over loopback TCP where a peer exists"
                + " (lu_mpi.c, mm2_mpi.c, cg_mpi.c, fft_mpi.c). Medians of %d run(s); the -warm kinds: every node in the bench JVM,"
                + " " + warm.runs + " runs of each, the plain and scoped VMs interleaved (a round runs each once), the median of the later half; scoped-job: the scoped example's work run " + jobRuns
                + " times in one job (one VM, every node in the bench JVM), the median of the later half. Arguments: jacobi %s, lu %s, mm2 %s, cg class %s, fft %s, psrs %s.%s",
                label.isEmpty() ? "" : "**" + label + ".** ", peer.reps, jacobiArgs, luArgs, mm2Args, cgClass, fftArgs, psrsArgs, kernels.isEmpty() ? "" : "\n- Kernels: `ScopedKernelBenchmark`, one JMH fork, µs per whole"
                        + " sweep / update; data `scopes-kernels.csv`.");
        BenchOut.markdown(common.out, "scopes", "Scopes: the examples with and without scopes (issue 13)", BenchCommand.typed(spec),
                notes, table.toString(), targets);
    }

    /** The targets where this run measured both sides, and scoped vs plain for every example and shape. */
    private List<String> targets(List<Row> rows) {
        List<String> lines = new ArrayList<>();
        for (String e : examples) {
            Row seq = find(rows, e, "seq", 1, 1);
            for (String shape : shapes) {
                int[] s = BenchCommand.vmShapes(spec, List.of(shape)).get(0);
                for (String warmth : List.of("", "-warm", "-job")) {
                    Row plain = find(rows, e, "plain" + warmth, s[0], s[1]);
                    Row scoped = find(rows, e, "scoped" + warmth, s[0], s[1]);
                    if (scoped == null) continue;
                    String dsa = "DSA " + shape + (warmth.isEmpty() ? "" : warmth.equals("-warm") ? " warm" : " in one job");
                    if (plain != null) {
                        lines.add(String.format(Locale.ROOT, "%s, %s scoped vs plain (no target): %.1f / %.1f ms = %.2fx", e, dsa,
                                scoped.seconds() * 1e3, plain.seconds() * 1e3, scoped.seconds() / plain.seconds()));
                    }
                    if (s[0] == 2 && s[1] == 1 && List.of("mm2", "cg", "psrs").contains(e)) {
                        lines.add(BenchOut.ratio(e + ", " + dsa + " scoped vs sequential Java (faster than it)", scoped.seconds() * 1e3,
                                seq.seconds() * 1e3, 1.0, "ms"));
                    }
                    Row mpi = find(rows, e, "mpi", s[0], 1);
                    if (mpi != null && s[1] == 1) {
                        double limit = e.equals("cg") || e.equals("mm2") ? 1.3 : e.equals("fft") ? 1.5 : Double.NaN;
                        lines.add(Double.isNaN(limit)
                                ? String.format(Locale.ROOT, "%s, %s scoped vs MPI + C np=%d (no target): %.1f / %.1f ms = %.2fx", e,
                                        dsa, s[0], scoped.seconds() * 1e3, mpi.seconds() * 1e3, scoped.seconds() / mpi.seconds())
                                : BenchOut.ratio(e + ", " + dsa + " scoped vs MPI + C np=" + s[0], scoped.seconds() * 1e3,
                                        mpi.seconds() * 1e3, limit, "ms"));
                    }
                }
            }
        }
        return lines;
    }

    private static Row find(List<Row> rows, String example, String kind, int nodes, int threads) {
        return rows.stream().filter(r -> r.example().equals(example) && r.kind().equals(kind) && r.nodes() == nodes
                && r.threads() == threads).findFirst().orElse(null);
    }

    /** {@code scopes.png}: per example, each configuration's time relative to sequential Java (bars; a gap where not run). */
    private void plot(List<Row> rows) throws IOException {
        String title = "Examples with and without scopes: time / sequential Java" + (label.isEmpty() ? "" : " (" + label + ")");
        CategoryChart chart = new CategoryChartBuilder().width(1000).height(600).title(title).xAxisTitle("example")
                .yAxisTitle("time relative to sequential Java (median)").build();
        Map<String, List<Double>> series = new LinkedHashMap<>();
        for (Row r : rows) series.computeIfAbsent(r.label(), k -> new ArrayList<>());
        for (Map.Entry<String, List<Double>> s : series.entrySet()) {
            for (String e : examples) {
                Row r = rows.stream().filter(x -> x.example().equals(e) && x.label().equals(s.getKey())).findFirst().orElse(null);
                s.getValue().add(r == null ? null : r.vsSequential());
            }
            chart.addSeries(s.getKey(), examples, s.getValue());
        }
        BitmapEncoder.saveBitmap(chart, common.out.resolve("scopes.png").toString(), BitmapEncoder.BitmapFormat.PNG);
    }
}
