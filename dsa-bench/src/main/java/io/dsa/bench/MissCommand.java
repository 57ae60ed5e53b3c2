package io.dsa.bench;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.RunReport;
import io.dsa.agent.WaitStrategy;
import io.dsa.agent.transport.TransportSecurity;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dsa bench miss} (paper Fig. 9): remote read and write miss time vs partition size on a
 * 2-node VM of two JVMs ({@link MissProgram}), once per {@link TransportSecurity} mode (ENCRYPT
 * and MAC by default) and {@link WaitStrategy} (all three by default), each pair in its own VM of
 * the same run, beside a thin Netty round trip and a plain socket RPC of
 * the same bytes with no protection (server in another JVM, {@link RpcPeers}) and Hazelcast
 * {@code IMap<Integer, byte[]>} get/set with the key owned by a member in another JVM.
 */
@Command(name = "miss", mixinStandardHelpOptions = true,
        description = "Remote read/write miss vs partition size (Fig. 9), beside thin Netty, a socket RPC and Hazelcast IMap.")
final class MissCommand implements Callable<Integer> {
    static final String CSV_HEADER = "side,bytes,security,wait,dsa_read_us,dsa_read_p90_us,dsa_write_us,dsa_write_p90_us,netty_us,"
            + "socket_us,hz_get_us,hz_set_us,load";

    @Spec
    CommandSpec spec;

    @Mixin
    BenchCommand.Common common = new BenchCommand.Common();

    @Mixin
    BenchCommand.TuningOptions tuningOptions = new BenchCommand.TuningOptions();

    @Option(names = "--sides", split = ",", paramLabel = "S,..", defaultValue = "8,16,32,64,128",
            description = "Partition sides s (s x s doubles, 8..128; default: ${DEFAULT-VALUE}).")
    List<Integer> sides;

    @Option(names = "--iters", defaultValue = "1000", description = "Timed operations per size (default: ${DEFAULT-VALUE}).")
    int iters;

    @Option(names = "--warmup", defaultValue = "500", description = "Warm-up operations per size (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--no-hazelcast", description = "Skip the Hazelcast peer (its start takes seconds).")
    boolean noHazelcast;

    @Option(names = "--transport-security", split = ",", paramLabel = "MODE,..", defaultValue = "ENCRYPT,MAC",
            description = "The DSA VM's connection protection modes to measure, each in its own VM of this run"
                    + " (default: ${DEFAULT-VALUE}).")
    List<TransportSecurity> modes;

    @Mixin
    BenchCommand.Waits waits = new BenchCommand.Waits();

    /** The DSA VM's protection and wait strategy. */
    record Setting(TransportSecurity security, WaitStrategy strategy) {
        @Override public String toString() { return security + " " + strategy; }
    }

    /** DSA's miss times of one size in one setting: medians and p90s in microseconds. */
    record Dsa(double readUs, double readP90Us, double writeUs, double writeP90Us) {}

    /** One size: DSA per setting, then the unprotected baselines, medians in microseconds. */
    record Row(int side, int bytes, Map<Setting, Dsa> dsa, double nettyUs, double socketUs, double hzGetUs,
               double hzSetUs, double load) {}

    private List<Setting> settings;

    @Override
    public Integer call() throws Exception {
        if (common.smoke) { sides = List.of(8, 32); iters = 30; warmup = 20; }
        for (int s : sides) {
            if (s < 1 || s > 128) throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--sides: " + s + " not in [1, 128]");
        }
        if (modes.isEmpty() || modes.stream().distinct().count() != modes.size()) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--transport-security: " + modes
                    + " must name each of " + List.of(TransportSecurity.values()) + " at most once, at least one");
        }
        settings = new ArrayList<>();
        for (TransportSecurity mode : modes) for (WaitStrategy wait : waits.checked(spec, common.smoke)) settings.add(new Setting(mode, wait));
        List<Row> rows = run();
        write(rows);
        return 0;
    }

    List<Row> run() throws Exception {
        String sideList = String.join(",", sides.stream().map(String::valueOf).toList());
        Map<Setting, Map<Integer, double[]>> dsa = new LinkedHashMap<>();
        for (Setting setting : settings) {
            RunReport report = ProcessVm.run(new MissProgram(), 2, 1, List.of(sideList, Integer.toString(warmup), Integer.toString(iters)),
                    common.out, setting.security(), setting.strategy(), DsaConfig.DEFAULT_PREFETCH_WINDOW, tuningOptions.tuning());
            Map<Integer, double[]> bySide = new LinkedHashMap<>();
            for (double[] r : ProcessVm.numbers(report, "miss ")) bySide.put((int) r[0], r);
            dsa.put(setting, bySide);
        }
        Map<Integer, double[]> rpc = rpcBaselines();
        Map<Integer, double[]> hz = noHazelcast ? Map.of() : hazelcast(sides, warmup, iters);
        List<Row> rows = new ArrayList<>();
        for (int s : sides) {
            double[] r = rpc.get(s), h = hz.get(s);
            Map<Setting, Dsa> perMode = new LinkedHashMap<>();
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "miss %3dx%-3d %7d B:", s, s, s * s * 8));
            for (Setting setting : settings) {
                double[] d = dsa.get(setting).get(s);
                Dsa m = new Dsa(d[1] / 1e3, d[2] / 1e3, d[3] / 1e3, d[4] / 1e3);
                perMode.put(setting, m);
                line.append(String.format(Locale.ROOT, " %s read %.1f us, write %.1f us;", setting, m.readUs(), m.writeUs()));
            }
            Row row = new Row(s, s * s * 8, perMode, r[0] / 1e3, r[1] / 1e3,
                    h == null ? Double.NaN : h[0] / 1e3, h == null ? Double.NaN : h[1] / 1e3, BarrierBench.loadAverage());
            System.out.println(line.append(String.format(Locale.ROOT, " netty %.1f us, socket %.1f us, hz get %.1f us, set %.1f us",
                    row.nettyUs(), row.socketUs(), row.hzGetUs(), row.hzSetUs())));
            rows.add(row);
        }
        return rows;
    }

    /** @return per side {netty median ns, socket median ns}, the server in a child JVM */
    private Map<Integer, double[]> rpcBaselines() throws Exception {
        Map<Integer, double[]> result = new LinkedHashMap<>();
        try (RpcPeers.ServerProcess server = new RpcPeers.ServerProcess();
             RpcPeers.NettyClient netty = new RpcPeers.NettyClient(server.nettyPort);
             RpcPeers.SocketClient socket = new RpcPeers.SocketClient(server.socketPort)) {
            for (int s : sides) result.put(s, RpcPeers.medianRoundTripNs(netty, socket, s * s * 8, warmup, iters));
        }
        return result;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) { return s.getLocalPort(); }
    }

    /** @return per side {IMap.get median ns, IMap.set median ns}, the key owned by the member in the child JVM */
    static Map<Integer, double[]> hazelcast(List<Integer> sides, int warmup, int iters) throws Exception {
        int p1 = freePort(), p2 = freePort();
        String cluster = "dsa-bench-" + UUID.randomUUID();
        Process peer = new ProcessBuilder(ProcessVm.java(), "-cp", ProcessVm.classPath(), HazelcastPeer.class.getName(),
                Integer.toString(p2), Integer.toString(p1), cluster).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        HazelcastInstance hz = null;
        try {
            BufferedReader in = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8));
            String line = in.readLine();
            if (!"ready".equals(line)) throw new IOException("Hazelcast peer did not start: " + line);
            hz = Hazelcast.newHazelcastInstance(HazelcastPeer.config(p1, p2, cluster));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (hz.getCluster().getMembers().size() < 2) {
                if (System.nanoTime() > deadline) throw new IOException("Hazelcast members did not join within 60 s");
                Thread.onSpinWait();
            }
            IMap<Integer, byte[]> map = hz.getMap("miss");
            int key = 0;
            while (true) {
                var owner = hz.getPartitionService().getPartition(key).getOwner();   // null until partitions are assigned
                if (owner != null && !owner.localMember()) break;
                if (owner != null) key++;
                if (System.nanoTime() > deadline) throw new IOException("no Hazelcast partition owned by the other member within 60 s");
                Thread.onSpinWait();
            }
            Map<Integer, double[]> result = new LinkedHashMap<>();
            for (int s : sides) {
                byte[] value = new byte[s * s * 8];
                double[] get = new double[iters], set = new double[iters];
                for (int k = -warmup; k < iters; k++) {
                    value[0] = (byte) k;
                    long t0 = System.nanoTime();
                    map.set(key, value);
                    long t1 = System.nanoTime();
                    byte[] got = map.get(key);
                    long t2 = System.nanoTime();
                    if (got.length != value.length || got[0] != value[0]) throw new IOException("Hazelcast returned a different value");
                    if (k >= 0) { set[k] = t1 - t0; get[k] = t2 - t1; }
                }
                result.put(s, new double[] {BenchOut.median(get), BenchOut.median(set)});
            }
            return result;
        } finally {
            if (hz != null) hz.shutdown();
            peer.getOutputStream().close();
            if (!peer.waitFor(20, TimeUnit.SECONDS)) peer.destroyForcibly();
        }
    }

    private void write(List<Row> rows) throws IOException {
        Path out = common.out;
        List<String> csv = new ArrayList<>();
        StringBuilder header = new StringBuilder("| partition | bytes |");
        StringBuilder rule = new StringBuilder("|---|---:|");
        for (Setting setting : settings) {
            header.append(" read ").append(setting).append(" µs | p90 | write ").append(setting).append(" µs | p90 |");
            rule.append("---:|---:|---:|---:|");
        }
        header.append(" thin Netty µs | socket RPC µs | Hazelcast get µs | Hazelcast set µs |");
        rule.append("---:|---:|---:|---:|");
        for (Setting setting : settings) {
            header.append(" read ").append(setting).append("/Netty |");
            rule.append("---:|");
        }
        header.append(" read/HZ get |\n");
        rule.append("---:|\n");
        StringBuilder table = new StringBuilder(header).append(rule);
        double[] xs = new double[rows.size()];
        Map<String, double[][]> series = new LinkedHashMap<>();
        for (Setting setting : settings) {
            series.put("DSA read miss, " + setting, new double[][] {xs, new double[rows.size()]});
            series.put("DSA write miss, " + setting, new double[][] {xs, new double[rows.size()]});
        }
        String[] baselines = {"thin Netty round trip", "socket RPC", "Hazelcast IMap.get", "Hazelcast IMap.set"};
        for (String b : baselines) series.put(b, new double[][] {xs, new double[rows.size()]});
        Setting first = settings.get(0);
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            table.append(String.format(Locale.ROOT, "| %dx%d | %d |", r.side(), r.side(), r.bytes()));
            for (Setting setting : settings) {
                Dsa d = r.dsa().get(setting);
                csv.add(String.join(",", String.valueOf(r.side()), String.valueOf(r.bytes()), setting.security().name(),
                        setting.strategy().name(), BenchOut.f(d.readUs()),
                        BenchOut.f(d.readP90Us()), BenchOut.f(d.writeUs()), BenchOut.f(d.writeP90Us()), BenchOut.f(r.nettyUs()),
                        BenchOut.f(r.socketUs()), BenchOut.f(r.hzGetUs()), BenchOut.f(r.hzSetUs()), BenchOut.f(r.load())));
                table.append(String.format(Locale.ROOT, " %.1f | %.1f | %.1f | %.1f |", d.readUs(), d.readP90Us(), d.writeUs(), d.writeP90Us()));
                series.get("DSA read miss, " + setting)[1][i] = d.readUs();
                series.get("DSA write miss, " + setting)[1][i] = d.writeUs();
            }
            table.append(String.format(Locale.ROOT, " %.1f | %.1f | %s | %s |", r.nettyUs(), r.socketUs(), dash(r.hzGetUs()), dash(r.hzSetUs())));
            for (Setting setting : settings) {
                table.append(String.format(Locale.ROOT, " %.2f |", r.dsa().get(setting).readUs() / r.nettyUs()));
            }
            double firstRead = r.dsa().get(first).readUs();
            table.append(Double.isNaN(r.hzGetUs()) ? " – |" : String.format(Locale.ROOT, " %.2f |", firstRead / r.hzGetUs())).append('\n');
            xs[i] = r.bytes() / 1024.0;
            double[] v = {r.nettyUs(), r.socketUs(), r.hzGetUs(), r.hzSetUs()};
            for (int j = 0; j < baselines.length; j++) series.get(baselines[j])[1][i] = v[j];
        }
        BenchOut.csv(out, "miss", CSV_HEADER, csv);
        BenchOut.plot(out, "miss", "Remote miss vs partition size (2 JVMs, loopback)", "partition KiB", "µs (median)", true, series);
        List<String> targets = new ArrayList<>();
        Row r8 = rows.stream().filter(r -> r.bytes() == 8192).findFirst().orElse(null);
        if (r8 == null) {
            targets.add("8 KiB (32x32) not in this run: targets not evaluated");
        } else {
            for (Setting setting : settings) {
                // the target is for PARK; the other strategies are measured beside it
                targets.add(BenchOut.ratio("8 KiB read miss (" + setting + ") vs thin Netty (no protection)"
                        + (setting.strategy() == WaitStrategy.PARK ? "" : ", target set for PARK"), r8.dsa().get(setting).readUs(),
                        r8.nettyUs(), 1.3, "µs"));
            }
            if (Double.isNaN(r8.hzGetUs())) {
                targets.add("8 KiB read miss vs Hazelcast get: Hazelcast not run");
            } else {
                targets.add(BenchOut.ratio("8 KiB read miss (" + first + ") vs Hazelcast IMap.get (faster means < 1)",
                        r8.dsa().get(first).readUs(), r8.hzGetUs(), 1.0, "µs"));
            }
        }
        String notes = String.format(Locale.ROOT, "- 2 nodes x 1 thread, one JVM each, one VM per protection mode and wait strategy (%s)"
                + " in this run; the 8 KiB target with SPIN (2x MPI's 8 KiB ping-pong) is evaluated by `dsa bench stream`;"
                + " %d warm-up and %d timed operations per size, medians; baseline servers (no protection) and the second Hazelcast"
                + " member each in their own JVM; loopback TCP.%s", String.join(", ", settings.stream().map(Setting::toString).toList()), warmup, iters,
                tuningOptions.tuning().notes());
        BenchOut.markdown(out, "miss", "Remote miss vs partition size (paper Fig. 9)", BenchCommand.typed(spec), notes, table.toString(), targets);
    }

    private static String dash(double v) { return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%.1f", v); }
}
