package io.dsa.bench;

import io.dsa.bench.fuzz.FuzzTarget;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dsa bench fuzz}: coverage-guided fuzzing of every decoder that reads bytes from outside a
 * node ({@link FuzzTarget}), one target after the other, each in a child JVM running Jazzer
 * ({@link JazzerRun}); writes {@code fuzz.csv}, {@code fuzz.png} (execs/s) and {@code fuzz.md} (target, inputs, time, execs/s,
 * findings, corpus, coverage) to {@code --out}. Exit code 0 when no target found anything, 1 otherwise.
 */
@Command(name = "fuzz", mixinStandardHelpOptions = true,
        description = {"Fuzzes every decoder that reads bytes from outside a node (the record layer and the frames behind it,"
                + " frames before the handshake, message bodies, the handshake, host messages and replies, supervision messages,"
                + " the monitor's messages, job descriptions, agent state) with Jazzer, one target at a time in a child JVM,"
                + " and writes fuzz.csv and fuzz.md.",
            "A finding (crash, hang, leak, over-allocation) stops that target; its input is in WORK/TARGET/findings/ and"
                + " docs/fuzzing.md says how to reproduce it. The corpus in WORK/TARGET/corpus/ grows from run to run."})
final class FuzzCommand implements Callable<Integer> {
    /** Inputs per target of a full run, as issue 11 asks. */
    static final long DEFAULT_INPUTS = 10_000_000;
    /** Inputs per target of {@code --smoke}. */
    static final long SMOKE_INPUTS = 2_000;

    @Spec
    CommandSpec spec;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "docs/bench",
            description = "Where fuzz.csv and fuzz.md go (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--work", paramLabel = "DIR", defaultValue = "fuzz-work",
            description = "Corpus, findings and Jazzer's log per target (default: ${DEFAULT-VALUE}).")
    Path work;

    @Option(names = "--targets", paramLabel = "ID[,ID...]", split = ",",
            description = "The targets to run (default: all): ${COMPLETION-CANDIDATES}.",
            completionCandidates = TargetIds.class)
    List<String> targets = new ArrayList<>();

    @Option(names = "--inputs", paramLabel = "N", defaultValue = "" + DEFAULT_INPUTS,
            description = "Inputs per target; 0 for no limit (default: ${DEFAULT-VALUE}).")
    long inputs;

    @Option(names = "--seconds", paramLabel = "S", defaultValue = "0",
            description = "Time limit per target in seconds; 0 for none (default). With --inputs, whichever comes first.")
    long seconds;

    @Option(names = "--nice", paramLabel = "N", defaultValue = "0",
            description = "Run the fuzzing JVMs under 'nice -n N' (e.g. 19 on a shared machine; default: ${DEFAULT-VALUE}).")
    int nice;

    @Option(names = "--heap", paramLabel = "SIZE", defaultValue = "1g",
            description = "Heap of each fuzzing JVM, as -Xmx takes it (default: ${DEFAULT-VALUE}).")
    String heap;

    @Option(names = "--smoke", description = "A tiny run (" + SMOKE_INPUTS + " inputs per target; the test suite's smoke run).")
    boolean smoke;

    @Override
    public Integer call() throws IOException, InterruptedException {
        List<FuzzTarget> chosen = new ArrayList<>();
        try {
            for (String id : targets) chosen.add(FuzzTarget.byId(id));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--targets: " + e.getMessage());
        }
        if (chosen.isEmpty()) chosen.addAll(Arrays.asList(FuzzTarget.values()));
        if (inputs < 0 || seconds < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--inputs " + inputs + " and --seconds " + seconds
                    + " must be >= 0");
        }
        if (nice < -20 || nice > 19) throw new CommandLine.ParameterException(spec.commandLine(), "--nice " + nice + " out of range [-20, 19]");
        long n = smoke ? SMOKE_INPUTS : inputs;
        PrintWriter progress = spec.commandLine().getOut();
        List<JazzerRun.Result> results = new ArrayList<>();
        for (FuzzTarget t : chosen) {
            progress.printf(Locale.ROOT, "%s: %s, %s%n", t.id(), t.targetClass().getName(),
                    (n > 0 ? String.format(Locale.ROOT, "%,d inputs", n) : "no input limit") + (seconds > 0 ? ", " + seconds + " s at most" : ""));
            progress.flush();
            JazzerRun.Result r = JazzerRun.run(t, n, seconds, work.resolve(t.id()), nice, heap, progress);
            results.add(r);
            if (r.exitCode() != 0 && r.findings().isEmpty()) {
                // no finding yet a failure: the engine did not run (class path, JVM options); show why
                List<String> log = Files.readAllLines(work.resolve(t.id()).resolve("jazzer.log"));
                progress.println(t.id() + ": Jazzer exited with " + r.exitCode() + "; the end of " + work.resolve(t.id()).resolve("jazzer.log") + ":");
                log.subList(Math.max(0, log.size() - 15), log.size()).forEach(progress::println);
            }
            progress.printf(Locale.ROOT, "%s: %,d inputs in %.1f s, %,d execs/s, %d finding(s)%s%n", t.id(), r.inputs(), r.seconds(),
                    r.execsPerSecond(), r.crashes() + r.leaks(), r.findings().isEmpty() ? "" : ": " + r.findings());
            progress.flush();
        }
        write(results);
        progress.println("wrote " + out.resolve("fuzz.md"));
        progress.flush();
        return results.stream().allMatch(r -> r.crashes() == 0 && r.leaks() == 0 && r.exitCode() == 0) ? 0 : 1;
    }

    private void write(List<JazzerRun.Result> results) throws IOException {
        Files.createDirectories(out);
        List<String> rows = new ArrayList<>();
        StringBuilder table = new StringBuilder(
                "| target | decoder | inputs | time (s) | execs/s | findings | corpus (inputs) | coverage (edges) | features |\n"
                        + "|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (JazzerRun.Result r : results) {
            rows.add(String.format(Locale.ROOT, "%s,%d,%.1f,%d,%d,%d,%d,%d,%d", r.target().id(), r.inputs(), r.seconds(),
                    r.execsPerSecond(), r.crashes(), r.leaks(), r.corpusUnits(), r.coverage(), r.features()));
            table.append(String.format(Locale.ROOT, "| %s | `%s` | %,d | %.0f | %,d | %d | %d | %d | %d |%n", r.target().id(),
                    r.target().targetClass().getSimpleName(), r.inputs(), r.seconds(), r.execsPerSecond(),
                    r.crashes() + r.leaks(), r.corpusUnits(), r.coverage(), r.features()));
        }
        BenchOut.csv(out, "fuzz", "target,inputs,seconds,execs_per_s,crashes,leaks,corpus_units,coverage,features", rows);
        plot(results);
        String notes = "- Engine: Jazzer (libFuzzer; version pinned by jazzer.version in pom.xml), one child JVM per target (-Xmx" + heap
                + (nice != 0 ? ", nice " + nice : "") + "), instrumentation of io.dsa.** only\n"
                + "- Findings: crashes, hangs (-timeout=" + JazzerRun.TIMEOUT_SECONDS + " s per input), out-of-memory, allocations over the harness's bound"
                + " and Netty leak reports; 0 everywhere means none\n"
                + "- Coverage: libFuzzer's edges (cov) and features (ft) in the instrumented classes; corpus: inputs kept"
                + " because they reached new coverage (seeded from real frames)";
        BenchOut.markdown(out, "fuzz", "Fuzzing the decoders that read bytes from outside", BenchCommand.typed(spec), notes,
                table.toString(), List.of());
    }

    /** fuzz.png: execs/s per target. */
    private void plot(List<JazzerRun.Result> results) throws IOException {
        CategoryChart chart = new CategoryChartBuilder().width(900).height(500).title("Fuzzing throughput per target")
                .yAxisTitle("execs/s").build();
        chart.getStyler().setLegendVisible(false);
        chart.addSeries("execs/s", results.stream().map(r -> r.target().id()).toList(),
                results.stream().map(r -> (Number) r.execsPerSecond()).toList());
        BitmapEncoder.saveBitmap(chart, out.resolve("fuzz.png").toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    /** The target ids, for --help. */
    static final class TargetIds extends ArrayList<String> {
        TargetIds() { super(Arrays.stream(FuzzTarget.values()).map(FuzzTarget::id).toList()); }
    }
}
