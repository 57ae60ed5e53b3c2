package io.dsa.agent.host;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The heap and processors of one job's JVM: what its launcher asked for, capped by the host.
 *
 * <ul>
 * <li>heap: {@code -Xmx}, enforced by the JVM; with {@code -XX:+ExitOnOutOfMemoryError} an
 *     {@code OutOfMemoryError} ends that JVM (exit code 3) and nothing else;</li>
 * <li>processors: {@code -XX:ActiveProcessorCount} (what the JVM and the program see, so thread
 *     pools and GC size themselves), and, where {@code taskset} exists and fewer processors than
 *     the host's are granted, a CPU affinity set of that many processors. Affinity binds a
 *     well-behaved job; a hostile one could widen its own (it runs as the host's user), so it is
 *     not a security boundary (docs/hosts.md, "Limits").</li>
 * </ul>
 *
 * @param heapBytes the JVM's {@code -Xmx}; 0 for the JVM's default
 * @param cpus the processors the JVM sees
 * @param notes what the host changed in the request, for the launcher (empty when nothing)
 */
record JobLimits(long heapBytes, int cpus, List<String> notes) {
    /**
     * @param askedHeap the launcher's request in bytes, 0 for the host's default
     * @param askedCpus the launcher's request, 0 for the host's default
     */
    static JobLimits resolve(long askedHeap, int askedCpus, HostConfig host) {
        List<String> notes = new ArrayList<>();
        long heap = askedHeap > 0 ? askedHeap : host.maxJobHeapBytes();
        if (host.maxJobHeapBytes() > 0 && heap > host.maxJobHeapBytes()) {
            notes.add("heap capped at " + HostConfig.formatBytes(host.maxJobHeapBytes()) + " (asked "
                    + HostConfig.formatBytes(askedHeap) + "; the host's --max-job-heap)");
            heap = host.maxJobHeapBytes();
        }
        int cpus = askedCpus > 0 ? askedCpus : host.maxJobCpus();
        if (cpus > host.maxJobCpus()) {
            notes.add("processors capped at " + host.maxJobCpus() + " (asked " + askedCpus + "; the host's --max-job-cpus)");
            cpus = host.maxJobCpus();
        }
        return new JobLimits(heap, cpus, List.copyOf(notes));
    }

    /** @return whether a JVM started with {@code other}'s limits has these */
    boolean sameJvmAs(JobLimits other) { return heapBytes == other.heapBytes && cpus == other.cpus; }

    /** @return the command's prefix that pins the JVM to {@code cpuSet}; empty when it is null (not pinned) */
    static List<String> commandPrefix(String cpuSet) {
        return cpuSet == null ? List.of() : List.of(CpuSets.TASKSET.toString(), "-c", cpuSet);
    }

    /** @return the JVM options that apply the limits */
    List<String> jvmOptions() {
        List<String> options = new ArrayList<>();
        if (heapBytes > 0) options.add("-Xmx" + (heapBytes >> 10) + "k");
        options.add("-XX:ActiveProcessorCount=" + cpus);
        options.add("-XX:+ExitOnOutOfMemoryError");
        return options;
    }

    /** @return the heap for messages: {@code heap 64 MiB}, or that the JVM chose it */
    String describeHeap() {
        return heapBytes > 0 ? "heap " + HostConfig.formatBytes(heapBytes) : "heap: the JVM's default of "
                + HostConfig.formatBytes(Runtime.getRuntime().maxMemory()) + " on this host";
    }

    /**
     * Hands out CPU affinity sets from the processors the host itself may use, round robin, so
     * pinned jobs spread over them. Thread-safe.
     */
    static final class CpuSets {
        /** The {@code taskset} program, or null when this machine has none. */
        static final Path TASKSET = find("taskset");

        private final List<Integer> allowed;
        private final AtomicInteger next = new AtomicInteger();

        /** @param allowed the processors this host may use */
        CpuSets(List<Integer> allowed) { this.allowed = allowed; }

        /** @return the sets for this process: from {@code /proc/self/status}; none without {@code taskset} */
        static CpuSets forThisProcess() {
            if (TASKSET == null) return new CpuSets(List.of());
            try {
                for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII)) {
                    if (line.startsWith("Cpus_allowed_list:")) return new CpuSets(parse(line.substring(18).trim()));
                }
            } catch (IOException | RuntimeException e) {
                // not Linux: no pinning
            }
            return new CpuSets(List.of());
        }

        /** @return a {@code taskset -c} list of {@code cpus} processors, or null when pinning would not narrow anything */
        String next(int cpus) {
            if (allowed.isEmpty() || cpus >= allowed.size()) return null;
            int first = Math.floorMod(next.getAndAdd(cpus), allowed.size());
            StringJoiner list = new StringJoiner(",");
            for (int i = 0; i < cpus; i++) list.add(Integer.toString(allowed.get((first + i) % allowed.size())));
            return list.toString();
        }

        /** @return the processors of a list such as {@code 0-3,8,10-11} */
        static List<Integer> parse(String list) {
            List<Integer> cpus = new ArrayList<>();
            for (String part : list.split(",")) {
                if (part.isBlank()) continue;
                int dash = part.indexOf('-');
                int from = Integer.parseInt(part.substring(0, dash < 0 ? part.length() : dash).trim());
                int to = dash < 0 ? from : Integer.parseInt(part.substring(dash + 1).trim());
                for (int c = from; c <= to; c++) cpus.add(c);
            }
            return cpus;
        }

        private static Path find(String program) {
            String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
            for (String dir : path.split(java.io.File.pathSeparator)) {
                if (dir.isEmpty()) continue;
                Path p = Path.of(dir, program);
                if (Files.isRegularFile(p) && Files.isExecutable(p)) return p;
            }
            return null;
        }
    }
}
