package io.dsa.bench;

import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ReduceOp;
import io.dsa.SharedDoubleArray;
import io.dsa.agent.BarrierKind;
import io.dsa.agent.DsaCluster;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.ProxyMode;
import io.dsa.agent.RunReport;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Counts the thread hand-offs of remote operations: how often the threads of a VM running in this
 * JVM blocked (voluntary context switches, from {@code /proc/self/task/N/status}) per operation,
 * by thread group: the thread that makes the access ({@code caller}: a library-style access from
 * the bench's main thread, or the node's workers), the nodes' I/O threads, and the rest. A thread
 * that blocked had to be woken by another one, so with PARK the sum is the wake-ups per operation;
 * spinning threads hand off without blocking and show less.
 *
 * <pre>java -cp dsa-bench/target/benchmarks.jar io.dsa.bench.HandOffCount [--ops N] [--wait PARK,SPIN,ADAPTIVE]</pre>
 *
 * <p>Operations: a read miss (8 KiB partition homed at node 0, read whole at node 1 after node 0
 * wrote it), a write miss without invalidations (node 1 writes after node 0 took the partition
 * back), a write miss with one invalidation (node 1 upgrades while node 2 holds a shared copy),
 * and on 4 nodes x 2 threads a global barrier (TREE, FLOAT and FIXED proxies) and a 1-value
 * {@code allReduce}. It uses only the public API (and sets the wait strategy by reflection when the
 * build has one), so the same class runs against an older build for a before/after table. Linux
 * only; figures depend on the machine's load (noisy).
 */
public final class HandOffCount {
    private static final int SIDE = 32; // 32 x 32 doubles: 8 KiB

    private HandOffCount() {}

    /** The nodes' arrays of the last run, captured in setup for library-style accesses from this thread. */
    public static final class Capture implements DsaProgram {
        static final AtomicReferenceArray<SharedDoubleArray> ARRAYS = new AtomicReferenceArray<>(4);

        @Override
        public void setup(DsaNode node) {
            // one row of partitions: BLOCK puts partition 0 at node 0
            ARRAYS.set(node.network().nodeId(), node.createSharedDoubleArray("A", SIDE, SIDE * node.network().nodeCount(), SIDE));
        }

        @Override
        public void work(DsaWorker worker) {}
    }

    /** Worker 0 of node 0 counts the switches around OPS barriers (or 1-value allReduces) that every worker makes. */
    public static final class Rounds implements DsaProgram {
        @Override
        public void work(DsaWorker w) throws IOException {
            int ops = Integer.parseInt(w.node().args().get(0));
            boolean reduce = w.node().args().get(1).equals("allReduce");
            for (int i = 0; i < 50; i++) w.barrier(); // warm-up
            Map<String, Long> before = w.threadId() == 0 ? switches() : null;
            double sink = 0;
            for (int i = 0; i < ops; i++) {
                if (reduce) sink += w.allReduce(1.0, ReduceOp.SUM);
                else w.barrier();
            }
            if (w.threadId() == 0) {
                Map<String, Long> after = switches();
                w.node().report("rounds " + format(delta(before, after), ops) + " sink " + sink);
            }
            w.barrier();
        }
    }

    public static void main(String[] args) throws Exception {
        int ops = 200;
        List<String> waits = List.of("PARK", "SPIN", "ADAPTIVE");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--ops" -> ops = Integer.parseInt(args[++i]);
                case "--wait" -> waits = List.of(args[++i].toUpperCase(Locale.ROOT).split(","));
                case "--help", "-h" -> {
                    System.out.println("usage: java -cp benchmarks.jar " + HandOffCount.class.getName() + " [--ops N] [--wait LIST]");
                    return;
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (!hasWaitStrategy()) waits = List.of("(this build has none)");
        System.out.println("blocking waits (voluntary context switches) per operation, by thread group; noisy");
        for (String wait : waits) {
            for (String line : run(wait, ops)) System.out.println(wait + " " + line);
        }
        System.exit(0);
    }

    /** @return one line per operation: its name and the switches per operation of each thread group */
    static List<String> run(String wait, int ops) throws Exception {
        List<String> lines = new ArrayList<>();
        try (DsaCluster cluster = DsaCluster.local(config(3, 1, wait).build())) {
            cluster.run(new Capture());
            SharedDoubleArray home = Capture.ARRAYS.get(0), one = Capture.ARRAYS.get(1), two = Capture.ARRAYS.get(2);
            double[] buf = new double[SIDE * SIDE];
            lines.add("read miss " + measure(ops, i -> home.write(0, 0, i), i -> one.readPartition(0, buf)));
            lines.add("write miss, no invalidation " + measure(ops, i -> home.write(0, 0, i), i -> one.write(0, 1, i)));
            lines.add("write miss, 1 invalidation " + measure(ops, i -> {
                home.write(0, 0, i);
                one.read(0, 0);
                two.read(0, 0);
            }, i -> one.write(0, 1, i)));
        }
        for (String proxy : List.of("FLOAT", "FIXED")) {
            lines.add("barrier TREE/" + proxy + " 4x2 " + rounds(wait, proxy, ops, "barrier"));
        }
        lines.add("allReduce 1 value TREE/FLOAT 4x2 " + rounds(wait, "FLOAT", ops, "allReduce"));
        return lines;
    }

    private static String rounds(String wait, String proxy, int ops, String what) throws Exception {
        try (DsaCluster cluster = DsaCluster.local(config(4, 2, wait).barrier(BarrierKind.TREE).proxy(ProxyMode.valueOf(proxy)).build())) {
            RunReport report = cluster.run(new Rounds(), Integer.toString(ops), what);
            for (String line : report.lines()) {
                int at = line.indexOf("rounds ");
                if (at >= 0) return line.substring(at + 7, line.indexOf(" sink "));
            }
            throw new IllegalStateException("no count reported: " + report.lines());
        }
    }

    /** One step of a measurement, given its index. */
    @FunctionalInterface
    interface Step {
        void run(int i) throws Exception;
    }

    /** Runs {@code setup} then {@code op}, {@code ops} times (after a warm-up), counting the switches around each {@code op} only. */
    static String measure(int ops, Step setup, Step op) throws Exception {
        for (int i = 0; i < 50; i++) {
            setup.run(i);
            op.run(i);
        }
        Map<String, Long> total = new LinkedHashMap<>();
        double[] ns = new double[ops];
        for (int i = 0; i < ops; i++) {
            setup.run(i);
            settle();
            Map<String, Long> before = switches();
            long t0 = System.nanoTime();
            op.run(i);
            ns[i] = System.nanoTime() - t0;
            settle();
            Map<String, Long> after = switches();
            delta(before, after).forEach((k, v) -> total.merge(k, v, Long::sum));
        }
        return format(total, ops) + String.format(Locale.ROOT, " | median %.1f us", BenchOut.median(ns) / 1e3);
    }

    /** Spins half a millisecond (no switch of this thread), so the I/O threads finish the previous step and go idle. */
    private static void settle() {
        long end = System.nanoTime() + 500_000;
        while (System.nanoTime() < end) Thread.onSpinWait();
    }

    static String format(Map<String, Long> perGroup, int ops) {
        StringBuilder sb = new StringBuilder();
        double sum = 0;
        for (Map.Entry<String, Long> e : perGroup.entrySet()) {
            if (!e.getKey().equals("other")) sum += (double) e.getValue() / ops;
            sb.append(String.format(Locale.ROOT, " %s %.2f", e.getKey(), (double) e.getValue() / ops));
        }
        return String.format(Locale.ROOT, "| caller+workers+io %.2f |", sum) + sb;
    }

    static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> d = new LinkedHashMap<>();
        for (String k : List.of("caller", "workers", "io", "other")) d.put(k, after.getOrDefault(k, 0L) - before.getOrDefault(k, 0L));
        return d;
    }

    /** @return voluntary context switches so far, summed by thread group (threads that ended are not counted) */
    static Map<String, Long> switches() throws IOException {
        Map<String, Long> groups = new LinkedHashMap<>();
        String me = Long.toString(threadId());
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                String name;
                long voluntary = -1;
                try {
                    name = Files.readString(task.resolve("comm")).trim();
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")) voluntary = Long.parseLong(line.substring(24).trim());
                    }
                } catch (IOException e) {
                    continue; // the thread ended meanwhile
                }
                if (voluntary < 0) continue;
                String group = task.getFileName().toString().equals(me) ? "caller" : name.startsWith("dsa-worker") ? "workers"
                        : name.matches("(dsa-.*-io.*|mem-io.*)") ? "io" : "other";
                groups.merge(group, voluntary, Long::sum);
            }
        }
        return groups;
    }

    /** @return the calling thread's kernel id (its entry in /proc/self/task) */
    private static long threadId() throws IOException {
        return Long.parseLong(Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString());
    }

    private static boolean hasWaitStrategy() {
        try {
            Class.forName("io.dsa.agent.WaitStrategy");
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    private static DsaConfig.Builder config(int nodes, int threads, String wait) throws Exception {
        DsaConfig.Builder b = DsaConfig.builder().nodes(nodes).threadsPerNode(threads);
        if (hasWaitStrategy()) {
            @SuppressWarnings({"unchecked", "rawtypes"})
            Object strategy = Enum.valueOf((Class) Class.forName("io.dsa.agent.WaitStrategy"), wait);
            b.getClass().getMethod("waitStrategy", strategy.getClass()).invoke(b, strategy);
        }
        return b;
    }
}
