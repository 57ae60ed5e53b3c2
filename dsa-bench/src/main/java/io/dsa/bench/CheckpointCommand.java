package io.dsa.bench;

import io.dsa.agent.cli.DsaCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
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
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dsa bench checkpoint} (issue 14): the cost of checkpoints. Runs Jacobi with
 * {@code dsa run} (one process per node) without and with {@code --checkpoint-every}, alternating,
 * and compares node 0's {@code run:} time; each checkpoint's own pause (safe point to release,
 * from its progress line) and size are reported too. Every run must end {@code result: OK}
 * (Jacobi checks itself bitwise against the sequential iteration).
 */
@Command(name = "checkpoint", mixinStandardHelpOptions = true,
        description = "Checkpoint overhead: Jacobi with and without --checkpoint-every, one process per node (issue 14).")
final class CheckpointCommand implements Callable<Integer> {
    private static final Pattern RUN = Pattern.compile("(?m)^run: ([0-9.]+) ms$");
    private static final Pattern CHECKPOINT = Pattern.compile("checkpoint at epoch \\d+: (\\d+) bytes in \\S+, ([0-9.]+) ms");

    @Spec
    CommandSpec spec;

    @Mixin
    BenchCommand.Common common = new BenchCommand.Common();

    @Option(names = "--nodes", defaultValue = "4", description = "Nodes (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--threads", defaultValue = "2", description = "Threads per node (default: ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--n", defaultValue = "1024", description = "Jacobi grid side (default: ${DEFAULT-VALUE}).")
    int n;

    @Option(names = "--iterations", defaultValue = "10000", description = "Jacobi iterations (default: ${DEFAULT-VALUE}).")
    int iterations;

    @Option(names = "--every", defaultValue = "100", description = "Global barriers between checkpoints (default: ${DEFAULT-VALUE}).")
    long every;

    @Option(names = "--reps", defaultValue = "3", description = "Runs of each kind, alternating (default: ${DEFAULT-VALUE}).")
    int reps;

    /** One run: with or without checkpoints, its run time, and its checkpoints' pauses and bytes. */
    record Row(int rep, boolean checkpoints, double runMs, int count, double medianPauseMs, long bytes) {}

    @Override
    public Integer call() throws Exception {
        if (common.smoke) { nodes = 2; threads = 1; n = 64; iterations = 60; every = 20; reps = 1; }
        if (reps < 1 || every < 1 || iterations < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--reps " + reps + ", --every " + every + ", --iterations "
                    + iterations + ": each must be at least 1");
        }
        Files.createDirectories(common.out);
        List<Row> rows = new ArrayList<>();
        for (int rep = 0; rep < reps; rep++) {
            for (boolean with : rep % 2 == 0 ? new boolean[] {false, true} : new boolean[] {true, false}) rows.add(run(rep, with));
        }
        write(rows);
        return 0;
    }

    private Row run(int rep, boolean withCheckpoints) throws Exception {
        Path dir = common.out.resolve("checkpoints-" + rep);
        List<String> args = new ArrayList<>(List.of("run", "--nodes", Integer.toString(nodes), "--threads", Integer.toString(threads),
                "--timeout", "86400"));
        if (withCheckpoints) args.addAll(List.of("--checkpoint-every", Long.toString(every), "--checkpoint-dir", dir.toString()));
        args.addAll(List.of("jacobi", Integer.toString(n), Integer.toString(iterations)));
        StringWriter out = new StringWriter();
        CommandLine cli = DsaCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(out, true));
        int code = cli.execute(args.toArray(new String[0]));
        String text = out.toString();
        Matcher run = RUN.matcher(text);
        if (code != 0 || !text.contains("result: OK") || !run.find()) {
            throw new IllegalStateException("dsa " + String.join(" ", args) + " failed (exit " + code + "):\n" + text);
        }
        List<Double> pauses = new ArrayList<>();
        long bytes = 0;
        for (Matcher m = CHECKPOINT.matcher(text); m.find(); ) {
            bytes = Long.parseLong(m.group(1));
            pauses.add(Double.parseDouble(m.group(2)));
        }
        double pause = pauses.isEmpty() ? Double.NaN : BenchOut.median(pauses.stream().mapToDouble(Double::doubleValue).toArray());
        Row row = new Row(rep, withCheckpoints, Double.parseDouble(run.group(1)), pauses.size(), pause, bytes);
        System.out.printf(Locale.ROOT, "checkpoint rep %d %s: run %.1f ms, %d checkpoints, median pause %s ms, %d bytes each%n", rep,
                withCheckpoints ? "with" : "without", row.runMs(), row.count(), BenchOut.f(pause), bytes);
        return row;
    }

    private void write(List<Row> rows) throws Exception {
        List<String> csv = new ArrayList<>();
        StringBuilder table = new StringBuilder("| rep | checkpoints | run ms | checkpoints taken | median pause ms | bytes per checkpoint |\n")
                .append("|---:|---|---:|---:|---:|---:|\n");
        for (Row r : rows) {
            csv.add(String.format(Locale.ROOT, "%d,%s,%.3f,%d,%s,%d", r.rep(), r.checkpoints(), r.runMs(), r.count(), BenchOut.f(r.medianPauseMs()),
                    r.bytes()));
            table.append(String.format(Locale.ROOT, "| %d | %s | %.1f | %d | %s | %d |%n", r.rep(), r.checkpoints() ? "every " + every : "none",
                    r.runMs(), r.count(), BenchOut.f(r.medianPauseMs()), r.bytes()));
        }
        BenchOut.csv(common.out, "checkpoint", "rep,checkpoints,run_ms,count,median_pause_ms,bytes", csv);
        double without = BenchOut.median(rows.stream().filter(r -> !r.checkpoints()).mapToDouble(Row::runMs).toArray());
        double with = BenchOut.median(rows.stream().filter(Row::checkpoints).mapToDouble(Row::runMs).toArray());
        Map<String, double[][]> series = new LinkedHashMap<>();
        for (boolean c : new boolean[] {false, true}) {
            List<Row> kind = rows.stream().filter(r -> r.checkpoints() == c).toList();
            series.put(c ? "checkpoints every " + every : "no checkpoints", new double[][] {
                kind.stream().mapToDouble(Row::rep).toArray(), kind.stream().mapToDouble(Row::runMs).toArray()});
        }
        BenchOut.plot(common.out, "checkpoint", "Jacobi run time with and without checkpoints", "rep", "run ms", false, series);
        String notes = String.format(Locale.ROOT, "- Jacobi %dx%d, %d iterations, %d nodes x %d threads, one process per node (`dsa run`);"
                + " runs with and without `--checkpoint-every %d` alternate; run ms is node 0's `run:` line; the pause of a checkpoint is"
                + " from its safe point to the release (its progress line), every file forced to disk", n, n, iterations, nodes, threads, every);
        List<String> targets = List.of(BenchOut.ratio("median run with checkpoints vs without (overhead)", with, without, 1.10, "ms"));
        BenchOut.markdown(common.out, "checkpoint", "Checkpoint overhead (issue 14)", BenchCommand.typed(spec), notes, table.toString(),
                targets);
    }
}
