package io.dsa.bench;

import io.dsa.agent.DsaAgent;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.RunReport;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dsa bench startup} (paper Fig. 8): VM startup for 1..4 nodes with the JVMs already
 * running (warm {@link StartupNode} children waiting for a "join" line), timed from the command
 * (node 0's agent start in this JVM and the join lines) to the formed VM running
 * {@link StartupProgram#setup} on node 0; and the creation time of 512² and 1024² double arrays.
 */
@Command(name = "startup", mixinStandardHelpOptions = true,
        description = "VM startup for 1..4 nodes with warm JVMs, and 512^2 / 1024^2 array creation (Fig. 8).")
final class StartupCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    BenchCommand.Common common = new BenchCommand.Common();

    @Option(names = "--nodes", split = ",", defaultValue = "1,2,3,4", description = "Node counts (default: ${DEFAULT-VALUE}).")
    List<Integer> nodes;

    @Option(names = "--reps", defaultValue = "15", description = "Timed startups per node count (default: ${DEFAULT-VALUE}).")
    int reps;

    @Option(names = "--warmup", defaultValue = "5", description = "Untimed startups first, per node count (default: ${DEFAULT-VALUE}).")
    int warmup;

    record Row(int nodes, double startupMs, double startupP90Ms, double agentStartupMs, double create512Ms, double create1024Ms, double load) {}

    @Override
    public Integer call() throws Exception {
        if (common.smoke) { nodes = List.of(1, 2); reps = 3; warmup = 1; }
        for (int n : nodes) {
            if (n < 1 || n > 16) throw new CommandLine.ParameterException(spec.commandLine(), "--nodes: " + n + " not in [1, 16]");
        }
        int children = nodes.stream().max(Integer::compare).orElse(1) - 1;
        Files.createDirectories(common.out);
        Path secret = Files.createTempFile("dsa-bench-secret", ".txt");
        byte[] bytes = new byte[24];
        new SecureRandom().nextBytes(bytes);
        Files.writeString(secret, HexFormat.of().formatHex(bytes));
        List<Process> procs = new ArrayList<>();
        List<BufferedReader> outs = new ArrayList<>();
        List<PrintWriter> ins = new ArrayList<>();
        try {
            for (int i = 0; i < children; i++) {
                Process p = new ProcessBuilder(ProcessVm.java(), "-cp", ProcessVm.classPath(), StartupNode.class.getName())
                        .redirectError(ProcessBuilder.Redirect.appendTo(common.out.resolve("nodes.log").toFile())).start();
                procs.add(p);
                outs.add(new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)));
                ins.add(new PrintWriter(p.getOutputStream(), true, StandardCharsets.UTF_8));
            }
            for (BufferedReader r : outs) expect(r, "warm");
            List<Row> rows = new ArrayList<>();
            int run = 0;
            for (int n : nodes) {
                double[] startup = new double[reps], agentStartup = new double[reps], c512 = new double[reps], c1024 = new double[reps];
                for (int k = -warmup; k < reps; k++) {
                    String tag = "r" + run++;
                    long t0 = System.nanoTime();
                    RunReport report;
                    try (DsaAgent agent = DsaAgent.start(DsaConfig.builder().nodes(n).threadsPerNode(1).nodeId(0).port(0)
                            .bindHost(DsaConfig.DEFAULT_BIND_HOST).secretFile(secret).build())) {
                        for (int c = 0; c < n - 1; c++) {
                            ins.get(c).println("join " + (c + 1) + " " + n + " " + agent.address() + " " + secret + " " + tag);
                        }
                        report = agent.run(new StartupProgram(), List.of(tag));
                    }
                    for (int c = 0; c < n - 1; c++) expect(outs.get(c), "done");
                    if (k < 0) continue;
                    startup[k] = (StartupProgram.formedAt - t0) / 1e6;
                    agentStartup[k] = report.startupNanos() / 1e6;
                    double[] create = ProcessVm.numbers(report, "create ").get(0);
                    c512[k] = create[0] / 1e6;
                    c1024[k] = create[1] / 1e6;
                }
                Row row = new Row(n, BenchOut.median(startup), BenchOut.percentile(startup, 90), BenchOut.median(agentStartup),
                        BenchOut.median(c512), BenchOut.median(c1024), BarrierBench.loadAverage());
                System.out.printf(Locale.ROOT, "startup %d node(s): %.2f ms (p90 %.2f, agent's view %.2f), create 512^2 %.2f ms, 1024^2 %.2f ms%n",
                        n, row.startupMs(), row.startupP90Ms(), row.agentStartupMs(), row.create512Ms(), row.create1024Ms());
                rows.add(row);
            }
            write(rows);
            return 0;
        } finally {
            for (PrintWriter w : ins) w.close();
            ProcessVm.destroy(procs);
            Files.deleteIfExists(secret);
        }
    }

    private static void expect(BufferedReader r, String word) throws IOException {
        String line = r.readLine();
        if (!word.equals(line)) throw new IOException("warm node said '" + line + "', expected '" + word + "'");
    }

    private void write(List<Row> rows) throws IOException {
        List<String> csv = new ArrayList<>();
        StringBuilder table = new StringBuilder("| nodes | startup ms (median) | p90 | agent's own view-complete ms | create 512² ms | create 1024² ms | load |\n")
                .append("|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Row r : rows) {
            csv.add(String.format(Locale.ROOT, "%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.2f", r.nodes(), r.startupMs(), r.startupP90Ms(), r.agentStartupMs(),
                    r.create512Ms(), r.create1024Ms(), r.load()));
            table.append(String.format(Locale.ROOT, "| %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f |%n", r.nodes(), r.startupMs(), r.startupP90Ms(),
                    r.agentStartupMs(), r.create512Ms(), r.create1024Ms(), r.load()));
        }
        BenchOut.csv(common.out, "startup", "nodes,startup_ms,startup_p90_ms,agent_startup_ms,create512_ms,create1024_ms,load", csv);
        double[] xs = rows.stream().mapToDouble(Row::nodes).toArray();
        Map<String, double[][]> series = new LinkedHashMap<>();
        series.put("VM startup (warm JVMs)", new double[][] {xs, rows.stream().mapToDouble(Row::startupMs).toArray()});
        series.put("create 512x512", new double[][] {xs, rows.stream().mapToDouble(Row::create512Ms).toArray()});
        series.put("create 1024x1024", new double[][] {xs, rows.stream().mapToDouble(Row::create1024Ms).toArray()});
        BenchOut.plot(common.out, "startup", "VM startup and array creation", "nodes", "ms (median)", false, series);
        List<String> targets = new ArrayList<>();
        Row r4 = rows.stream().filter(r -> r.nodes() == 4).findFirst().orElse(null);
        targets.add(r4 == null ? "4-node startup: not measured in this run"
                : BenchOut.ratio("4-node VM startup vs 50 ms", r4.startupMs(), 50, 1.0, "ms"));
        Row big = rows.get(rows.size() - 1);
        targets.add(BenchOut.ratio("1024² array creation on " + big.nodes() + " node(s) vs 5 ms", big.create1024Ms(), 5, 1.0, "ms"));
        String notes = String.format(Locale.ROOT, "- warm child JVMs (one per node beyond node 0) wait for a join line; startup = from starting "
                + "node 0's agent and sending the join lines to the formed VM entering the program's setup on node 0; %d untimed and %d timed "
                + "startups per node count, medians; arrays of 64x64 partitions, creation time the MAX over nodes", warmup, reps);
        BenchOut.markdown(common.out, "startup", "VM startup and array creation (paper Fig. 8)", BenchCommand.typed(spec), notes,
                table.toString(), targets);
    }
}
