package io.dsa.agent.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Binds a node's threads (its workers and its I/O thread) to a share of the machine's cores, as
 * MPI binds its ranks ({@code DsaConfig.bindCores}; docs/runtime.md, "Binding nodes to cores").
 * The cores this JVM may run on are divided among the VM's nodes on this machine (all of them,
 * unless the launcher placed them on several: {@code DsaConfig.coreShare}): with {@code n} nodes and
 * {@code c} cores, node {@code k} gets cores {@code [k c / n, (k + 1) c / n)} when {@code n <= c},
 * else core {@code k mod c}. A thread binds itself by running {@code taskset -p -c CORES TID}
 * (util-linux) on its own thread id. Linux only; where that fails (another system, no
 * {@code taskset}) the thread runs unbound and the first failure is logged once per JVM. Public
 * for {@code dsa bench handoff}, which binds its probe threads the same way.
 */
public final class CoreBinding {
    private static final Logger LOG = LoggerFactory.getLogger(CoreBinding.class);
    private static final AtomicBoolean WARNED = new AtomicBoolean();
    private static final long TASKSET_TIMEOUT_SECONDS = 10;

    private CoreBinding() {}

    /**
     * @param node the node's id
     * @param nodes the VM's nodes
     * @param allowed the cores this JVM may run on, ascending
     * @return the cores of {@code node}'s share, ascending (one at least)
     * @throws IllegalArgumentException if {@code node} is not in {@code [0, nodes)} or no core is allowed
     */
    static List<Integer> coresOf(int node, int nodes, List<Integer> allowed) {
        if (node < 0 || node >= nodes) throw new IllegalArgumentException("node " + node + " is not in [0, " + nodes + ")");
        int c = allowed.size();
        if (c == 0) throw new IllegalArgumentException("no core to bind node " + node + " to");
        if (nodes > c) return List.of(allowed.get(node % c));
        return List.copyOf(allowed.subList((int) ((long) node * c / nodes), (int) ((long) (node + 1) * c / nodes)));
    }

    /**
     * @param list a CPU list as Linux writes it ({@code 0-3,8,10-11})
     * @return its CPUs, ascending
     * @throws IllegalArgumentException if it does not parse
     */
    static List<Integer> parseCpuList(String list) {
        List<Integer> cpus = new ArrayList<>();
        for (String part : list.trim().split(",")) {
            try {
                int dash = part.indexOf('-');
                int from = Integer.parseInt(part.substring(0, dash < 0 ? part.length() : dash).trim());
                int to = dash < 0 ? from : Integer.parseInt(part.substring(dash + 1).trim());
                if (from < 0 || to < from) throw new NumberFormatException();
                for (int cpu = from; cpu <= to; cpu++) cpus.add(cpu);
            } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
                throw new IllegalArgumentException("not a CPU list: '" + list + "' (at '" + part + "')");
            }
        }
        return cpus;
    }

    /** @return the cores the calling thread may run on @throws IOException if unreadable */
    public static List<Integer> allowedCores() throws IOException {
        return allowedCores(Path.of("/proc/thread-self/status"));
    }

    /**
     * @param status a {@code /proc} status file of a thread or process
     * @return its {@code Cpus_allowed_list}
     * @throws IOException if unreadable or without that line
     */
    static List<Integer> allowedCores(Path status) throws IOException {
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("Cpus_allowed_list:")) return parseCpuList(line.substring(line.indexOf(':') + 1));
        }
        throw new IOException(status + " has no Cpus_allowed_list");
    }

    /**
     * Binds the calling thread to share {@code node} of {@code nodes} of the cores the JVM may use,
     * those of its main thread ({@code DsaConfig.coreShare}: the node id of the VM's nodes, or the
     * node's index among the nodes on its machine where a launcher spread them over machines; a
     * share past the last, a clone's node id, shares with {@code node mod nodes}).
     *
     * @return whether it is bound
     */
    static boolean bindCurrentThread(int node, int nodes) {
        try {
            bindCurrentThreadTo(coresOf(node % nodes, nodes, allowedCores(Path.of("/proc/self/status"))));
            return true;
        } catch (IOException | RuntimeException e) {
            if (WARNED.compareAndSet(false, true)) LOG.warn("node {}: its threads run unbound: {}", node, e.toString());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Binds the calling thread to {@code cores} with {@code taskset -p -c CORES TID} on its own
     * thread id, and reads its allowed cores back.
     *
     * @param cores the cores, ascending
     * @throws IOException naming why not: not Linux, no {@code taskset}, refused, or the thread may
     *         still run elsewhere
     * @throws InterruptedException if interrupted while {@code taskset} runs
     */
    public static void bindCurrentThreadTo(List<Integer> cores) throws IOException, InterruptedException {
        String tid = Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString();
        String list = String.join(",", cores.stream().map(String::valueOf).toList());
        Process p = new ProcessBuilder("taskset", "-p", "-c", list, tid).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!p.waitFor(TASKSET_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("taskset did not finish within " + TASKSET_TIMEOUT_SECONDS + " s");
        }
        if (p.exitValue() != 0) throw new IOException("taskset -p -c " + list + " " + tid + " exited with " + p.exitValue());
        List<Integer> now = allowedCores();
        if (!now.equals(cores)) throw new IOException("taskset -p -c " + list + " " + tid + " said yes, but the thread may run on " + now);
    }
}
