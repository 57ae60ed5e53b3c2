package io.dsa.agent.cli;

import io.dsa.agent.HostPort;
import io.dsa.DsaException;
import io.dsa.agent.host.StatusRow;
import io.dsa.agent.host.HostClient;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import picocli.CommandLine.Model.CommandSpec;

/**
 * What the hosts say about one VM, for the commands that act on a node of it ({@code migrate},
 * {@code clone}, {@code read}) and for {@code status --wait-for-vm}: which host serves node K, or
 * why none does, in words that tell an unknown VM, a finished one and a missing node apart.
 * Hosts remember the nodes of a finished VM for ten minutes (docs/hosts.md).
 */
final class VmLookup {
    /** States of a node that has ended; its host lists it for a while after. */
    static final Set<String> ENDED = Set.of("DONE", "FAILED", "STOPPED");
    /** How long {@code --wait-for-vm} waits, at most. */
    static final long WAIT_MS = 120_000;
    /** How often {@code --wait-for-vm} asks the hosts. */
    static final long POLL_MS = 200;

    /** Where the status rows come from: {@link HostClient#status}, or a test's script. */
    @FunctionalInterface
    interface StatusSource {
        /**
         * @return the status rows of {@code host}'s agents of {@code vm}, checked
         * @throws RuntimeException when the host cannot be asked or answers with a bad row
         */
        List<StatusRow> status(HostPort host, String vm);
    }

    /** One status row and the host that sent it. */
    record Row(HostPort host, StatusRow row) {
        int node() { return row.node(); }

        String state() { return row.state(); }

        boolean live() { return !ENDED.contains(state()); }

        /** @return how many nodes the row's VM has, or 0 if the host did not say */
        int vmNodes() { return row.nodes(); }
    }

    private final String vm;
    private final List<HostPort> hosts;
    private final List<Row> rows;

    private VmLookup(String vm, List<HostPort> hosts, List<Row> rows) {
        this.vm = vm;
        this.hosts = hosts;
        this.rows = rows;
    }

    /** Asks every host for the rows of {@code vm}. @throws RuntimeException when a host cannot be asked */
    static VmLookup query(StatusSource client, List<HostPort> hosts, String vm) {
        List<Row> rows = new ArrayList<>();
        for (HostPort h : hosts) {
            for (StatusRow row : client.status(h, vm)) rows.add(new Row(h, row));
        }
        return new VmLookup(vm, hosts, rows);
    }

    /**
     * Asks until node {@code node} runs ({@code RUNNING}, or {@code CLONE} for a clone), the VM
     * has finished, or {@value #WAIT_MS} ms passed. {@code waiting} is told once, in one line,
     * if a host does not listen yet. @return the last answer
     */
    static VmLookup awaitNode(StatusSource client, List<HostPort> hosts, String vm, int node, Consumer<String> waiting)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        Consumer<String> once = once(waiting);
        while (true) {
            VmLookup now = queryOrWait(client, hosts, vm, deadline, once);
            if (now == null) continue;
            if (now.serving(node) != null || now.finished() || System.nanoTime() > deadline) return now;
            Thread.sleep(POLL_MS);   // the hosts offer no way to wait for a VM: ask again
        }
    }

    /**
     * Asks until every node of the VM runs (its launcher submits them one by one: node 0 first,
     * the others once node 0 listens), none of them starting, and the same answer twice in a row;
     * or the VM has finished, or {@value #WAIT_MS} ms passed. {@code waiting} is told once, in
     * one line, if a host does not listen yet. @return the last answer
     */
    static VmLookup awaitVm(StatusSource client, List<HostPort> hosts, String vm, Consumer<String> waiting) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        Consumer<String> once = once(waiting);
        String previous = null;
        while (true) {
            VmLookup now = queryOrWait(client, hosts, vm, deadline, once);
            if (now == null) continue;
            if (now.finished() || System.nanoTime() > deadline) return now;
            String nodes = now.liveNodes().toString();
            boolean starting = now.rows.stream().anyMatch(r -> r.live() && r.state().equals("STARTING"));
            boolean all = now.liveNodes().size() >= now.vmNodes();
            if (now.live() && all && !starting && nodes.equals(previous)) return now;
            previous = starting ? null : nodes;
            Thread.sleep(POLL_MS);   // the hosts offer no way to wait for a VM: ask again
        }
    }

    // A host that does not listen yet is asked again, until the deadline: then its error stands.
    private static VmLookup queryOrWait(StatusSource client, List<HostPort> hosts, String vm, long deadline, Consumer<String> waiting)
            throws InterruptedException {
        try {
            return query(client, hosts, vm);
        } catch (RuntimeException e) {
            if (!HostsRun.refused(e) || System.nanoTime() > deadline) throw e;
            waiting.accept("waiting up to " + WAIT_MS / 1000 + " s for the hosts to listen (" + Jobs.describe(e) + ")");
            Thread.sleep(POLL_MS);   // the host is not up yet: ask again
            return null;
        }
    }

    /** @return where a waiting command says what it waits for: the command's error stream, {@code dsa: }-prefixed */
    static Consumer<String> toErr(CommandSpec spec) {
        return line -> {
            PrintWriter err = spec.commandLine().getErr();
            err.println("dsa: " + line);
            err.flush();
        };
    }

    private static Consumer<String> once(Consumer<String> target) {
        AtomicBoolean told = new AtomicBoolean();
        return line -> {
            if (told.compareAndSet(false, true)) target.accept(line);
        };
    }

    /** @return the rows, live ones first */
    List<Row> rows() { return rows; }

    /** @return whether a node of the VM is live on one of the hosts */
    boolean live() { return rows.stream().anyMatch(Row::live); }

    /** @return whether the hosts remember the VM, and none of its nodes is live */
    boolean finished() { return !rows.isEmpty() && !live(); }

    /** @return the host serving node {@code node} of the VM (running, or a clone), or null */
    HostPort serving(int node) {
        for (Row r : rows) {
            if (r.live() && r.node() == node && (r.state().equals("RUNNING") || r.state().equals("CLONE"))) return r.host();
        }
        return null;
    }

    /**
     * @return why no host serves node {@code node}: the VM is unknown to the hosts, it has finished
     *         (how each node ended, and where), or it has no such node (the nodes it has)
     */
    String whyNot(int node) {
        if (rows.isEmpty()) {
            return "vm '" + vm + "' is unknown to " + hosts + " (is it running? hosts remember a finished vm for 10 minutes)";
        }
        if (!live()) {
            TreeMap<Integer, String> ended = new TreeMap<>();
            for (Row r : rows) ended.put(r.node(), r.state() + " on " + r.host());
            return "vm '" + vm + "' has finished: " + ended.entrySet().stream()
                    .map(e -> "node " + e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "));
        }
        for (Row r : rows) {
            if (r.live() && r.node() == node) return "node " + node + " of vm '" + vm + "' is " + r.state() + " on " + r.host();
        }
        return "vm '" + vm + "' has no node " + node + " on " + hosts + "; its nodes: " + liveNodes();
    }

    /** @return how many nodes the VM has, as its hosts say (0 if they do not) */
    private int vmNodes() { return rows.stream().mapToInt(Row::vmNodes).max().orElse(0); }

    private List<Integer> liveNodes() {
        return rows.stream().filter(Row::live).map(Row::node).distinct().sorted().toList();
    }
}
