package io.dsa.bench;

import io.dsa.DsaProgram;
import io.dsa.agent.DsaAgent;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.WaitStrategy;
import io.dsa.agent.RunReport;
import io.dsa.agent.transport.TransportSecurity;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a program on a virtual machine of {@code nodes} agents, one JVM per node: node 0 in this
 * process (so the program's report comes back as a {@link RunReport}), nodes 1.. as child
 * processes started with {@code io.dsa.agent.cli.DsaCli node}, their output appended to
 * {@code out/nodes.log}. Every child is killed by its handle when the run ends or fails.
 */
final class ProcessVm {
    private ProcessVm() {}

    /** @return this JVM's java executable */
    static String java() { return Path.of(System.getProperty("java.home"), "bin", "java").toString(); }

    /** @return this JVM's class path with absolute entries, for child JVMs */
    static String classPath() {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(p -> Path.of(p).toAbsolutePath().toString()).reduce((a, b) -> a + File.pathSeparator + b).orElse("");
    }

    static RunReport run(DsaProgram program, int nodes, int threads, List<String> args, Path out) throws Exception {
        return run(program, nodes, threads, args, out, TransportSecurity.ENCRYPT);
    }

    /** As {@link #run(DsaProgram, int, int, List, Path)}, every connection of the VM protected with {@code security}. */
    static RunReport run(DsaProgram program, int nodes, int threads, List<String> args, Path out, TransportSecurity security)
            throws Exception {
        return run(program, nodes, threads, args, out, security, WaitStrategy.ADAPTIVE);
    }

    /** As {@link #run(DsaProgram, int, int, List, Path)}, with {@code security} and every node waiting by {@code wait}. */
    static RunReport run(DsaProgram program, int nodes, int threads, List<String> args, Path out, TransportSecurity security,
            WaitStrategy wait) throws Exception {
        return run(program, nodes, threads, args, out, security, wait, DsaConfig.DEFAULT_PREFETCH_WINDOW);
    }

    /** As above, every node with prefetch window {@code prefetchWindow} ({@code DsaConfig.prefetchWindow}). */
    static RunReport run(DsaProgram program, int nodes, int threads, List<String> args, Path out, TransportSecurity security,
            WaitStrategy wait, int prefetchWindow) throws Exception {
        return run(program, nodes, threads, args, out, security, wait, prefetchWindow, Tuning.DEFAULT);
    }

    /**
     * Settings a benchmark may change from a VM's defaults, on every node.
     *
     * @param selfInvalidation {@code DsaConfig.selfInvalidation}
     * @param hitCounts {@code DsaConfig.hitCounts}
     * @param bindCores {@code DsaConfig.bindCores}
     */
    record Tuning(boolean selfInvalidation, boolean hitCounts, boolean bindCores) {
        /** A VM's defaults. */
        static final Tuning DEFAULT = new Tuning(false, true, false);

        /** @return {@code config} with these settings */
        DsaConfig.Builder apply(DsaConfig.Builder config) {
            return config.selfInvalidation(selfInvalidation).hitCounts(hitCounts).bindCores(bindCores);
        }

        /** @return the {@code dsa node} options that give a child node these settings */
        List<String> arguments() {
            List<String> a = new ArrayList<>();
            if (selfInvalidation) a.add("--self-invalidation");
            if (!hitCounts) a.add("--no-hit-counts");
            if (bindCores) a.add("--bind-cores");
            return a;
        }

        /** @return a sentence for a report's notes naming the settings that differ from the defaults, or "" */
        String notes() {
            return (selfInvalidation ? " DSA VMs with self-invalidation (`--self-invalidation`)." : "")
                    + (hitCounts ? "" : " DSA VMs without hit counts (`--no-hit-counts`).")
                    + (bindCores ? " DSA nodes bound to cores (`--bind-cores`)." : "");
        }
    }

    /** As above, every node with {@code tuning}. */
    static RunReport run(DsaProgram program, int nodes, int threads, List<String> args, Path out, TransportSecurity security,
            WaitStrategy wait, int prefetchWindow, Tuning tuning) throws Exception {
        Files.createDirectories(out);
        Path secret = Files.createTempFile("dsa-bench-secret", ".txt");
        byte[] bytes = new byte[24];
        new SecureRandom().nextBytes(bytes);
        Files.writeString(secret, HexFormat.of().formatHex(bytes));
        List<Process> children = new ArrayList<>();
        DsaAgent agent = DsaAgent.start(tuning.apply(DsaConfig.builder()).nodes(nodes).threadsPerNode(threads).nodeId(0).port(0)
                .bindHost(DsaConfig.DEFAULT_BIND_HOST).secretFile(secret).transportSecurity(security).waitStrategy(wait).machineThreads(nodes * (threads + 1))
                .prefetchWindow(prefetchWindow).build());
        File log = out.resolve("nodes.log").toFile();
        try {
            for (int node = 1; node < nodes; node++) {
                List<String> cmd = new ArrayList<>(List.of(java(), "-cp", classPath(), "io.dsa.agent.cli.DsaCli", "node",
                        "--node", Integer.toString(node), "--nodes", Integer.toString(nodes),
                        "--threads", Integer.toString(threads), "--monitor", agent.address(),
                        "--secret-file", secret.toString(), "--transport-security", security.name(), "--wait", wait.name(),
                        "--machine-threads", Integer.toString(nodes * (threads + 1)), "--prefetch-window", Integer.toString(prefetchWindow)));
                cmd.addAll(tuning.arguments());
                cmd.add(program.getClass().getName());
                cmd.addAll(args);
                children.add(new ProcessBuilder(cmd).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(log)).start());
            }
            RunReport report = agent.run(program, args);
            for (Process p : children) {
                if (!p.waitFor(120, TimeUnit.SECONDS)) throw new IllegalStateException("a node did not exit; see " + log);
                if (p.exitValue() != 0) throw new IllegalStateException("a node exited with " + p.exitValue() + "; see " + log);
            }
            return report;
        } finally {
            agent.close();
            destroy(children);
            Files.deleteIfExists(secret);
        }
    }

    static void destroy(List<Process> processes) throws InterruptedException {
        for (Process p : processes) {
            if (p.isAlive()) {
                p.destroy();
                if (!p.waitFor(5, TimeUnit.SECONDS)) p.destroyForcibly();
            }
        }
    }

    /** @return the numbers after {@code prefix}, one array per report line that contains it */
    static List<double[]> numbers(RunReport report, String prefix) throws IOException {
        List<double[]> rows = new ArrayList<>();
        for (String line : report.lines()) {
            int at = line.indexOf(prefix);
            if (at < 0) continue;
            rows.add(Arrays.stream(line.substring(at + prefix.length()).trim().split("\\s+")).mapToDouble(Double::parseDouble).toArray());
        }
        if (rows.isEmpty()) throw new IOException("no report line with '" + prefix + "' in " + report.lines());
        return rows;
    }
}
