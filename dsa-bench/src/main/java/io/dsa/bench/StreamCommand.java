package io.dsa.bench;

import io.dsa.agent.DsaConfig;
import io.dsa.agent.RunReport;
import io.dsa.agent.WaitStrategy;
import io.dsa.agent.transport.TransportConfig;
import io.dsa.agent.transport.TransportSecurity;
import java.io.IOException;
import java.nio.file.Path;
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
 * {@code dsa bench stream}: bandwidth between two nodes, node 1 reading partitions homed at node 0
 * (each node its own JVM, {@link StreamProgram}): one partition at a time, a window of
 * {@code requestPartitionCopy}s in flight, and one region read over many partitions; beside, in the
 * same run and for the same sizes, Open MPI ping-pong ({@code pingpong_mpi.c}, a 1-byte request and
 * an N-byte reply, np=2, over loopback TCP and over Open MPI's default shared-memory transport,
 * skipped with a message where Open MPI is missing), the thin Netty round trip and the socket RPC
 * of {@link RpcPeers} (a 24-byte request, an N-byte reply; server in another JVM). Figures are GB/s
 * (10^9 bytes per second) of payload: bytes read over the median time.
 */
@Command(name = "stream", mixinStandardHelpOptions = true,
        description = "Bandwidth node 1 <- node 0 by partition size (one at a time, a window in flight, a region) beside "
                + "MPI ping-pong (TCP loopback and shared memory) and a thin Netty round trip.")
final class StreamCommand implements Callable<Integer> {
    static final String CSV_HEADER =
            "bytes,partitions,security,wait,dsa_one_gbps,dsa_window_gbps,dsa_region_gbps,dsa_sequential_gbps,netty_gbps,socket_gbps,"
            + "mpi_tcp_gbps,mpi_shm_gbps,load";

    @Spec
    CommandSpec spec;

    @Mixin
    BenchCommand.Common common = new BenchCommand.Common();

    @Mixin
    BenchCommand.TuningOptions tuningOptions = new BenchCommand.TuningOptions();

    @Option(names = "--sizes", split = ",", paramLabel = "KIB,..", defaultValue = "8,16,32,64,128,256,512,1024,2048,4096",
            description = "Partition sizes in KiB, 1..4096 (default: ${DEFAULT-VALUE}).")
    List<Integer> sizesKib;

    @Option(names = "--budget-mib", defaultValue = "32",
            description = "MiB one timed read covers: min(256, max(4, budget / size)) partitions (default: ${DEFAULT-VALUE}).")
    int budgetMib;

    @Option(names = "--rounds", defaultValue = "5", description = "Timed rounds per size and way; the median is kept (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--warmup", defaultValue = "2", description = "Untimed rounds first (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--window", defaultValue = "8", description = "requestPartitionCopy futures in flight (default: ${DEFAULT-VALUE}).")
    int window;

    @Option(names = "--prefetch-window", defaultValue = "" + DsaConfig.DEFAULT_PREFETCH_WINDOW,
            description = "The VMs' prefetch window for the sequential readPartition loop (DsaConfig.prefetchWindow; default: ${DEFAULT-VALUE}).")
    int prefetchWindow;

    @Option(names = "--no-mpi", description = "Skip the MPI ping-pong peer.")
    boolean noMpi;

    @Mixin
    BenchCommand.Waits waits = new BenchCommand.Waits();

    @Option(names = "--transport-security", split = ",", paramLabel = "MODE,..", defaultValue = "ENCRYPT,MAC",
            description = "The DSA VM's connection protection modes to measure, each in its own VM of this run"
                    + " (default: ${DEFAULT-VALUE}).")
    List<TransportSecurity> modes;

    @Option(names = "--c-src", paramLabel = "DIR", defaultValue = "dsa-bench/src/main/c",
            description = "Directory of pingpong_mpi.c (default: ${DEFAULT-VALUE}).")
    Path cSrc;

    /** DSA's GB/s of each way under one protection mode and wait strategy. */
    record Dsa(double one, double windowed, double region, double sequential) {
        double best() { return Math.max(Math.max(one, sequential), Math.max(windowed, region)); }
    }

    /** One partition size: GB/s of DSA per setting and of each peer (NaN where not measured). */
    record Row(int bytes, int partitions, Map<MissCommand.Setting, Dsa> dsa, double netty, double socket, double mpiTcp, double mpiShm,
               double load) {
        double bestDsa() { return dsa.values().stream().mapToDouble(Dsa::best).max().orElse(Double.NaN); }

        double bestDsa(TransportSecurity security) {
            return dsa.entrySet().stream().filter(e -> e.getKey().security() == security).mapToDouble(e -> e.getValue().best()).max()
                    .orElse(Double.NaN);
        }
    }

    @Override
    public Integer call() throws Exception {
        if (common.smoke) { sizesKib = List.of(8, 64); budgetMib = 1; rounds = 2; warmup = 1; window = 4; }
        for (int kib : sizesKib) {
            if (kib < 1 || kib > RpcPeers.MAX_REPLY / 1024) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--sizes: " + kib + " KiB out of range [1, "
                        + RpcPeers.MAX_REPLY / 1024 + "]");
            }
        }
        check(budgetMib, "--budget-mib", 1, 4096);
        check(rounds, "--rounds", 1, 1000);
        check(warmup, "--warmup", 0, 1000);
        check(window, "--window", 1, 256);
        check(prefetchWindow, "--prefetch-window", 0, DsaConfig.MAX_PREFETCH_WINDOW);
        long budget = (long) budgetMib << 20;
        List<Integer> bytes = sizesKib.stream().map(k -> k * 1024).toList();
        String list = String.join(",", bytes.stream().map(String::valueOf).toList());
        if (modes.isEmpty() || modes.stream().distinct().count() != modes.size()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--transport-security: " + modes
                    + " must name each of " + List.of(TransportSecurity.values()) + " at most once, at least one");
        }
        List<MissCommand.Setting> settings = new ArrayList<>();
        for (TransportSecurity mode : modes) {
            for (WaitStrategy wait : waits.checked(spec, common.smoke)) settings.add(new MissCommand.Setting(mode, wait));
        }
        Map<MissCommand.Setting, Map<Integer, double[]>> dsa = new LinkedHashMap<>();
        for (MissCommand.Setting setting : settings) {
            RunReport report = ProcessVm.run(new StreamProgram(), 2, 1, List.of(list, Long.toString(budget), Integer.toString(warmup),
                    Integer.toString(rounds), Integer.toString(window)), common.out, setting.security(), setting.strategy(),
                    prefetchWindow, tuningOptions.tuning());
            Map<Integer, double[]> bySize = new LinkedHashMap<>();
            for (double[] r : ProcessVm.numbers(report, "stream ")) bySize.put((int) r[0], r);
            dsa.put(setting, bySize);
        }
        Map<Integer, double[]> rpc = rpc(bytes, budget);
        Map<Integer, Double> mpiTcp = Map.of();
        Map<Integer, Double> mpiShm = Map.of();
        Path exe = noMpi ? null : MpiPeer.compile(cSrc.resolve("pingpong_mpi.c"), common.out);
        if (exe != null) {
            mpiTcp = mpi(exe, true, bytes, budget);
            mpiShm = mpi(exe, false, bytes, budget);
        }
        List<Row> rows = new ArrayList<>();
        for (int b : bytes) {
            double[] r = rpc.get(b);
            Map<MissCommand.Setting, Dsa> perSetting = new LinkedHashMap<>();
            StringBuilder line = new StringBuilder();
            int partitions = 0;
            for (MissCommand.Setting setting : settings) {
                double[] d = dsa.get(setting).get(b);
                partitions = (int) d[1];
                Dsa x = new Dsa(d[2], d[3], d[4], d[5]);
                perSetting.put(setting, x);
                line.append(String.format(Locale.ROOT, " DSA %s one %.3f, window %.3f, region %.3f, sequential %.3f;", setting, x.one(),
                        x.windowed(), x.region(), x.sequential()));
            }
            Row row = new Row(b, partitions, perSetting, b / r[0], b / r[1], gbps(b, mpiTcp.get(b)), gbps(b, mpiShm.get(b)),
                    BarrierBench.loadAverage());
            System.out.printf(Locale.ROOT, "stream %7d B x %3d:%s netty %.3f, socket %.3f, MPI tcp %.3f, shm %.3f GB/s%n", b,
                    row.partitions(), line, row.netty(), row.socket(), row.mpiTcp(), row.mpiShm());
            rows.add(row);
        }
        write(rows);
        return 0;
    }

    private void check(int value, String option, int min, int max) {
        if (value < min || value > max) {
            throw new CommandLine.ParameterException(spec.commandLine(), option + ": " + value + " out of range [" + min + ", " + max + "]");
        }
    }

    private static double gbps(int bytes, Double ns) { return ns == null ? Double.NaN : bytes / ns; }

    /** @return per size {thin Netty median round-trip ns, socket RPC median ns}, as many round trips as the budget covers */
    private static Map<Integer, double[]> rpc(List<Integer> sizes, long budget) throws Exception {
        Map<Integer, double[]> result = new LinkedHashMap<>();
        try (RpcPeers.ServerProcess server = new RpcPeers.ServerProcess();
             RpcPeers.NettyClient netty = new RpcPeers.NettyClient(server.nettyPort);
             RpcPeers.SocketClient socket = new RpcPeers.SocketClient(server.socketPort)) {
            for (int b : sizes) {
                int iters = (int) Math.max(10, Math.min(2000, budget / b));
                result.put(b, RpcPeers.medianRoundTripNs(netty, socket, b, iters / 4, iters));
            }
        }
        return result;
    }

    /** @return per size the MPI ping-pong's median round trip in ns */
    private static Map<Integer, Double> mpi(Path exe, boolean tcp, List<Integer> sizes, long budget) throws Exception {
        List<String> cmd = MpiPeer.mpirun(2, tcp);
        cmd.add(exe.toString());
        cmd.add(Long.toString(budget));
        for (int b : sizes) cmd.add(Integer.toString(b));
        MpiPeer.Exec e = MpiPeer.exec(cmd);
        Map<Integer, Double> ns = new LinkedHashMap<>();
        for (String line : e.output().split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 3 && f[0].equals("pingpong")) ns.put(Integer.parseInt(f[1]), Double.parseDouble(f[2]));
        }
        if (e.exit() != 0 || ns.size() != sizes.size()) {
            throw new IOException("MPI ping-pong (" + (tcp ? "TCP loopback" : "default transport") + ") failed:\n" + e.output());
        }
        return ns;
    }

    private void write(List<Row> rows) throws IOException {
        Path out = common.out;
        List<MissCommand.Setting> settings = List.copyOf(rows.get(0).dsa().keySet());
        List<String> csv = new ArrayList<>();
        StringBuilder table = new StringBuilder("| partition | count |");
        StringBuilder rule = new StringBuilder("|---:|---:|");
        List<String> names = new ArrayList<>();
        for (MissCommand.Setting setting : settings) {
            table.append(" DSA ").append(setting).append(" one at a time | window ").append(window).append(" | region | sequential |");
            rule.append("---:|---:|---:|---:|");
            names.add("DSA " + setting + " readPartition, one at a time");
            names.add("DSA " + setting + " window of " + window + " requestPartitionCopy");
            names.add("DSA " + setting + " one region read");
            names.add("DSA " + setting + " readPartition loop, prefetch window " + prefetchWindow);
        }
        table.append(" thin Netty | socket RPC | MPI TCP loopback | MPI shared memory | best DSA / MPI TCP |\n")
                .append(rule).append("---:|---:|---:|---:|---:|\n");
        names.addAll(List.of("thin Netty round trip", "socket RPC", "MPI ping-pong, TCP loopback", "MPI ping-pong, shared memory (default)"));
        double[] xs = new double[rows.size()];
        double[][] ys = new double[names.size()][rows.size()];
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            List<Double> v = new ArrayList<>();
            for (MissCommand.Setting setting : settings) {
                Dsa d = r.dsa().get(setting);
                v.addAll(List.of(d.one(), d.windowed(), d.region(), d.sequential()));
                StringBuilder line = new StringBuilder().append(r.bytes()).append(',').append(r.partitions()).append(',')
                        .append(setting.security()).append(',').append(setting.strategy());
                for (double x : new double[] {d.one(), d.windowed(), d.region(), d.sequential(), r.netty(), r.socket(), r.mpiTcp(),
                        r.mpiShm()}) {
                    line.append(',').append(Double.isNaN(x) ? "" : String.format(Locale.ROOT, "%.4f", x));
                }
                csv.add(line.append(',').append(BenchOut.f(r.load())).toString());
            }
            v.addAll(List.of(r.netty(), r.socket(), r.mpiTcp(), r.mpiShm()));
            table.append("| ").append(size(r.bytes())).append(" | ").append(r.partitions());
            for (double x : v) table.append(" | ").append(Double.isNaN(x) ? "–" : String.format(Locale.ROOT, "%.3f", x));
            table.append(" | ").append(Double.isNaN(r.mpiTcp()) ? "–" : String.format(Locale.ROOT, "%.0f%%", 100 * r.bestDsa() / r.mpiTcp()))
                    .append(" |\n");
            xs[i] = r.bytes() / 1024.0;
            for (int j = 0; j < v.size(); j++) ys[j][i] = v.get(j);
        }
        BenchOut.csv(out, "stream", CSV_HEADER, csv);
        Map<String, double[][]> series = new LinkedHashMap<>();
        for (int j = 0; j < names.size(); j++) series.put(names.get(j), new double[][] {xs, ys[j]});
        BenchOut.plot(out, "stream", "Bandwidth node 1 <- node 0 by partition size (2 JVMs, loopback)", "partition KiB", "GB/s (median)",
                true, true, series);
        List<String> targets = new ArrayList<>();
        List<TransportSecurity> securities = settings.stream().map(MissCommand.Setting::security).distinct().toList();
        for (int bytes : new int[] {1 << 20, 128 << 10}) {
            Row r = rows.stream().filter(x -> x.bytes() == bytes).findFirst().orElse(null);
            if (r == null || Double.isNaN(r.mpiTcp())) {
                targets.add(size(bytes) + " partitions vs MPI ping-pong: not measured in this run");
                continue;
            }
            for (TransportSecurity security : securities) {
                double best = r.bestDsa(security);
                double share = best / r.mpiTcp();
                targets.add(String.format(Locale.ROOT, "%s partitions, %s, best DSA way vs MPI ping-pong over TCP loopback: %.3f / %.3f GB/s"
                        + " = %.0f%% (target >= 50%%): **%s**", size(bytes), security, best, r.mpiTcp(), 100 * share,
                        share >= 0.5 ? "met" : "not met"));
                if (!Double.isNaN(r.mpiShm())) {
                    targets.add(String.format(Locale.ROOT, "%s partitions, %s, best DSA way vs MPI ping-pong over shared memory (no target):"
                            + " %.0f%%", size(bytes), security, 100 * best / r.mpiShm()));
                }
            }
        }
        Row r8 = rows.stream().filter(x -> x.bytes() == 8 << 10).findFirst().orElse(null);
        for (TransportSecurity security : securities) {
            MissCommand.Setting spin = new MissCommand.Setting(security, WaitStrategy.SPIN);
            if (r8 == null || Double.isNaN(r8.mpiTcp()) || !r8.dsa().containsKey(spin)) {
                targets.add("8 KiB read miss with SPIN, " + security + ", vs MPI's 8 KiB ping-pong: not measured in this run (needs 8 KiB,"
                        + " SPIN and MPI)");
            } else {
                // one miss at a time moves the partition in one request and one reply, like one ping-pong round trip
                targets.add(BenchOut.ratio("8 KiB read miss with SPIN, " + security + " (one at a time) vs MPI ping-pong over TCP loopback",
                        8192 / r8.dsa().get(spin).one() / 1e3, 8192 / r8.mpiTcp() / 1e3, 2.0, "µs"));
            }
        }
        String notes = String.format(Locale.ROOT, "- 2 nodes x 1 thread, one JVM each, one VM per transport security mode and wait strategy"
                + " (%s), prefetch window %d; node 0 rewrites the partitions before every timed read (node 1 checks they are INVALID"
                + " there, so each read is a miss); ways: one miss at a time (last partition first, no prefetch), a window of"
                + " requestPartitionCopy futures, one region read, and a readPartition loop from the first partition up (the prefetch"
                + " window keeps requests in flight); %d warm-up and %d timed rounds per size and way, medians; a round reads min(256, max(4, %d MiB / size))"
                + " partitions. Peers: MPI ping-pong np=2 (1-byte request, N-byte reply), thin Netty and socket RPC (24-byte request,"
                + " N-byte reply, server in another JVM), all unprotected. GB/s = 10^9 bytes/s of payload. Partitions larger than %d KiB"
                + " travel in chunks of that size (TransportConfig.DEFAULT_CHUNK_BYTES).", String.join(", ",
                settings.stream().map(MissCommand.Setting::toString).toList()), prefetchWindow, warmup, rounds, budgetMib,
                TransportConfig.DEFAULT_CHUNK_BYTES >> 10);
        BenchOut.markdown(out, "stream", "Streaming bandwidth between two nodes", BenchCommand.typed(spec), notes, table.toString(), targets);
    }

    private static String size(int bytes) {
        return bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? (bytes >> 20) + " MiB" : (bytes >> 10) + " KiB";
    }
}
