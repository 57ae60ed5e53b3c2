package io.dsa.bench;

import io.dsa.bench.fuzz.FuzzTarget;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One coverage-guided fuzzing run of one {@link FuzzTarget}: Jazzer's libFuzzer engine
 * ({@code com.code_intelligence.jazzer.Jazzer}) in a child JVM on this JVM's class path, started
 * from a corpus directory that the run grows, with findings written beside it. A child JVM because
 * Jazzer instruments classes as they load and takes over the process's signal handlers and exit.
 *
 * <p>libFuzzer's status lines ({@code #N pulse cov: C ft: F corp: U/Sb ... exec/s: E}) become
 * progress lines; its final statistics ({@code -print_final_stats=1}) and the files this run added to
 * the findings directory (which keeps earlier runs' findings) become the {@link Result}. The child is ended by its handle if this thread is
 * interrupted.
 */
final class JazzerRun {
    /** libFuzzer's status line, e.g. {@code #65536 pulse  cov: 301 ft: 1102 corp: 120/9034b lim: 4096 exec/s: 21845 rss: 512Mb}. */
    private static final Pattern STATUS = Pattern.compile(
            "^#(\\d+)\\s+\\S+\\s+cov: (\\d+) ft: (\\d+) corp: (\\d+)/(\\S+).*?exec/s: (\\d+)");
    private static final Pattern FINAL = Pattern.compile("^stat::(\\w+):\\s+(\\d+)");
    /**
     * Seconds one input may take before it counts as a hang (libFuzzer's {@code -timeout}). A decode
     * takes microseconds, but the first inputs also load and instrument classes: on a loaded
     * machine that took over 10 s once (a false "timeout" finding); a real hang takes forever.
     */
    static final int TIMEOUT_SECONDS = 60;
    /**
     * A finding libFuzzer wrote: crash-, timeout-, oom- or leak- files. Not its slow-unit- files: an
     * input over 10 s that finished (at load 23 the first input, loading classes, took 44 s once).
     */
    private static final List<String> FINDING_PREFIXES = List.of("crash-", "timeout-", "oom-", "leak-");

    /** What one run did. {@code coverage} and {@code features} are libFuzzer's {@code cov} and {@code ft} at the end. */
    record Result(FuzzTarget target, long inputs, double seconds, long execsPerSecond, int crashes, int leaks,
                  long corpusUnits, long coverage, long features, List<Path> findings, int exitCode) {}

    private JazzerRun() {}

    /**
     * Runs {@code target} until {@code inputs} inputs (0: no limit) or {@code seconds} seconds (0: no
     * limit) have passed, or the first finding.
     *
     * @param work the target's directory: {@code corpus/} (seeded from {@link FuzzTarget#seeds()} when
     *        empty) and {@code findings/}; the child's output goes to {@code jazzer.log}
     * @param progress where progress lines go
     */
    static Result run(FuzzTarget target, long inputs, long seconds, Path work, int nice, String heap, PrintWriter progress)
            throws IOException, InterruptedException {
        Path corpus = Files.createDirectories(work.resolve("corpus"));
        Path findings = Files.createDirectories(work.resolve("findings"));
        List<Path> earlier = listFindings(findings);   // an earlier run's: kept, but not this run's findings
        seed(target, corpus);
        List<String> cmd = new ArrayList<>();
        if (nice != 0) cmd.addAll(List.of("nice", "-n", Integer.toString(nice)));
        cmd.addAll(List.of(ProcessVm.java(), "-Xmx" + heap, "-Xss4m",
                // the harnesses assert buffer release themselves; paranoid detection reports any other buffer's leak
                "-Dio.netty.leakDetection.level=paranoid",
                // a rejected input logs a WARN: millions of them would only slow the run down
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=error",
                "-cp", ProcessVm.classPath(), "com.code_intelligence.jazzer.Jazzer",
                "--target_class=" + target.targetClass().getName(),
                "--instrumentation_includes=io.dsa.**", "--custom_hook_includes=io.dsa.**"));
        cmd.addAll(List.of("-runs=" + (inputs > 0 ? inputs : -1),
                "-timeout=" + TIMEOUT_SECONDS, "-rss_limit_mb=4096", "-print_final_stats=1", "-reload=0",
                "-artifact_prefix=" + findings.toAbsolutePath() + "/"));
        if (seconds > 0) cmd.add("-max_total_time=" + seconds);
        cmd.add(corpus.toAbsolutePath().toString());
        Path log = work.resolve("jazzer.log");
        long start = System.nanoTime();
        ProcessBuilder builder = new ProcessBuilder(cmd).directory(work.toFile()).redirectErrorStream(true);
        // the command line alone configures the engine: a JAZZER_* variable of this process (e.g. the
        // empty JAZZER_FUZZ the build sets for its fuzz tests) would override it or be refused
        builder.environment().keySet().removeIf(k -> k.startsWith("JAZZER_"));
        Process child = builder.start();
        long lastInputs = 0, execs = 0, units = 0, cov = 0, ft = 0, finalExecs = -1, finalRate = -1;
        int leaks = 0;
        long nextProgressNs = start;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
             PrintWriter logOut = new PrintWriter(Files.newBufferedWriter(log), true)) {   // line by line: tail -f works
            logOut.println(String.join(" ", cmd));
            for (String line; (line = out.readLine()) != null; ) {
                logOut.println(line);
                if (line.contains("LEAK: ")) leaks++;
                Matcher m = STATUS.matcher(line);
                if (m.find()) {
                    lastInputs = Long.parseLong(m.group(1));
                    cov = Long.parseLong(m.group(2));
                    ft = Long.parseLong(m.group(3));
                    units = Long.parseLong(m.group(4));
                    execs = Long.parseLong(m.group(6));
                    long now = System.nanoTime();
                    if (now >= nextProgressNs) {
                        progress.printf(Locale.ROOT, "%-16s %,13d inputs  %7.1f s  %,9d execs/s  cov %d  corpus %d%n",
                                target.id(), lastInputs, (now - start) / 1e9, execs, cov, units);
                        progress.flush();
                        nextProgressNs = now + TimeUnit.SECONDS.toNanos(10);
                    }
                    continue;
                }
                Matcher f = FINAL.matcher(line);
                if (f.find()) {
                    if (f.group(1).equals("number_of_executed_units")) finalExecs = Long.parseLong(f.group(2));
                    if (f.group(1).equals("average_exec_per_sec")) finalRate = Long.parseLong(f.group(2));
                }
            }
            child.waitFor();
        } finally {
            if (child.isAlive()) {
                child.destroyForcibly();
                child.waitFor(10, TimeUnit.SECONDS);
            }
        }
        double secs = (System.nanoTime() - start) / 1e9;
        List<Path> found = listFindings(findings).stream().filter(p -> !earlier.contains(p)).toList();
        long done = finalExecs >= 0 ? finalExecs : lastInputs;
        // libFuzzer's average is 0 for a run shorter than a second: then count the whole child's time
        long rate = finalRate > 0 ? finalRate : secs > 0 ? Math.round(done / secs) : 0;
        return new Result(target, done, secs, rate, found.size(), leaks, units, cov, ft, found,
                child.exitValue());
    }

    /** @return the findings in {@code dir}, by name */
    private static List<Path> listFindings(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> FINDING_PREFIXES.stream().anyMatch(p.getFileName().toString()::startsWith)).sorted().toList();
        }
    }

    /** Writes the target's seeds into an empty corpus directory. */
    private static void seed(FuzzTarget target, Path corpus) throws IOException {
        try (Stream<Path> files = Files.list(corpus)) {
            if (files.findAny().isPresent()) return;
        }
        target.writeSeeds(corpus);
    }
}
