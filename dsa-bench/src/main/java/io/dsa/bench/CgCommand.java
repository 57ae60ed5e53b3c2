package io.dsa.bench;

import io.dsa.agent.DsaConfig;
import io.dsa.agent.RunReport;
import io.dsa.agent.WaitStrategy;
import io.dsa.agent.transport.TransportSecurity;
import io.dsa.examples.Cg;
import io.dsa.examples.NpbCg;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code dsa bench cg}: the NAS Parallel Benchmarks' CG ({@link Cg}) on DSA VMs of one JVM per
 * node, beside the sequential Java CG of the same algorithm ({@link NpbCg#run}, in this JVM after
 * as many warm-up runs as {@code --warm-runs}) and the MPI + C CG of the same algorithm ({@code dsa-bench/src/main/c/cg_mpi.c};
 * skipped with a message where {@code mpicc}/{@code mpirun} are missing), all verified against
 * NPB's zeta. Every figure is NPB's benchmark time (the {@code niter} timed iterations, matrix
 * generation excluded), the median of {@code --reps} runs; the warm rows ({@code --warm-runs}, every
 * node in this JVM) interleave their shapes and strategies, a round running each once
 * ({@link BenchCommand.WarmRuns#medians}). With {@code --phases} it also times each
 * phase of the CG step on every node of each VM shape ({@link CgPhases}).
 */
@Command(name = "cg", mixinStandardHelpOptions = true,
        description = "NPB CG on DSA (one JVM per node) beside sequential Java and MPI + C, verified against NPB's zeta.")
final class CgCommand implements Callable<Integer> {
    private static final Pattern TIME = Pattern.compile(" (\\d+) iterations ([0-9.]+) s");

    @Spec
    CommandSpec spec;

    @Mixin
    BenchCommand.Common common = new BenchCommand.Common();

    @Option(names = "--classes", split = ",", paramLabel = "C,..", defaultValue = "S,W",
            description = "NPB classes, of S, W, A (default: ${DEFAULT-VALUE}).")
    List<String> classes;

    @Option(names = "--shapes", split = ",", paramLabel = "NxT,..", defaultValue = "2x1,4x2",
            description = "DSA VM shapes nodes x threads (default: ${DEFAULT-VALUE}).")
    List<String> shapes;

    @Mixin
    MpiPeer.Options peer = new MpiPeer.Options();

    @Mixin
    BenchCommand.Waits waits = new BenchCommand.Waits();

    @Mixin
    BenchCommand.WarmRuns warm = new BenchCommand.WarmRuns();

    @Mixin
    BenchCommand.TuningOptions tuningOptions = new BenchCommand.TuningOptions();

    private ProcessVm.Tuning tuning() { return tuningOptions.tuning(); }

    @Option(names = "--phases", description = "Also time each phase of the CG step on every node (CgPhases: every node in this JVM, as many"
            + " runs as --warm-runs, at least one, the last one summarised): the medians per step and how long after the last arrival"
            + " each node gets each round's release; written to cg-phases.md and .csv.")
    boolean phases;

    static final String CSV_HEADER = "class,kind,wait,nodes,threads,seconds,vs_sequential,load";

    /**
     * One measurement: kind seq, dsa, dsa-warm or mpi; the DSA VM's wait strategy (null otherwise); nodes x
     * threads (ranks x 1 for MPI, 1 x 1 sequential); seconds; vs sequential.
     */
    record Row(String kind, NpbCg.Size size, WaitStrategy strategy, int nodes, int threads, double seconds, double vsSequential,
               double load) {
        String label() {
            return switch (kind) {
                case "seq" -> "sequential Java";
                case "dsa" -> "DSA " + nodes + "x" + threads + " " + strategy;
                case "dsa-warm" -> "DSA " + nodes + "x" + threads + " " + strategy + " warm";
                default -> "MPI + C np=" + nodes;
            };
        }
    }

    @Override
    public Integer call() throws Exception {
        if (common.smoke) { classes = List.of("S"); shapes = List.of("2x1"); peer.reps = 1; peer.mpiNp = List.of(2); warm.runs = 1; }
        if (peer.reps < 1) throw new CommandLine.ParameterException(spec.commandLine(), "--reps: " + peer.reps + " not >= 1");
        warm.check(spec);
        List<NpbCg.Size> sizes = new ArrayList<>();
        for (String c : classes) {
            try {
                sizes.add(NpbCg.Size.parse(c));
            } catch (io.dsa.DsaException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--classes: " + e.getMessage());
            }
        }
        List<int[]> vmShapes = BenchCommand.vmShapes(spec, shapes);
        List<WaitStrategy> strategies = waits.checked(spec, common.smoke);
        List<Row> rows = new ArrayList<>();
        List<PhaseRows> phaseRows = new ArrayList<>();
        Path exe = peer.noMpi ? null : MpiPeer.compile(peer.cSrc.resolve("cg_mpi.c"), common.out);
        for (NpbCg.Size size : sizes) {
            NpbCg.Matrix matrix = NpbCg.makea(size);
            double seq = warm.sequentialMedian(() -> NpbCg.run(size, matrix).check().seconds(), peer.reps);
            rows.add(print(new Row("seq", size, null, 1, 1, seq, 1.0, BarrierBench.loadAverage())));
            List<BenchCommand.WarmRuns.Case> warmCases = new ArrayList<>();
            record WarmAt(int[] shape, WaitStrategy strategy) {}
            List<WarmAt> warmAt = new ArrayList<>();
            for (int[] shape : vmShapes) {
                for (WaitStrategy wait : strategies) {
                    double[] t = new double[peer.reps];
                    for (int r = 0; r < peer.reps; r++) {
                        RunReport report = ProcessVm.run(new Cg(), shape[0], shape[1], List.of(size.name()), common.out,
                                TransportSecurity.ENCRYPT, wait, DsaConfig.DEFAULT_PREFETCH_WINDOW, tuning());
                        t[r] = seconds(report);
                    }
                    double s = BenchOut.median(t);
                    rows.add(print(new Row("dsa", size, wait, shape[0], shape[1], s, s / seq, BarrierBench.loadAverage())));
                    warmCases.add(new BenchCommand.WarmRuns.Case(tuning().apply(DsaConfig.builder()).nodes(shape[0]).threadsPerNode(shape[1])
                            .waitStrategy(wait).build(), Cg::new, List.of(size.name())));
                    warmAt.add(new WarmAt(shape, wait));
                }
            }
            // every shape and strategy warm, interleaved (BenchCommand.WarmRuns#medians): none timed warmer for running later
            if (warm.runs > 0) {
                double[] w = warm.medians(warmCases, CgCommand::seconds);
                for (int c = 0; c < w.length; c++) {
                    int[] shape = warmAt.get(c).shape();
                    rows.add(print(new Row("dsa-warm", size, warmAt.get(c).strategy(), shape[0], shape[1], w[c], w[c] / seq,
                            BarrierBench.loadAverage())));
                }
            }
            if (phases) {
                for (WarmAt at : warmAt) phaseRows.add(phases(size, at.shape(), at.strategy()));
            }
            if (exe != null) {
                for (int np : peer.mpiNp) {
                    double s = mpi(exe, np, size);
                    rows.add(print(new Row("mpi", size, null, np, 1, s, s / seq, BarrierBench.loadAverage())));
                }
            }
        }
        write(rows, sizes, strategies);
        if (phases) writePhases(phaseRows);
        return 0;
    }

    /** One VM's phase summary ({@link CgPhases#summary}): a row per node. */
    record PhaseRows(NpbCg.Size size, int nodes, int threads, WaitStrategy strategy, double[][] rows) {}

    /** Runs {@link CgPhases} on a VM of this shape in this JVM, {@code --warm-runs} times (at least once); @return the last run's summary */
    private PhaseRows phases(NpbCg.Size size, int[] shape, WaitStrategy wait) {
        int runs = Math.max(1, warm.runs);
        String steps = common.smoke ? "40" : "400";
        DsaConfig config = tuning().apply(DsaConfig.builder()).nodes(shape[0]).threadsPerNode(shape[1]).waitStrategy(wait).build();
        for (int r = 0; r < runs; r++) {
            CgPhases.RESULTS.clear();
            try (io.dsa.agent.DsaCluster vm = io.dsa.agent.DsaCluster.local(config)) {
                vm.run(new CgPhases(), size.name(), steps);
            }
        }
        double[][] summary = CgPhases.summary(shape[0], shape[1]);
        PhaseRows p = new PhaseRows(size, shape[0], shape[1], wait, summary);
        System.out.print(phaseHeader() + CgPhases.table(summary, size + " " + shape[0] + "x" + shape[1], wait.toString()));
        return p;
    }

    private static String phaseHeader() {
        StringBuilder h = new StringBuilder("| VM | node |");
        StringBuilder line = new StringBuilder("|---|---:|");
        for (String phase : CgPhases.PHASES) {
            h.append(' ').append(phase).append(" |");
            line.append("---:|");
        }
        h.append(" step |");
        line.append("---:|");
        for (String round : CgPhases.ROUNDS) {
            h.append(" release of ").append(round).append(" after the last arrival |");
            line.append("---:|");
        }
        for (String spread : CgPhases.STEP_SPREAD) {
            h.append(' ').append(spread).append(" |");
            line.append("---:|");
        }
        return h + "\n" + line + "\n";
    }

    private void writePhases(List<PhaseRows> all) throws IOException {
        StringBuilder table = new StringBuilder(phaseHeader());
        List<String> csv = new ArrayList<>();
        Map<String, double[][]> series = new LinkedHashMap<>();
        double[] xs = new double[CgPhases.PHASES.size()];
        for (int x = 0; x < xs.length; x++) xs[x] = x + 1;
        for (PhaseRows p : all) {
            String vm = p.size() + " " + p.nodes() + "x" + p.threads();
            table.append(CgPhases.table(p.rows(), vm, p.strategy().toString()));
            for (int n = 0; n < p.rows().length; n++) {
                StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%s,%d,%d,%s,%d", p.size(), p.nodes(), p.threads(), p.strategy(), n));
                for (double v : p.rows()[n]) line.append(String.format(Locale.ROOT, ",%.1f", v));
                csv.add(line.toString());
                series.put(vm + " " + p.strategy() + " node " + n, new double[][] {xs, java.util.Arrays.copyOf(p.rows()[n], xs.length)});
            }
        }
        StringBuilder header = new StringBuilder("class,nodes,threads,wait,node");
        for (int x = 1; x <= CgPhases.PHASES.size(); x++) header.append(",phase").append(x).append("_us");
        header.append(",step_us,release_pq_us,release_rr_us,release_barrier_us,step_mean_us,step_p90_us,step_max_us");
        BenchOut.csv(common.out, "cg-phases", header.toString(), csv);
        BenchOut.plot(common.out, "cg-phases", "A CG step phase by phase (median per step)", "phase (1-8, in the table's order)",
                "microseconds", false, series);
        String notes = String.format(Locale.ROOT, "- `CgPhases`: the `cg` example's plain CG step (element reads and writes, `allReduce`"
                + " for the dot products, a barrier after `p` is rewritten) with `System.nanoTime()` between its phases, every node"
                + " in this JVM (DsaCluster.local), %d run(s) per VM, the last summarised: per node (its first worker) the median"
                + " microseconds of each phase over the later three quarters of its steps, per round the median time from the"
                + " last worker's arrival to that worker's return, and the mean, 90th percentile and longest whole step over the"
                + " same steps (the sum of the medians leaves out the steps that stall). Not verified (the `cg` rows are).", Math.max(1, warm.runs));
        BenchOut.markdown(common.out, "cg-phases", "A CG step phase by phase", BenchCommand.typed(spec), notes, table.toString(), List.of());
    }

    private static Row print(Row r) {
        System.out.printf(Locale.ROOT, "cg class %s %s: %.4f s (%.2fx sequential)%n", r.size(), r.label(), r.seconds(), r.vsSequential());
        return r;
    }

    /** @return the timed iterations' seconds from the report line (the program failed the job if zeta was not verified) */
    static double seconds(RunReport report) throws IOException {
        for (String line : report.lines()) {
            Matcher m = TIME.matcher(line);
            if (line.contains("(verified)") && m.find()) return Double.parseDouble(m.group(2));
        }
        throw new IOException("no verified CG report line with ' N iterations S s' in " + report.lines());
    }

    /** @return the MPI + C CG's median seconds over {@code --reps} runs inside one mpirun */
    private double mpi(Path exe, int np, NpbCg.Size size) throws Exception {
        return MpiPeer.time(exe, np, List.of(size.name(), Integer.toString(peer.reps)), "CG class " + size);
    }

    private void write(List<Row> rows, List<NpbCg.Size> sizes, List<WaitStrategy> strategies) throws IOException {
        List<String> csv = new ArrayList<>();
        StringBuilder table = new StringBuilder("| class | kind | nodes | threads | seconds | vs sequential Java | load |\n"
                + "|---|---|---:|---:|---:|---:|---:|\n");
        for (Row r : rows) {
            csv.add(String.format(Locale.ROOT, "%s,%s,%s,%d,%d,%.7f,%.3f,%.2f", r.size(), r.kind(), r.strategy() == null ? "" : r.strategy(),
                    r.nodes(), r.threads(), r.seconds(), r.vsSequential(), r.load()));
            table.append(String.format(Locale.ROOT, "| %s | %s | %d | %d | %.4f | %.2fx | %.1f |%n", r.size(), r.label(), r.nodes(),
                    r.threads(), r.seconds(), r.vsSequential(), r.load()));
        }
        BenchOut.csv(common.out, "cg", CSV_HEADER, csv);
        Map<String, double[][]> series = new LinkedHashMap<>();
        for (Row r : rows) {
            series.computeIfAbsent(r.label(), k -> new double[][] {new double[0], new double[0]});
            double[][] s = series.get(r.label());
            s[0] = append(s[0], r.size().na);
            s[1] = append(s[1], r.seconds());
        }
        BenchOut.plot(common.out, "cg", "NPB CG: benchmark time by class", "matrix order na (class S, W, A)", "seconds (median)", true, series);
        List<String> targets = new ArrayList<>();
        for (NpbCg.Size size : sizes) {
            Row seq = find(rows, "seq", size, null, 1, 1);
            for (WaitStrategy wait : strategies) {
                for (String kind : List.of("dsa", "dsa-warm")) {
                    if (kind.equals("dsa-warm") && warm.runs == 0) continue;
                    for (int[] target : new int[][] {{2, 1, 2}, {4, 2, 4}}) {
                        Row dsa = find(rows, kind, size, wait, target[0], target[1]);
                        String what = "class " + size + ", DSA " + target[0] + "x" + target[1] + " " + wait + (kind.equals("dsa") ? "" : " warm")
                                + " vs sequential Java";
                        targets.add(dsa == null ? what + ": not measured in this run"
                                : BenchOut.ratio(what, dsa.seconds() * 1e3, seq.seconds() * 1e3, target[2], "ms"));
                    }
                }
                for (int[] pair : new int[][] {{2, 1, 2}, {4, 2, 4}}) {
                    Row dsa = find(rows, "dsa", size, wait, pair[0], pair[1]);
                    Row mpi = find(rows, "mpi", size, null, pair[2], 1);
                    if (dsa != null && mpi != null) {
                        targets.add(String.format(Locale.ROOT, "class %s, DSA %dx%d %s vs MPI + C np=%d (no target): %.1f / %.1f ms = %.2fx",
                                size, pair[0], pair[1], wait, pair[2], dsa.seconds() * 1e3, mpi.seconds() * 1e3,
                                dsa.seconds() / mpi.seconds()));
                    }
                }
            }
        }
        String notes = String.format(Locale.ROOT, "- NPB's benchmark time (the niter timed iterations after one untimed one; matrix "
                + "generation excluded), every run verified against NPB's zeta (relative error <= 1e-10); medians of %d run(s). "
                + "DSA: `cg` example, one JVM per node, node 0 in the bench JVM; sequential Java: `NpbCg.run` in the bench JVM "
                + "after " + warm.sequentialWarmUps() + " warm-up run(s); DSA warm: every node in the bench JVM (DsaCluster.local), " + warm.runs + " runs in a row, "
                + "the median of the later half; MPI + C: `cg_mpi.c` (the same row blocks, MPI_Allgatherv of p, MPI_Allreduce dot products) "
                + "over loopback TCP. Per outer iteration DSA runs 76 global rounds (collectives and barriers), MPI 78 collectives "
                + "(it gathers p in all 25 steps and z once; DSA reads them through the shared arrays)."
                + tuning().notes(), peer.reps);
        BenchOut.markdown(common.out, "cg", "NAS Parallel Benchmarks CG", BenchCommand.typed(spec), notes, table.toString(), targets);
    }

    private static double[] append(double[] a, double v) {
        double[] b = java.util.Arrays.copyOf(a, a.length + 1);
        b[a.length] = v;
        return b;
    }

    private static Row find(List<Row> rows, String kind, NpbCg.Size size, WaitStrategy strategy, int nodes, int threads) {
        return rows.stream().filter(r -> r.kind().equals(kind) && r.size() == size && r.strategy() == strategy && r.nodes() == nodes
                && r.threads() == threads).findFirst().orElse(null);
    }
}
