package io.dsa.bench;

import io.dsa.agent.BarrierKind;
import io.dsa.agent.DsaAgent;
import io.dsa.agent.DsaCluster;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.ProxyMode;
import io.dsa.agent.WaitStrategy;
import io.dsa.agent.RunReport;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * The barrier macro benchmark (paper Sec. 4.4, Fig. 11): global barrier latency, and with
 * {@code --ops barrier,allreduce} the one-value {@code allReduce}'s in the same VM runs, for every
 * nodes x threads x barrier kind x proxy mode x wait strategy, each node its own JVM (node 0 in this process),
 * with MPI_Barrier over TCP loopback measured in the same run as the peer (issue 12's target for both
 * operations: 4 x 2 within 4x {@code MPI_Barrier} np=4). Writes
 * {@code barrier.csv}, {@code barrier.png} and {@code barrier.md} to the output directory.
 */
public final class BarrierBench {
    static final String USAGE = String.join("\n",
            "usage: java -cp dsa-bench/target/benchmarks.jar io.dsa.bench.BarrierBench [options]",
            "  --nodes LIST      node counts, e.g. 1,2,3,4 (default 1,2,3,4)",
            "  --threads LIST    threads per node (default 1,2,3,4)",
            "  --kinds LIST      barrier kinds (default TREE,KARY,CENTRAL)",
            "  --proxies LIST    proxy modes (default FLOAT,FIXED)",
            "  --waits LIST      wait strategies (default PARK,SPIN,ADAPTIVE)",
            "  --lanes LIST      barrier lanes on, off, or on,off (default on; only TREE/FLOAT uses them)",
            "  --warmup N        at least N warm-up barriers (default 200)",
            "  --warmup-ms MS    and at least MS milliseconds of warm-up (default 4000)",
            "  --ops LIST        what is timed: barrier, allreduce (one double, SUM), or both (default barrier)",
            "  --iters N         timed operations per repetition (default 100)",
            "  --reps N          repetitions; median and p90 are over them (default 7)",
            "  --in-process      all nodes in this JVM (quick), instead of one process per node",
            "  --no-mpi          skip the MPI_Barrier peer",
            "  --mpi-src FILE    mpi_barrier.c (default dsa-bench/src/main/c/mpi_barrier.c)",
            "  --out DIR         output directory (default bench-results)",
            "  --smoke           tiny run: nodes 1,2 x threads 2, TREE/FLOAT/ADAPTIVE, both ops, few iterations",
            "  --help            this text");

    List<Integer> nodes = List.of(1, 2, 3, 4);
    List<Integer> threads = List.of(1, 2, 3, 4);
    List<BarrierKind> kinds = List.of(BarrierKind.TREE, BarrierKind.KARY, BarrierKind.CENTRAL);
    List<ProxyMode> proxies = List.of(ProxyMode.FLOAT, ProxyMode.FIXED);
    List<WaitStrategy> waits = List.of(WaitStrategy.PARK, WaitStrategy.SPIN, WaitStrategy.ADAPTIVE);
    // 4 s of warm-up: with one JVM per node, 4 nodes on 2 cores compile for seconds; after 1 s the
    // 4x2 TREE median was 1.2-2.6 ms, after 4 s 0.36-0.57 ms (2026-11-25, docs/bench/macro/barrier.md)
    int warmup = 200, warmupMs = 4000, iters = 100, reps = 7;
    boolean inProcess, mpi = true;
    List<Boolean> laneModes = List.of(true);
    /** The operations timed in each VM run ({@link BarrierProgram#OPS}). */
    List<String> ops = List.of("barrier");
    /** Whether the configuration being measured uses barrier lanes. */
    boolean lanes = true;
    Path mpiSrc = Path.of("dsa-bench/src/main/c/mpi_barrier.c");
    Path out = Path.of("bench-results");
    String command;

    /**
     * One measured configuration; {@code mpiUs} is MPI_Barrier with one rank per node (the same
     * process count), {@code mpiWorkersUs} with one rank per worker thread; {@code load} is the
     * 1-minute load average when the configuration finished.
     */
    record Row(String op, String kind, String proxy, String strategy, int nodes, int threads, double medianUs, double p90Us, Double mpiUs,
               Double mpiWorkersUs, double load) {}

    public static void main(String[] args) throws Exception {
        BarrierBench bench = new BarrierBench();
        if (!bench.parse(args)) return;
        bench.run();
        System.exit(0);
    }

    boolean parse(String[] args) {
        command = "java -cp dsa-bench/target/benchmarks.jar " + BarrierBench.class.getName()
                + (args.length == 0 ? "" : " " + String.join(" ", args));
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--help", "-h" -> { System.out.println(USAGE); return false; }
                case "--nodes" -> nodes = ints(args[++i]);
                case "--threads" -> threads = ints(args[++i]);
                case "--kinds" -> kinds = Arrays.stream(args[++i].split(",")).map(s -> BarrierKind.valueOf(s.trim().toUpperCase(Locale.ROOT))).toList();
                case "--proxies" -> proxies = Arrays.stream(args[++i].split(",")).map(s -> ProxyMode.valueOf(s.trim().toUpperCase(Locale.ROOT))).toList();
                case "--waits" -> waits = Arrays.stream(args[++i].split(",")).map(s -> WaitStrategy.valueOf(s.trim().toUpperCase(Locale.ROOT))).toList();
                case "--lanes" -> laneModes = Arrays.stream(args[++i].split(",")).map(s -> switch (s.trim()) {
                    case "on" -> true;
                    case "off" -> false;
                    default -> throw new IllegalArgumentException("--lanes " + s + ": use on, off or on,off");
                }).toList();
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--warmup-ms" -> warmupMs = Integer.parseInt(args[++i]);
                case "--iters" -> iters = Integer.parseInt(args[++i]);
                case "--ops" -> {
                    ops = Arrays.stream(args[++i].split(",")).map(s -> s.trim().toLowerCase(Locale.ROOT)).toList();
                    for (String op : ops) {
                        if (!BarrierProgram.OPS.contains(op)) {
                            throw new IllegalArgumentException("--ops " + op + ": use " + String.join(", ", BarrierProgram.OPS) + " or both");
                        }
                    }
                }
                case "--reps" -> reps = Integer.parseInt(args[++i]);
                case "--in-process" -> inProcess = true;
                case "--no-mpi" -> mpi = false;
                case "--mpi-src" -> mpiSrc = Path.of(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--smoke" -> {
                    nodes = List.of(1, 2); threads = List.of(2);
                    kinds = List.of(BarrierKind.TREE); proxies = List.of(ProxyMode.FLOAT); waits = List.of(WaitStrategy.ADAPTIVE);
                    warmup = 50; warmupMs = 0; iters = 20; reps = 3; ops = BarrierProgram.OPS;
                }
                default -> throw new IllegalArgumentException("unknown option " + a + "\n" + USAGE);
            }
        }
        return true;
    }

    private static List<Integer> ints(String list) {
        return Arrays.stream(list.split(",")).map(String::trim).map(Integer::parseInt).toList();
    }

    List<Row> run() throws Exception {
        Files.createDirectories(out);
        Map<Integer, Double> mpiUs = mpi ? runMpi() : Map.of();
        List<Row> rows = new ArrayList<>();
        for (BarrierKind kind : kinds) {
            for (ProxyMode proxy : proxies) {
              for (boolean laneMode : laneModes) {
                if (!laneMode && (kind != BarrierKind.TREE || proxy != ProxyMode.FLOAT) && laneModes.contains(true)) continue;
                lanes = laneMode;
                String proxyLabel = proxy.name() + (kind == BarrierKind.TREE && proxy == ProxyMode.FLOAT ? (laneMode ? "+lanes" : "") : "");
                for (WaitStrategy wait : waits) {
                    for (int n : nodes) {
                        for (int t : threads) {
                            Map<String, double[]> byOp = measureWithRetry(kind, proxy, wait, n, t);
                            double load = loadAverage();
                            for (String op : ops) {
                                double[] ns = byOp.get(op);
                                Arrays.sort(ns);
                                Row row = new Row(op, kind.name(), proxyLabel, wait.name(), n, t, percentile(ns, 50) / 1e3,
                                        percentile(ns, 90) / 1e3, mpiUs.get(n), mpiUs.get(n * t), load);
                                System.out.printf(Locale.ROOT, "%-9s %-7s %-11s %-8s nodes=%d threads=%d median=%.1f us p90=%.1f us load=%.2f%n",
                                        op, kind, proxyLabel, wait, n, t, row.medianUs(), row.p90Us(), row.load());
                                rows.add(row);
                            }
                        }
                    }
                }
              }
            }
        }
        writeCsv(rows);
        writeMarkdown(rows, mpiUs);
        writePlot(rows, mpiUs);
        return rows;
    }

    static double percentile(double[] sorted, int p) {
        int idx = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, idx))];
    }

    /** A configuration that fails (a node lost on a busy machine) is run once more before giving up. */
    private Map<String, double[]> measureWithRetry(BarrierKind kind, ProxyMode proxy, WaitStrategy wait, int n, int t) throws Exception {
        try {
            return measure(kind, proxy, wait, n, t);
        } catch (Exception | AssertionError e) {
            System.out.println("retrying " + kind + "/" + proxy + "/" + wait + " " + n + "x" + t + " after: " + e.getMessage());
            return measure(kind, proxy, wait, n, t);
        }
    }

    static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    private DsaConfig.Builder config(BarrierKind kind, ProxyMode proxy, WaitStrategy wait, int n, int t) {
        return DsaConfig.builder().nodes(n).threadsPerNode(t).barrier(kind).proxy(proxy).waitStrategy(wait).barrierLanes(lanes);
    }

    /** @return per operation of {@link #ops}, the nanoseconds per operation of every repetition */
    Map<String, double[]> measure(BarrierKind kind, ProxyMode proxy, WaitStrategy wait, int n, int t) throws Exception {
        List<String> args = List.of(Integer.toString(warmup), Integer.toString(warmupMs), Integer.toString(iters),
                Integer.toString(reps), String.join(",", ops));
        RunReport report;
        if (inProcess) {
            try (DsaCluster cluster = DsaCluster.local(config(kind, proxy, wait, n, t).build())) {
                report = cluster.run(new BarrierProgram(), args.toArray(new String[0]));
            }
        } else {
            report = runProcesses(kind, proxy, wait, n, t, args);
        }
        return timings(report.lines(), ops, kind + "/" + proxy + "/" + wait + " " + n + "x" + t);
    }

    /**
     * @return per operation, the nanoseconds of every {@code "OP rep R NANOS"} line among {@code lines}
     * @throws IllegalStateException naming {@code what} and the operation if one of {@code ops} has none
     */
    static Map<String, double[]> timings(List<String> lines, List<String> ops, String what) {
        Map<String, double[]> result = new LinkedHashMap<>();
        for (String op : ops) {
            String tag = op + " rep ";
            double[] values = lines.stream().filter(l -> l.contains(tag))
                    .mapToDouble(l -> Double.parseDouble(l.substring(l.indexOf(tag)).trim().split("\\s+")[3])).toArray();
            if (values.length == 0) throw new IllegalStateException("no " + op + " timings reported for " + what);
            result.put(op, values);
        }
        return result;
    }

    private RunReport runProcesses(BarrierKind kind, ProxyMode proxy, WaitStrategy wait, int n, int t, List<String> args) throws Exception {
        Path secret = Files.createTempFile("dsa-bench-secret", ".txt");
        byte[] bytes = new byte[24];
        new SecureRandom().nextBytes(bytes);
        Files.writeString(secret, HexFormat.of().formatHex(bytes));
        List<Process> children = new ArrayList<>();
        DsaAgent agent = DsaAgent.start(config(kind, proxy, wait, n, t).machineThreads(n * (t + 1)).nodeId(0).port(0)
                .bindHost(DsaConfig.DEFAULT_BIND_HOST).secretFile(secret).build());
        try {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            String cp = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                    .map(p -> Path.of(p).toAbsolutePath().toString()).reduce((a, b) -> a + File.pathSeparator + b).orElse("");
            File log = out.resolve("nodes.log").toFile();
            long logStart = log.exists() ? log.length() : 0;
            for (int node = 1; node < n; node++) {
                List<String> cmd = new ArrayList<>(List.of(java, "-cp", cp, KIND_LOG_LEVEL, "io.dsa.agent.cli.DsaCli", "node",
                        "--node", Integer.toString(node), "--nodes", Integer.toString(n), "--threads", Integer.toString(t),
                        "--barrier", kind.name(), "--proxy", proxy.name(), "--wait", wait.name(),
                        lanes ? "--barrier-lanes" : "--no-barrier-lanes", "--machine-threads", Integer.toString(n * (t + 1)), "--monitor", agent.address(), "--secret-file", secret.toString(), BarrierProgram.class.getName()));
                cmd.addAll(args);
                children.add(new ProcessBuilder(cmd).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(log)).start());
            }
            RunReport report = agent.run(new BarrierProgram(), args);
            for (Process p : children) {
                if (!p.waitFor(60, TimeUnit.SECONDS)) throw new IllegalStateException("a node did not exit; see " + log);
                if (p.exitValue() != 0) throw new IllegalStateException("a node exited with " + p.exitValue() + "; see " + log);
            }
            verifyKind(log.toPath(), logStart, kind, proxy, wait, n);
            return report;
        } finally {
            agent.close();
            for (Process p : children) {
                if (p.isAlive()) { p.destroy(); if (!p.waitFor(5, TimeUnit.SECONDS)) p.destroyForcibly(); }
            }
            Files.deleteIfExists(secret);
        }
    }

    /** Makes each child node log which barrier kind, proxy and wait strategy it runs (a debug line of BarrierClient). */
    private static final String KIND_LOG_LEVEL = "-Dorg.slf4j.simpleLogger.log.io.dsa.agent.internal.BarrierClient=debug";

    /**
     * Checks that every child node of this configuration logged the kind, proxy and wait strategy
     * it was asked for, so no row silently measured another barrier; node 0 runs in this process
     * with {@link #config} of the same kind, proxy and strategy.
     */
    static void verifyKind(Path log, long from, BarrierKind kind, ProxyMode proxy, WaitStrategy wait, int n) throws IOException {
        if (n <= 1) return; // no child nodes
        byte[] all = Files.readAllBytes(log);
        String text = new String(all, (int) Math.min(from, all.length), all.length - (int) Math.min(from, all.length),
                StandardCharsets.UTF_8);
        for (int node = 1; node < n; node++) {
            String expected = "node " + node + " runs the " + kind + " barrier with the " + proxy + " proxy, waiting by " + wait;
            if (!text.contains(expected)) {
                throw new IllegalStateException("node " + node + " did not log '" + expected + "'; see " + log);
            }
        }
    }

    /** @return MPI_Barrier median microseconds per rank count, empty if mpicc/mpirun are missing */
    Map<Integer, Double> runMpi() throws Exception {
        Map<Integer, Double> result = new LinkedHashMap<>();
        if (!onPath("mpicc") || !onPath("mpirun")) {
            System.out.println("MPI peer skipped: mpicc/mpirun not found (Debian/Ubuntu: apt-get install -y openmpi-bin libopenmpi-dev)");
            return result;
        }
        if (!Files.isRegularFile(mpiSrc)) {
            System.out.println("MPI peer skipped: " + mpiSrc + " not found (run from the repository root or pass --mpi-src)");
            return result;
        }
        Path exe = out.resolve("mpi_barrier");
        if (exec(List.of("mpicc", "-O2", "-o", exe.toString(), mpiSrc.toString())).exit != 0) {
            System.out.println("MPI peer skipped: mpicc failed");
            return result;
        }
        boolean root = "root".equals(System.getProperty("user.name"));
        java.util.SortedSet<Integer> counts = new java.util.TreeSet<>();
        for (int n : nodes) {
            counts.add(n);
            for (int t : threads) counts.add(n * t);
        }
        for (int n : counts) {
            List<String> cmd = new ArrayList<>(List.of("mpirun", "--oversubscribe", "-np", Integer.toString(n),
                    "--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include", "lo"));
            if (root) cmd.add("--allow-run-as-root");
            cmd.addAll(List.of(exe.toAbsolutePath().toString(), Integer.toString(Math.max(warmup, 1000)),
                    Integer.toString(iters * 10), Integer.toString(reps)));
            Exec e = exec(cmd);
            List<Double> ns = new ArrayList<>();
            for (String line : e.output.split("\n")) {
                if (line.startsWith("rep ")) ns.add(Double.parseDouble(line.trim().split("\\s+")[2]));
            }
            if (e.exit != 0 || ns.isEmpty()) {
                System.out.println("MPI peer failed for np=" + n + ":\n" + e.output);
                continue;
            }
            double[] sorted = ns.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            result.put(n, percentile(sorted, 50) / 1e3);
            System.out.printf(Locale.ROOT, "MPI_Barrier np=%d median=%.1f us%n", n, result.get(n));
        }
        return result;
    }

    private record Exec(int exit, String output) {}

    private static Exec exec(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Exec(p.waitFor(), output);
    }

    static boolean onPath(String tool) {
        String path = System.getenv("PATH");
        if (path == null) return false;
        return Arrays.stream(path.split(File.pathSeparator)).anyMatch(d -> Files.isExecutable(Path.of(d, tool)));
    }

    private void writeCsv(List<Row> rows) throws IOException {
        StringBuilder sb = new StringBuilder("op,kind,proxy,wait,nodes,threads,median_us,p90_us,mpi_us,mpi_workers_us,load\n");
        for (Row r : rows) {
            sb.append(String.format(Locale.ROOT, "%s,%s,%s,%s,%d,%d,%.2f,%.2f,%s,%s,%.2f%n", r.op(), r.kind(), r.proxy(), r.strategy(), r.nodes(), r.threads(),
                    r.medianUs(), r.p90Us(), fmt(r.mpiUs()), fmt(r.mpiWorkersUs()), r.load()));
        }
        Files.writeString(out.resolve("barrier.csv"), sb);
    }

    private static String fmt(Double v) {
        return v == null ? "" : String.format(Locale.ROOT, "%.2f", v);
    }

    private static Row find(List<Row> rows, String op, String kind, String proxy, String wait, int n, int t) {
        return rows.stream().filter(r -> r.op().equals(op) && r.kind().equals(kind) && r.proxy().equals(proxy) && r.strategy().equals(wait) && r.nodes() == n
                && r.threads() == t).findFirst().orElse(null);
    }

    private void writeMarkdown(List<Row> rows, Map<Integer, Double> mpiUs) throws IOException {
        StringBuilder sb = new StringBuilder("# Barrier latency (paper Sec. 4.4, Fig. 11)\n\n");
        sb.append("- Machine: ").append(Runtime.getRuntime().availableProcessors()).append(" CPUs (nproc), ")
                .append(cpuModel()).append("\n");
        sb.append("- JDK: ").append(System.getProperty("java.vm.name")).append(' ').append(System.getProperty("java.version")).append("\n");
        sb.append("- Mode: ").append(inProcess ? "all nodes in one JVM" : "one JVM per node over loopback TCP").append("\n");
        sb.append("- Per configuration: at least ").append(warmup).append(" warm-up barriers and ").append(warmupMs)
                .append(" ms of warm-up, ").append(reps).append(" repetitions of ")
                .append(iters).append(" timed operations (").append(String.join(", ", ops))
                .append("; allreduce: one double, SUM); per-operation time is the MAX over workers; median and p90 over repetitions\n");
        sb.append("- Command: `").append(command).append("`\n\n");
        sb.append("- MPI_Barrier: one rank per node (the same process count) and one rank per worker, ")
                .append("at least 1000 warm-up barriers, ").append(iters * 10).append(" timed per repetition\n");
        sb.append("\n| op | kind | proxy | wait | nodes | threads | median µs | p90 µs | MPI_Barrier np=nodes µs | MPI_Barrier np=nodes×threads µs | load |\n")
                .append("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Row r : rows) {
            sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %d | %d | %.1f | %.1f | %s | %s | %.1f |%n", r.op(), r.kind(), r.proxy(), r.strategy(), r.nodes(),
                    r.threads(), r.medianUs(), r.p90Us(), r.mpiUs() == null ? "–" : String.format(Locale.ROOT, "%.1f", r.mpiUs()),
                    r.mpiWorkersUs() == null ? "–" : String.format(Locale.ROOT, "%.1f", r.mpiWorkersUs()), r.load()));
        }
        sb.append("\n## Targets\n\n");
        Double mpi4 = mpiUs.get(4);
        Double mpi8 = mpiUs.get(8);
        for (String op : ops) {
          for (String proxy : rows.stream().map(Row::proxy).distinct().toList()) {
            for (WaitStrategy wait : waits) {
                Row tree42 = find(rows, op, "TREE", proxy, wait.name(), 4, 2);
                if (tree42 != null && mpi4 != null) {
                    double ratio = tree42.medianUs() / mpi4;
                    sb.append(String.format(Locale.ROOT, "- %s, TREE/%s/%s 4 nodes x 2 threads vs MPI_Barrier np=4: %.1f / %.1f µs = %.2fx (target within 4x): %s%n",
                            op, proxy, wait, tree42.medianUs(), mpi4, ratio, ratio <= 4 ? "**met**" : "**not met**"));
                } else {
                    sb.append("- " + op + ", TREE/" + proxy + "/" + wait + " vs MPI_Barrier at 4 x 2: not measured in this run\n");
                }
                if (tree42 != null && mpi8 != null) {
                    sb.append(String.format(Locale.ROOT, "- (for reference) the same vs MPI_Barrier np=8, one rank per worker: %.1f / %.1f µs = %.2fx%n",
                            tree42.medianUs(), mpi8, tree42.medianUs() / mpi8));
                }
            }
          }
        }
        for (String proxy : rows.stream().map(Row::proxy).distinct().toList()) {
            for (WaitStrategy wait : waits) {
                Row tree44 = find(rows, "barrier", "TREE", proxy, wait.name(), 4, 4);
                Row central44 = find(rows, "barrier", "CENTRAL", proxy, wait.name(), 4, 4);
                if (tree44 != null && central44 != null) {
                    double ratio = central44.medianUs() / tree44.medianUs();
                    sb.append(String.format(Locale.ROOT, "- CENTRAL vs TREE, %s/%s, 4 x 4: %.1f / %.1f µs = TREE %.2fx faster (target at least 2x): %s%n",
                            proxy, wait, central44.medianUs(), tree44.medianUs(), ratio, ratio >= 2 ? "**met**" : "**not met**"));
                }
            }
        }
        Files.writeString(out.resolve("barrier.md"), sb);
    }

    static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse("unknown CPU");
        } catch (IOException e) {
            return "unknown CPU";
        }
    }

    private void writePlot(List<Row> rows, Map<Integer, Double> mpiUs) throws IOException {
        int t = threads.stream().max(Integer::compare).orElse(1);
        XYChart chart = new XYChartBuilder().width(900).height(600)
                .title("Global barrier latency, " + t + " thread(s) per node").xAxisTitle("nodes").yAxisTitle("µs per operation (median)").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        for (BarrierKind kind : kinds) {
            for (String proxy : rows.stream().map(Row::proxy).distinct().toList()) {
                for (WaitStrategy wait : waits) {
                  for (String op : ops) {
                    List<Row> series = rows.stream().filter(r -> r.op().equals(op) && r.kind().equals(kind.name()) && r.proxy().equals(proxy)
                            && r.strategy().equals(wait.name()) && r.threads() == t).toList();
                    if (series.isEmpty()) continue;
                    chart.addSeries((op.equals("barrier") ? "" : op + " ") + kind + "/" + proxy + "/" + wait,
                            series.stream().map(Row::nodes).toList(), series.stream().map(Row::medianUs).toList());
                  }
                }
            }
        }
        List<Integer> mpiNodes = nodes.stream().filter(mpiUs::containsKey).toList();
        if (!mpiNodes.isEmpty()) {
            chart.addSeries("MPI_Barrier (1 rank/node)", mpiNodes, mpiNodes.stream().map(mpiUs::get).toList());
        }
        BitmapEncoder.saveBitmap(chart, out.resolve("barrier.png").toString(), BitmapEncoder.BitmapFormat.PNG);
    }
}
