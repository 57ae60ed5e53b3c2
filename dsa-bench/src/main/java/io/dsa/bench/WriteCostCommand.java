package io.dsa.bench;

import io.dsa.agent.RunReport;
import java.util.ArrayList;
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
 * {@code dsa bench write-cost} (paper Fig. 10): average write cost vs partition size x stride x
 * number of sharers, one JVM per node ({@link WriteCostProgram}).
 */
@Command(name = "write-cost", mixinStandardHelpOptions = true,
        description = "Average write cost vs partition size x stride x sharers, 2-4 nodes as processes (Fig. 10).")
final class WriteCostCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    BenchCommand.Common common = new BenchCommand.Common();

    @Option(names = "--sides", split = ",", defaultValue = "8,16,32,64,128", description = "Partition sides (default: ${DEFAULT-VALUE}).")
    List<Integer> sides;

    @Option(names = "--strides", split = ",", defaultValue = "1,4,16,64", description = "Write strides in elements (default: ${DEFAULT-VALUE}).")
    List<Integer> strides;

    @Option(names = "--nodes", split = ",", defaultValue = "2,3,4", description = "VM sizes; sharers = nodes - 1 (default: ${DEFAULT-VALUE}).")
    List<Integer> nodes;

    @Option(names = "--iters", defaultValue = "100", description = "Timed rounds per configuration (default: ${DEFAULT-VALUE}).")
    int iters;

    @Option(names = "--warmup", defaultValue = "30", description = "Untimed rounds first (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Override
    public Integer call() throws Exception {
        if (common.smoke) { sides = List.of(8, 16); strides = List.of(1, 8); nodes = List.of(2); iters = 10; warmup = 3; }
        for (int n : nodes) if (n < 2) throw new CommandLine.ParameterException(spec.commandLine(), "--nodes: " + n + " not >= 2");
        for (int s : sides) if (s < 1 || s > 128) throw new CommandLine.ParameterException(spec.commandLine(), "--sides: " + s + " not in [1, 128]");
        for (int s : strides) if (s < 1) throw new CommandLine.ParameterException(spec.commandLine(), "--strides: " + s + " not >= 1");
        String sideList = String.join(",", sides.stream().map(String::valueOf).toList());
        String strideList = String.join(",", strides.stream().map(String::valueOf).toList());
        List<String> csv = new ArrayList<>();
        StringBuilder table = new StringBuilder("| nodes | sharers | partition | stride | writes/round | avg ns/write (median) | p90 |\n|---:|---:|---|---:|---:|---:|---:|\n");
        Map<String, double[][]> series = new LinkedHashMap<>();
        for (int n : nodes) {
            RunReport report = ProcessVm.run(new WriteCostProgram(), n, 1,
                    List.of(sideList, strideList, Integer.toString(warmup), Integer.toString(iters)), common.out);
            Map<Integer, List<double[]>> byStride = new LinkedHashMap<>();
            for (double[] r : ProcessVm.numbers(report, "wc ")) {
                int s = (int) r[0], stride = (int) r[1];
                int writes = (s * s + stride - 1) / stride;
                csv.add(String.format(Locale.ROOT, "%d,%d,%d,%d,%d,%.1f,%.1f,%.2f", n, n - 1, s, stride, writes, r[2], r[3], BarrierBench.loadAverage()));
                table.append(String.format(Locale.ROOT, "| %d | %d | %dx%d | %d | %d | %.1f | %.1f |%n", n, n - 1, s, s, stride, writes, r[2], r[3]));
                byStride.computeIfAbsent(stride, k -> new ArrayList<>()).add(new double[] {s * s * 8 / 1024.0, r[2]});
                System.out.printf(Locale.ROOT, "write-cost nodes=%d side=%d stride=%d: %.1f ns/write%n", n, s, stride, r[2]);
            }
            for (Map.Entry<Integer, List<double[]>> e : byStride.entrySet()) {
                series.put(n + " nodes, stride " + e.getKey(), new double[][] {e.getValue().stream().mapToDouble(p -> p[0]).toArray(),
                        e.getValue().stream().mapToDouble(p -> p[1]).toArray()});
            }
        }
        BenchOut.csv(common.out, "write-cost", "nodes,sharers,side,stride,writes,avg_ns,p90_ns,load", csv);
        BenchOut.plot(common.out, "write-cost", "Average write cost (writer on node 1, partition homed at node 0)", "partition KiB",
                "ns per write (median)", true, series);
        String notes = String.format(Locale.ROOT, "- one JVM per node; each round the other nodes read the partition (sharers), then node 1 "
                + "writes every stride-th element; cost = round time / writes; %d warm-up and %d timed rounds, medians", warmup, iters);
        BenchOut.markdown(common.out, "write-cost", "Average write cost (paper Fig. 10)", BenchCommand.typed(spec), notes, table.toString(), List.of());
        return 0;
    }

}
