package io.dsa.bench;

import io.dsa.agent.checkpoint.CheckpointStore;
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
import java.util.concurrent.CompletableFuture;
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
    private static final Pattern CHECKPOINT = Pattern.compile("checkpoint at epoch \\d+: (\\d+) bytes in \\S+, ([0-9.]+) ms paused, ([0-9.]+) ms to commit");
    private static final Pattern RECOVERED = Pattern.compile("recovered: the VM formed again and resumes at epoch (\\d+), ([0-9.]+) ms");
    /** Longest wait for the first complete checkpoint of a run whose node is to be killed. */
    private static final long FIRST_CHECKPOINT_TIMEOUT_MS = 600_000;

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

    @Option(names = "--kill-node", paramLabel = "K", defaultValue = "0",
            description = "Also run, each rep, a third kind: with checkpoints, and node K's process killed (SIGKILL, by PID) right"
                    + " after the first complete checkpoint; the run must restart from it and end verified; from 1 to nodes - 1;"
                    + " 0: no such run (default: ${DEFAULT-VALUE}).")
    int killNode;

    @Option(names = "--unforced",
            description = "Also run, each rep, with checkpoints not forced to disk (`dsa run --no-checkpoint-sync`: written and"
                    + " renamed, no fsync), beside the default ones (every file forced before the checkpoint is complete).")
    boolean unforced;

    /** How a run went: plain, with checkpoints (forced to disk or not), or with checkpoints and a node killed after the first one. */
    enum Kind {
        NONE, CHECKPOINTS, UNFORCED, KILLED;

        String describe(long every, int node) {
            return switch (this) {
                case NONE -> "none";
                case CHECKPOINTS -> "every " + every;
                case UNFORCED -> "every " + every + ", not forced to disk";
                case KILLED -> "every " + every + ", node " + node + " killed";
            };
        }
    }

    /**
     * One run: its kind, node 0's run time (of the last attempt, after a restart), its checkpoints'
     * pauses and bytes, for a killed node the time from the failure's verdict until the VM had formed
     * again from the checkpoint (NaN otherwise), and the whole command's wall time (VM startups and
     * the restart included).
     */
    record Row(int rep, Kind kind, double runMs, int count, double medianPauseMs, long bytes, double recoveryMs, double wallMs,
               double medianCommitMs) {
        boolean checkpoints() { return kind != Kind.NONE; }
    }

    @Override
    public Integer call() throws Exception {
        if (common.smoke) {
            nodes = 2; threads = 1; n = 64; every = 10; reps = 1;
            iterations = killNode > 0 ? 150 : 60;   // a killed run must still be running after its first checkpoint
        }
        if (reps < 1 || every < 1 || iterations < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--reps " + reps + ", --every " + every + ", --iterations "
                    + iterations + ": each must be at least 1");
        }
        if (killNode != 0 && (killNode < 1 || killNode >= nodes)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--kill-node " + killNode + " out of range [1, " + (nodes - 1)
                    + "] (node 0 is this process), or 0 for none");
        }
        Files.createDirectories(common.out);
        List<Row> rows = new ArrayList<>();
        for (int rep = 0; rep < reps; rep++) {
            List<Kind> kinds = new ArrayList<>(List.of(Kind.NONE, Kind.CHECKPOINTS));
            if (unforced) kinds.add(Kind.UNFORCED);
            if (rep % 2 == 1) java.util.Collections.reverse(kinds);
            if (killNode > 0) kinds.add(Kind.KILLED);
            for (Kind kind : kinds) rows.add(run(rep, kind));
        }
        write(rows);
        return 0;
    }

    private Row run(int rep, Kind kind) throws Exception {
        Path dir = common.out.resolve(switch (kind) {
            case KILLED -> "killed-";
            case UNFORCED -> "unforced-";
            default -> "checkpoints-";
        } + rep);
        List<String> args = new ArrayList<>(List.of("run", "--nodes", Integer.toString(nodes), "--threads", Integer.toString(threads),
                "--timeout", "86400"));
        if (kind != Kind.NONE) args.addAll(List.of("--checkpoint-every", Long.toString(every), "--checkpoint-dir", dir.toString()));
        if (kind == Kind.UNFORCED) args.add("--no-checkpoint-sync");
        args.addAll(List.of("jacobi", Integer.toString(n), Integer.toString(iterations)));
        StringWriter out = new StringWriter();
        CommandLine cli = DsaCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(out, true));
        int code;
        long startNs = System.nanoTime();
        if (kind == Kind.KILLED) {
            CompletableFuture<Integer> running = CompletableFuture.supplyAsync(() -> cli.execute(args.toArray(new String[0])));
            killAfterFirstCheckpoint(dir, running, args);
            code = running.get();
        } else {
            code = cli.execute(args.toArray(new String[0]));
        }
        double wallMs = (System.nanoTime() - startNs) / 1e6;
        String text = out.toString();
        Matcher run = RUN.matcher(text);
        if (code != 0 || !text.contains("result: OK") || !run.find()) {
            throw new IllegalStateException("dsa " + String.join(" ", args) + " failed (exit " + code + "):\n" + text);
        }
        double recovery = Double.NaN;
        if (kind == Kind.KILLED) {
            Matcher recovered = RECOVERED.matcher(text);
            if (!recovered.find()) throw new IllegalStateException("dsa " + String.join(" ", args) + " did not restart:\n" + text);
            recovery = Double.parseDouble(recovered.group(2));
        }
        List<Double> pauses = new ArrayList<>();
        List<Double> commits = new ArrayList<>();
        long bytes = 0;
        for (Matcher m = CHECKPOINT.matcher(text); m.find(); ) {
            bytes = Long.parseLong(m.group(1));
            pauses.add(Double.parseDouble(m.group(2)));
            commits.add(Double.parseDouble(m.group(3)));
        }
        double pause = pauses.isEmpty() ? Double.NaN : BenchOut.median(pauses.stream().mapToDouble(Double::doubleValue).toArray());
        double commit = commits.isEmpty() ? Double.NaN : BenchOut.median(commits.stream().mapToDouble(Double::doubleValue).toArray());
        Row row = new Row(rep, kind, Double.parseDouble(run.group(1)), pauses.size(), pause, bytes, recovery, wallMs, commit);
        System.out.printf(Locale.ROOT, "checkpoint rep %d %s: run %.1f ms (wall %.1f ms), %d checkpoints, median pause %s ms (%s ms to"
                + " commit), %d bytes each%s%n", rep, kind.describe(every, killNode), row.runMs(), wallMs, row.count(), BenchOut.f(pause),
                BenchOut.f(commit), bytes,
                kind == Kind.KILLED ? ", recovered " + BenchOut.f(recovery) + " ms after the verdict" : "");
        return row;
    }

    /** Waits for the first complete checkpoint in {@code dir}, then kills node {@link #killNode}'s process by its PID. */
    private void killAfterFirstCheckpoint(Path dir, CompletableFuture<Integer> running, List<String> args) throws InterruptedException {
        long deadline = System.nanoTime() + FIRST_CHECKPOINT_TIMEOUT_MS * 1_000_000;
        while (!running.isDone() && !CheckpointStore.anyComplete(dir)) {
            if (System.nanoTime() > deadline) throw new IllegalStateException("no complete checkpoint in " + dir + " within "
                    + FIRST_CHECKPOINT_TIMEOUT_MS + " ms");
            Thread.sleep(5); // polls the file system: nothing to wait on
        }
        if (running.isDone()) {
            throw new IllegalStateException("dsa " + String.join(" ", args) + " ended before its first checkpoint: use more --iterations");
        }
        ProcessHandle node = ProcessHandle.current().children().filter(p -> isNode(p, killNode)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no process of node " + killNode + " among this process's children"));
        node.destroyForcibly();
        System.out.printf(Locale.ROOT, "checkpoint: killed node %d (pid %d) after the first checkpoint%n", killNode, node.pid());
    }

    /** @return whether {@code p} is the {@code dsa node --node K} process of node {@code k}, by its command line in /proc */
    private static boolean isNode(ProcessHandle p, int k) {
        try {
            List<String> cmd = List.of(Files.readString(Path.of("/proc", Long.toString(p.pid()), "cmdline")).split("\0"));
            int at = cmd.indexOf("--node");
            return p.isAlive() && cmd.contains("node") && at >= 0 && at + 1 < cmd.size() && cmd.get(at + 1).equals(Integer.toString(k));
        } catch (java.io.IOException e) {
            return false; // it ended meanwhile
        }
    }

    private void write(List<Row> rows) throws Exception {
        List<String> csv = new ArrayList<>();
        StringBuilder table = new StringBuilder("| rep | checkpoints | run ms | checkpoints taken | median pause ms | median ms to commit"
                + " | bytes per checkpoint | recovery ms | wall ms |\n").append("|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Row r : rows) {
            csv.add(String.format(Locale.ROOT, "%d,%s,%.3f,%d,%s,%d,%s,%s,%.3f,%s,%s", r.rep(), r.checkpoints(), r.runMs(), r.count(),
                    BenchOut.f(r.medianPauseMs()), r.bytes(), r.kind() == Kind.KILLED, BenchOut.f(r.recoveryMs()), r.wallMs(),
                    BenchOut.f(r.medianCommitMs()), r.kind() == Kind.NONE ? "" : r.kind() != Kind.UNFORCED));
            table.append(String.format(Locale.ROOT, "| %d | %s | %.1f | %d | %s | %s | %d | %s | %.1f |%n", r.rep(),
                    r.kind().describe(every, killNode), r.runMs(), r.count(), BenchOut.f(r.medianPauseMs()), BenchOut.f(r.medianCommitMs()),
                    r.bytes(), BenchOut.f(r.recoveryMs()), r.wallMs()));
        }
        BenchOut.csv(common.out, "checkpoint", "rep,checkpoints,run_ms,count,median_pause_ms,bytes,killed,recovery_ms,wall_ms,median_commit_ms,"
                + "forced",
                csv);
        double without = BenchOut.median(rows.stream().filter(r -> r.kind() == Kind.NONE).mapToDouble(Row::runMs).toArray());
        double with = BenchOut.median(rows.stream().filter(r -> r.kind() == Kind.CHECKPOINTS).mapToDouble(Row::runMs).toArray());
        Map<String, double[][]> series = new LinkedHashMap<>();
        for (Kind k : Kind.values()) {
            List<Row> kind = rows.stream().filter(r -> r.kind() == k).toList();
            if (kind.isEmpty()) continue;
            series.put(k == Kind.NONE ? "no checkpoints" : "checkpoints " + k.describe(every, killNode), new double[][] {
                kind.stream().mapToDouble(Row::rep).toArray(), kind.stream().mapToDouble(Row::runMs).toArray()});
        }
        BenchOut.plot(common.out, "checkpoint", "Jacobi run time with and without checkpoints", "rep", "run ms", false, series);
        String notes = String.format(Locale.ROOT, "- Jacobi %dx%d, %d iterations, %d nodes x %d threads, one process per node (`dsa run`);"
                + " runs with and without `--checkpoint-every %d` alternate; run ms is node 0's `run:` line (after a restart: of the"
                + " restarted VM only); wall ms is the whole `dsa run` (VM startups and any restart included); the pause of a"
                + " checkpoint is from its safe point to the release (its progress line: every node's state copied in memory; the"
                + " files are written and forced to disk after the release, while the workers run (not forced in the runs 'not"
                + " forced to disk', `--no-checkpoint-sync`), until the checkpoint is committed:"
                + " the time to commit, from the same safe point); the sum of the pauses is the workers' wait, a lower bound of the"
                + " overhead when runs are too noisy to tell apart", n, n, iterations, nodes, threads, every);
        double pauses = BenchOut.median(rows.stream().filter(r -> r.kind() == Kind.CHECKPOINTS)
                .mapToDouble(r -> r.count() * r.medianPauseMs()).toArray());
        List<String> targets = new ArrayList<>(List.of(BenchOut.ratio("median run with checkpoints vs without (overhead)", with, without, 1.10,
                "ms"), String.format(Locale.ROOT, "checkpoints x median pause: %.1f ms, %.1f%% of the median run with checkpoints",
                pauses, 100 * pauses / with)));
        if (unforced) {
            double withUnforced = BenchOut.median(rows.stream().filter(r -> r.kind() == Kind.UNFORCED).mapToDouble(Row::runMs).toArray());
            targets.add(BenchOut.ratio("median run with checkpoints not forced to disk (--no-checkpoint-sync) vs without", withUnforced,
                    without, 1.10, "ms"));
        }
        if (killNode > 0) {
            double killed = BenchOut.median(rows.stream().filter(r -> r.kind() == Kind.KILLED).mapToDouble(Row::wallMs).toArray());
            double withWall = BenchOut.median(rows.stream().filter(r -> r.kind() == Kind.CHECKPOINTS).mapToDouble(Row::wallMs).toArray());
            double recovery = BenchOut.median(rows.stream().filter(r -> r.kind() == Kind.KILLED).mapToDouble(Row::recoveryMs).toArray());
            targets.add(String.format(Locale.ROOT, "node %d killed after the first checkpoint: every such run restarted from it and ended"
                    + " verified bitwise against the sequential iteration; median wall time %.1f ms (%.2fx the run with checkpoints),"
                    + " median recovery %.1f ms from the failure's verdict to the VM formed again", killNode, killed, killed / withWall,
                    recovery));
        }
        BenchOut.markdown(common.out, "checkpoint", "Checkpoint overhead (issue 14)", BenchCommand.typed(spec), notes, table.toString(),
                targets);
    }
}
