package io.dsa.bench;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.dsa.agent.RunReport;
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
 * 2-node VM of two JVMs ({@link MissProgram}), beside a thin Netty round trip and a plain socket
 * RPC of the same bytes (server in another JVM, {@link RpcPeers}) and Hazelcast
 * {@code IMap<Integer, byte[]>} get/set with the key owned by a member in another JVM.
 */
@Command(name = "miss", mixinStandardHelpOptions = true,
        description = "Remote read/write miss vs partition size (Fig. 9), beside thin Netty, a socket RPC and Hazelcast IMap.")
final class MissCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    BenchCommand.Common common = new BenchCommand.Common();

    @Option(names = "--sides", split = ",", paramLabel = "S,..", defaultValue = "8,16,32,64,128",
            description = "Partition sides s (s x s doubles, 8..128; default: ${DEFAULT-VALUE}).")
    List<Integer> sides;

    @Option(names = "--iters", defaultValue = "1000", description = "Timed operations per size (default: ${DEFAULT-VALUE}).")
    int iters;

    @Option(names = "--warmup", defaultValue = "500", description = "Warm-up operations per size (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--no-hazelcast", description = "Skip the Hazelcast peer (its start takes seconds).")
    boolean noHazelcast;

    /** One size: medians (and DSA p90s) in microseconds. */
    record Row(int side, int bytes, double readUs, double readP90Us, double writeUs, double writeP90Us, double nettyUs,
               double socketUs, double hzGetUs, double hzSetUs, double load) {}

    @Override
    public Integer call() throws Exception {
        if (common.smoke) { sides = List.of(8, 32); iters = 30; warmup = 20; }
        for (int s : sides) {
            if (s < 1 || s > 128) throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--sides: " + s + " not in [1, 128]");
        }
        List<Row> rows = run();
        write(rows);
        return 0;
    }

    List<Row> run() throws Exception {
        String sideList = String.join(",", sides.stream().map(String::valueOf).toList());
        RunReport report = ProcessVm.run(new MissProgram(), 2, 1, List.of(sideList, Integer.toString(warmup), Integer.toString(iters)),
                common.out);
        Map<Integer, double[]> dsa = new LinkedHashMap<>();
        for (double[] r : ProcessVm.numbers(report, "miss ")) dsa.put((int) r[0], r);
        Map<Integer, double[]> rpc = rpcBaselines();
        Map<Integer, double[]> hz = noHazelcast ? Map.of() : hazelcast(sides, warmup, iters);
        List<Row> rows = new ArrayList<>();
        for (int s : sides) {
            double[] d = dsa.get(s), r = rpc.get(s), h = hz.get(s);
            Row row = new Row(s, s * s * 8, d[1] / 1e3, d[2] / 1e3, d[3] / 1e3, d[4] / 1e3, r[0] / 1e3, r[1] / 1e3,
                    h == null ? Double.NaN : h[0] / 1e3, h == null ? Double.NaN : h[1] / 1e3, BarrierBench.loadAverage());
            System.out.printf(Locale.ROOT, "miss %3dx%-3d %7d B: read %.1f us, write %.1f us, netty %.1f us, socket %.1f us, hz get %.1f us, set %.1f us%n",
                    s, s, row.bytes(), row.readUs(), row.writeUs(), row.nettyUs(), row.socketUs(), row.hzGetUs(), row.hzSetUs());
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
        StringBuilder table = new StringBuilder("| partition | bytes | DSA read miss µs | p90 | DSA write miss µs | p90 | thin Netty µs | socket RPC µs | Hazelcast get µs | Hazelcast set µs | read/Netty | read/HZ get |\n")
                .append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        double[] xs = new double[rows.size()];
        double[][] ys = new double[6][rows.size()];
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            csv.add(String.join(",", String.valueOf(r.side()), String.valueOf(r.bytes()), BenchOut.f(r.readUs()), BenchOut.f(r.readP90Us()),
                    BenchOut.f(r.writeUs()), BenchOut.f(r.writeP90Us()), BenchOut.f(r.nettyUs()), BenchOut.f(r.socketUs()),
                    BenchOut.f(r.hzGetUs()), BenchOut.f(r.hzSetUs()), BenchOut.f(r.load())));
            table.append(String.format(Locale.ROOT, "| %dx%d | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %s | %s | %.2f | %s |%n", r.side(), r.side(),
                    r.bytes(), r.readUs(), r.readP90Us(), r.writeUs(), r.writeP90Us(), r.nettyUs(), r.socketUs(), dash(r.hzGetUs()),
                    dash(r.hzSetUs()), r.readUs() / r.nettyUs(), Double.isNaN(r.hzGetUs()) ? "–" : String.format(Locale.ROOT, "%.2f", r.readUs() / r.hzGetUs())));
            xs[i] = r.bytes() / 1024.0;
            double[] v = {r.readUs(), r.writeUs(), r.nettyUs(), r.socketUs(), r.hzGetUs(), r.hzSetUs()};
            for (int j = 0; j < 6; j++) ys[j][i] = v[j];
        }
        BenchOut.csv(out, "miss", "side,bytes,dsa_read_us,dsa_read_p90_us,dsa_write_us,dsa_write_p90_us,netty_us,socket_us,hz_get_us,hz_set_us,load", csv);
        Map<String, double[][]> series = new LinkedHashMap<>();
        String[] names = {"DSA read miss", "DSA write miss", "thin Netty round trip", "socket RPC", "Hazelcast IMap.get", "Hazelcast IMap.set"};
        for (int j = 0; j < 6; j++) series.put(names[j], new double[][] {xs, ys[j]});
        BenchOut.plot(out, "miss", "Remote miss vs partition size (2 JVMs, loopback)", "partition KiB", "µs (median)", true, series);
        List<String> targets = new ArrayList<>();
        Row r8 = rows.stream().filter(r -> r.bytes() == 8192).findFirst().orElse(null);
        if (r8 == null) {
            targets.add("8 KiB (32x32) not in this run: targets not evaluated");
        } else {
            targets.add(BenchOut.ratio("8 KiB read miss vs thin Netty", r8.readUs(), r8.nettyUs(), 1.3, "µs"));
            if (Double.isNaN(r8.hzGetUs())) {
                targets.add("8 KiB read miss vs Hazelcast get: Hazelcast not run");
            } else {
                targets.add(BenchOut.ratio("8 KiB read miss vs Hazelcast IMap.get (faster means < 1)", r8.readUs(), r8.hzGetUs(), 1.0, "µs"));
            }
        }
        String notes = String.format(Locale.ROOT, "- 2 nodes x 1 thread, one JVM each; %d warm-up and %d timed operations per size, medians; "
                + "baseline servers and the second Hazelcast member each in their own JVM; loopback TCP", warmup, iters);
        BenchOut.markdown(out, "miss", "Remote miss vs partition size (paper Fig. 9)", BenchCommand.typed(spec), notes, table.toString(), targets);
    }

    private static String dash(double v) { return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%.1f", v); }
}
