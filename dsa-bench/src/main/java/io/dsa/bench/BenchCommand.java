package io.dsa.bench;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dsa bench EXPERIMENT}: the macro benchmarks of the paper, agents as separate processes.
 * Each experiment writes {@code NAME.csv}, {@code NAME.png} and {@code NAME.md} to {@code --out};
 * {@code dsa bench report} gathers the Markdown into {@code BENCHMARKS.md}.
 */
@Command(name = "bench",
        mixinStandardHelpOptions = true,
        description = "Macro benchmarks (paper Figs. 8-14): agents as separate processes; CSV, PNG and Markdown per experiment.",
        subcommands = {StartupCommand.class, MissCommand.class, WriteCostCommand.class, LuFftCommand.LuBench.class, LuFftCommand.FftBench.class, CgCommand.class, ScopesCommand.class, StreamCommand.class, DelegateCommands.Barrier.class, CheckpointCommand.class,
            HandoffCommand.class, DelegateCommands.Jmh.class, TargetsCommand.class, FuzzCommand.class, ReportCommand.class},
        synopsisSubcommandLabel = "EXPERIMENT",
        footer = {"", "Run 'dsa bench EXPERIMENT --help' for an experiment's options."})
public final class BenchCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    /** Creates the command. */
    public BenchCommand() {}

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return CommandLine.ExitCode.USAGE;
    }

    /** Options every experiment has. */
    static final class Common {
        @Option(names = "--out", paramLabel = "DIR", defaultValue = "bench-results",
                description = "Output directory (default: ${DEFAULT-VALUE}).")
        Path out;

        @Option(names = "--smoke", description = "Tiny sizes and few repetitions (the test suite's smoke run).")
        boolean smoke;
    }

    /** Settings of the DSA VMs an experiment may change from a VM's defaults, on every node ({@link ProcessVm.Tuning}). */
    static final class TuningOptions {
        @Option(names = "--self-invalidation", description = "Run the DSA VMs with self-invalidation (DsaConfig.selfInvalidation:"
                + " a node drops its copy of a partition its home rewrites epoch after epoch at its next global arrival; default: off).")
        boolean selfInvalidation;

        @Option(names = "--hit-counts", negatable = true, defaultValue = "true", fallbackValue = "true",
                description = "Whether the DSA VMs count access hits (DsaConfig.hitCounts; --no-hit-counts: an element access"
                        + " hit skips its counter; default: on, as in a VM's default config).")
        boolean hitCounts = true;

        @Option(names = "--bind-cores", description = "Bind each DSA node's workers and I/O thread to a share of the machine's"
                + " cores (DsaConfig.bindCores; default: off).")
        boolean bindCores;

        /** @return the settings given */
        ProcessVm.Tuning tuning() { return new ProcessVm.Tuning(selfInvalidation, hitCounts, bindCores); }
    }

    /** The wait strategies an experiment runs its DSA VMs with, each in a VM of its own in the same run. */
    static final class Waits {
        @Option(names = "--wait", split = ",", paramLabel = "STRATEGY,..", defaultValue = "PARK,SPIN,ADAPTIVE",
                description = "Wait strategies of the DSA VMs, each in its own VM of this run (default: ${DEFAULT-VALUE};"
                        + " --smoke: ADAPTIVE unless given).")
        java.util.List<io.dsa.agent.WaitStrategy> strategies;

        /**
         * @return the strategies to run: as given (each once), or ADAPTIVE alone in a smoke run that names none
         * @throws CommandLine.ParameterException if one is named twice
         */
        java.util.List<io.dsa.agent.WaitStrategy> checked(CommandSpec spec, boolean smoke) {
            distinct(spec, strategies);
            boolean given = spec.commandLine().getParseResult() != null && spec.commandLine().getParseResult().hasMatchedOption("--wait");
            return smoke && !given ? java.util.List.of(io.dsa.agent.WaitStrategy.ADAPTIVE) : strategies;
        }

        /** @throws CommandLine.ParameterException if {@code --wait} names a strategy twice */
        static void distinct(CommandSpec spec, java.util.List<io.dsa.agent.WaitStrategy> strategies) {
            if (strategies.stream().distinct().count() != strategies.size()) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--wait: " + strategies + " names a strategy twice");
            }
        }
    }

    /**
     * Runs of a DSA VM with every node in the bench JVM ({@code DsaCluster.local}), so that the JIT has compiled DSA and
     * the program when the later ones run: the warm figure is the median of the later half. Several VMs' runs are
     * interleaved ({@link #medians}). The DSA runs
     * of the experiments start their node JVMs afresh, while sequential Java is timed in the bench JVM after
     * {@link #sequentialWarmUps} warm-up runs (BENCHMARKS.md, "Warm runs").
     */
    static final class WarmRuns {
        /** Most runs. */
        static final int MAX = 100;

        // 40, not 20 (and not 5): on a 2-core machine the compiler threads took 53% of the CPU over a scoped CG's runs 5-15
        // and 19% over runs 40-60; its runs fell from about 0.18 s to about 0.05 s between runs 15 and 25, so the later half
        // of twenty runs was partly cold (BENCHMARKS.md, "Forty warm runs")
        @Option(names = "--warm-runs", defaultValue = "40",
                description = "Runs of each DSA VM with every node in this JVM (lu, fft, cg and scopes interleave their VMs, a round running"
                        + " each once); the warm row is the median of the later half, once the JIT compiled DSA and the program."
                        + " 0: none, 1 to " + MAX
                        + " (default: ${DEFAULT-VALUE}; --smoke: 1).")
        int runs;

        /**
         * @return how many untimed runs the sequential Java baseline gets before it is timed: as many as the DSA warm
         *         runs (at least one), so both sides are timed equally warm
         */
        int sequentialWarmUps() { return Math.max(1, runs); }

        /**
         * Times the sequential Java baseline as warm as the DSA warm rows: {@link #sequentialWarmUps} untimed runs, then
         * {@code reps} timed ones.
         *
         * @param run one run, returning its seconds
         * @return the median of the timed runs
         */
        double sequentialMedian(java.util.function.DoubleSupplier run, int reps) {
            for (int w = 0; w < sequentialWarmUps(); w++) run.getAsDouble();
            double[] t = new double[reps];
            for (int r = 0; r < reps; r++) t[r] = run.getAsDouble();
            return BenchOut.median(t);
        }

        /** @throws CommandLine.ParameterException if {@code --warm-runs} is out of range */
        void check(CommandSpec spec) {
            if (runs < 0 || runs > MAX) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--warm-runs " + runs + " out of range [0, " + MAX + "]");
            }
        }

        /**
         * One VM the warm runs time.
         *
         * @param config the VM
         * @param program a new program for each run
         * @param args the program's arguments
         */
        record Case(io.dsa.agent.DsaConfig config, java.util.function.Supplier<io.dsa.DsaProgram> program, java.util.List<String> args) {}

        /**
         * Times several VMs warm, interleaved: round {@code r} runs every case once, in order, before round {@code r + 1}
         * runs any, so that no case is timed warmer than another for having run later in this JVM. Run one after another,
         * the later cases inherited the JIT's work on the earlier ones: LU 2x1 under SPIN took 0.042-0.045 s when it ran
         * after PARK and ADAPTIVE and 0.057-0.062 s when it ran first (BENCHMARKS.md, "ADAPTIVE as SPIN where the workers
         * fit the cores").
         *
         * @param cases the VMs, each run {@link #runs} times
         * @param seconds the figure of one run's report
         * @return each case's median of the later half of its runs, in the order of {@code cases}
         */
        double[] medians(java.util.List<Case> cases, ReportSeconds seconds) throws java.io.IOException {
            String[] names = new String[cases.size()];
            double[][] t = interleaved(cases.size(), runs, c -> {
                io.dsa.DsaProgram p = cases.get(c).program().get();
                names[c] = p.getClass().getSimpleName();
                try (io.dsa.agent.DsaCluster vm = io.dsa.agent.DsaCluster.local(cases.get(c).config())) {
                    return seconds.of(vm.run(p, cases.get(c).args().toArray(new String[0])));
                }
            });
            double[] medians = new double[cases.size()];
            for (int c = 0; c < cases.size(); c++) {
                io.dsa.agent.DsaConfig config = cases.get(c).config();
                System.out.printf(java.util.Locale.ROOT, "warm runs of %s %s (%dx%d %s): %s%n", names[c], cases.get(c).args(), config.nodes(),
                        config.threadsPerNode(), config.waitStrategy(), java.util.Arrays.toString(t[c]));
                medians[c] = laterHalfMedian(t[c]);
            }
            return medians;
        }

        /**
         * Runs {@code runs} rounds of {@code cases} cases, round by round, each case once per round in order.
         *
         * @param run times one run of case {@code c}
         * @return {@code [case][round]} seconds
         */
        static double[][] interleaved(int cases, int runs, CaseRun run) throws java.io.IOException {
            double[][] t = new double[cases][runs];
            for (int r = 0; r < runs; r++) {
                for (int c = 0; c < cases; c++) t[c][r] = run.seconds(c);
            }
            return t;
        }

        /** @return the median of the later half of {@code runs} (all of them for one run) */
        static double laterHalfMedian(double[] runs) {
            return BenchOut.median(java.util.Arrays.copyOfRange(runs, runs.length / 2, runs.length));
        }

        /** One timed run of a case. */
        @FunctionalInterface
        interface CaseRun {
            /** @return the seconds of one run of case {@code c} @throws java.io.IOException if its report has no figure */
            double seconds(int c) throws java.io.IOException;
        }
    }

    /** The figure an experiment reads from a run's report lines. */
    @FunctionalInterface
    interface ReportSeconds {
        /** @throws java.io.IOException when the report holds no such figure */
        double of(io.dsa.agent.RunReport report) throws java.io.IOException;
    }

    /** @return the command line as typed, for the Markdown ("dsa bench miss --sizes 8,16"; arguments with spaces quoted) */
    static String typed(CommandSpec spec) {
        CommandLine.ParseResult root = spec.root().commandLine().getParseResult();
        if (root == null) return "dsa " + spec.qualifiedName();
        // an argument with a space is quoted, so the line can be pasted back into a shell
        return "dsa " + root.originalArgs().stream().map(a -> a.contains(" ") ? "\"" + a + "\"" : a)
                .collect(java.util.stream.Collectors.joining(" "));
    }

    /**
     * @param shapes "NODESxTHREADS" strings, e.g. "2x1"
     * @return {nodes, threads} per shape
     * @throws CommandLine.ParameterException naming a shape that is not of that form
     */
    static java.util.List<int[]> vmShapes(CommandSpec spec, java.util.List<String> shapes) {
        java.util.List<int[]> result = new java.util.ArrayList<>();
        for (String s : shapes) {
            String[] p = s.toLowerCase(java.util.Locale.ROOT).split("x");
            if (p.length != 2 || !p[0].matches("[1-9][0-9]{0,3}") || !p[1].matches("[1-9][0-9]{0,3}")) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--shapes: '" + s + "' is not NODESxTHREADS, e.g. 2x1");
            }
            result.add(new int[] {Integer.parseInt(p[0]), Integer.parseInt(p[1])});
        }
        return result;
    }
}
