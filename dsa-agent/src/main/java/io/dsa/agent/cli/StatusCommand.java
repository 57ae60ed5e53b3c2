package io.dsa.agent.cli;

import io.dsa.DsaException;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.HostPort;
import io.dsa.agent.host.AgentHost;
import io.dsa.agent.host.HostClient;
import io.dsa.agent.host.StatusRow;
import io.dsa.agent.metrics.ArrayCounts;
import io.dsa.agent.metrics.NodeCounts;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dsa status}: asks running hosts which agents they serve and prints one table row per
 * node: its VM, host, agent address, state, program, and partitions homed and cached there.
 */
@Command(name = "status",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {"Shows the nodes that running 'dsa host' daemons serve: VM, node, host, agent address, state,",
            "program, and the partitions homed at and cached by each node.",
            "Nodes that ended (DONE, FAILED, STOPPED) stay listed for 10 minutes.",
            "--stacks VM shows where every worker of the VM is instead; --watch a live table of each node's counts.",
            "The cluster secret comes from --secret-file or the environment variable " + DsaConfig.SECRET_ENV + "."},
        footer = {"", "Examples:",
            "  dsa status --hosts 10.0.0.2:7000,10.0.0.3:7000 --vm jacobi",
            "  dsa status --host 10.0.0.2:7000",
            "  dsa run --hosts 10.0.0.2:7000,10.0.0.3:7000 --vm demo jacobi 512 20000 &",
            "  dsa status --hosts 10.0.0.2:7000,10.0.0.3:7000 --wait-for-vm demo",
            "  dsa status --hosts 10.0.0.2:7000,10.0.0.3:7000 --stacks jacobi",
            "  dsa status --hosts 10.0.0.2:7000,10.0.0.3:7000 --watch --vm jacobi --interval 1"})
final class StatusCommand implements Callable<Integer> {
    /** How long to wait for each host. */
    static final long TIMEOUT_MS = 10_000;

    @Spec
    CommandSpec spec;

    @Option(names = {"--hosts", "--host"}, paramLabel = "HOST:PORT[,HOST:PORT...]",
            defaultValue = "${env:" + HostList.HOSTS_ENV + "}",
            description = "The hosts to ask; default: the environment variable " + HostList.HOSTS_ENV + ".")
    String hostsOption;

    @Option(names = "--vm", paramLabel = "NAME", description = "Only this VM (default: every VM).")
    String vmName;

    @Option(names = "--wait-for-vm", paramLabel = "NAME",
            description = "Only this VM, once its nodes run: waits (up to " + VmLookup.WAIT_MS / 1000 + " s) until the hosts"
                    + " serve its nodes, for a command typed right after 'dsa run ... &'.")
    String waitForVm;

    @Option(names = "--stacks", paramLabel = "VM",
            description = "Where every unfinished worker of this VM is, one line each: the barrier and epoch it waits in, the"
                    + " partition (array and index) or lock it waits for, or 'running' with its top stack frames.")
    String stacksVm;

    @Option(names = "--watch",
            description = "A live table of each node's counts (hits, misses, invalidations sent and received, bytes in and out),"
                    + " refreshed every --interval seconds until Ctrl-C or until no node of the VMs shown runs.")
    boolean watch;

    @Option(names = "--interval", paramLabel = "SECONDS", defaultValue = "2",
            description = "Seconds between two tables of --watch, 1 to " + MAX_INTERVAL_SECONDS + " (default: ${DEFAULT-VALUE}).")
    int intervalSeconds;

    /** Longest --interval. */
    static final int MAX_INTERVAL_SECONDS = 3600;

    @Mixin
    SecretOptions secretOptions;

    @Mixin
    TransportSecurityOption security = new TransportSecurityOption();

    @Override
    public Integer call() throws InterruptedException {
        if (vmName != null && waitForVm != null) throw Checks.usage(spec, "--vm and --wait-for-vm exclude each other");
        if (stacksVm != null && (watch || vmName != null || waitForVm != null)) {
            throw Checks.usage(spec, "--stacks names its VM: drop --vm, --wait-for-vm and --watch");
        }
        Checks.range(spec, "--interval", intervalSeconds, 1, MAX_INTERVAL_SECONDS);
        List<HostPort> hosts = HostList.parse(spec, "--hosts", hostsOption);
        byte[] secret = secretOptions.secret(spec);
        PrintWriter out = spec.commandLine().getOut();
        if (stacksVm != null) return stacks(hosts, secret, out);
        List<StatusRow> rows = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        String vm = waitForVm != null ? waitForVm : vmName;
        try (HostClient client = HostClient.open(secret, DsaConfig.DEFAULT_BIND_HOST, TIMEOUT_MS, security.value)) {
            if (waitForVm != null) {
                try {
                    VmLookup.awaitVm(client::status, hosts, waitForVm, VmLookup.toErr(spec));
                } catch (RuntimeException e) {
                    problems.add(Jobs.describe(e));   // a host that cannot be asked: the rows below say which
                }
            }
            client.dialAll(hosts);   // every handshake at once
            for (HostPort h : hosts) {
                try {
                    rows.addAll(client.status(h, vm));
                } catch (RuntimeException e) {
                    problems.add(Jobs.describe(e));
                }
            }
        }
        rows.sort(Comparator.comparing(StatusRow::vm).thenComparingInt(StatusRow::node));
        List<String[]> cells = new ArrayList<>();
        for (StatusRow r : rows) {
            cells.add(new String[] {r.vm(), Integer.toString(r.node()), r.host(), r.agent(), r.state(), r.programSimpleName(),
                    StatusRow.count(r.homed()), StatusRow.count(r.cached())});
        }
        if (watch && problems.isEmpty() && (vm == null || !rows.isEmpty())) return watch(hosts, secret, vm, out);
        if (!rows.isEmpty() || vm == null) print(out, AgentHost.STATUS_COLUMNS, cells);   // an unknown vm: its error line alone
        for (String p : problems.stream().distinct().toList()) out.println("error: " + p);
        boolean live = rows.stream().anyMatch(r -> !VmLookup.ENDED.contains(r.state()));
        if (vm != null && rows.isEmpty() && problems.isEmpty()) {
            out.println("error: vm '" + vm + "' is unknown to " + hosts + " (is it running? hosts remember a finished vm for 10 minutes)");
        } else if (vm != null && !live && problems.isEmpty()) {
            out.println("vm '" + vm + "' has finished");
        } else if (waitForVm != null && !live && problems.isEmpty()) {
            out.println("error: vm '" + vm + "' did not start within " + VmLookup.WAIT_MS / 1000 + " s");
        }
        out.flush();
        return problems.isEmpty() && (vm == null || !rows.isEmpty()) ? 0 : DsaCli.EXIT_FAILED;
    }

    // --stacks: every host's lines for the VM, by node.
    private int stacks(List<HostPort> hosts, byte[] secret, PrintWriter out) {
        List<String> lines;
        try (HostClient client = HostClient.open(secret, DsaConfig.DEFAULT_BIND_HOST, TIMEOUT_MS, security.value)) {
            lines = HostWorkers.ask(client, hosts, stacksVm);
        }
        if (lines.isEmpty()) {
            out.println("error: vm '" + stacksVm + "' is unknown to " + hosts + " (is it running?)");
            out.flush();
            return DsaCli.EXIT_FAILED;
        }
        for (String line : lines) out.println(line);
        out.flush();
        return lines.stream().anyMatch(l -> l.startsWith("host ")) ? DsaCli.EXIT_FAILED : 0;
    }

    /** The --watch table's hits of a node that does not count them ({@code dsa run --no-hit-counts}). */
    static final String NOT_COUNTED = "not counted";

    /** Columns of the --watch table. */
    static final List<String> WATCH_COLUMNS = List.of("VM", "NODE", "HITS", "MISSES", "INV SENT", "INV RECEIVED", "BYTES IN", "BYTES OUT");

    // --watch: a table of every node's counts per interval, until no node of the VM (or of any VM) serves.
    private int watch(List<HostPort> hosts, byte[] secret, String vm, PrintWriter out) throws InterruptedException {
        boolean terminal = System.console() != null;
        try (HostClient client = HostClient.open(secret, DsaConfig.DEFAULT_BIND_HOST, TIMEOUT_MS, security.value)) {
            while (true) {
                List<NodeCounts> nodes = new ArrayList<>();
                boolean live = false;
                for (HostPort h : hosts) {
                    try {
                        live |= client.status(h, vm).stream().anyMatch(r -> !VmLookup.ENDED.contains(r.state()));
                        nodes.addAll(client.counters(h, vm));
                    } catch (RuntimeException e) {
                        out.println("error: " + Jobs.describe(e));
                    }
                }
                if (!live) {
                    out.println(vm == null ? "no vm runs on " + hosts : "vm '" + vm + "' has ended");
                    out.flush();
                    return 0;
                }
                if (terminal) out.print("\033[H\033[2J");   // a terminal: the table replaces the last one
                out.println((vm == null ? "every vm" : "vm '" + vm + "'") + " at " + java.time.LocalTime.now().withNano(0)
                        + ", every " + intervalSeconds + " s (Ctrl-C to stop)");
                nodes.sort(Comparator.comparing(NodeCounts::vm).thenComparingInt(NodeCounts::node));
                List<String[]> cells = new ArrayList<>();
                for (NodeCounts n : nodes) cells.add(watchRow(n));
                print(out, WATCH_COLUMNS, cells);
                out.flush();
                Thread.sleep(intervalSeconds * 1000L);
            }
        }
    }

    /** @return node {@code n}'s cells in the --watch table, under {@link #WATCH_COLUMNS} */
    static String[] watchRow(NodeCounts n) {
        return new String[] {n.vm(), Integer.toString(n.node()), n.hitsCounted() ? Long.toString(n.total(a -> a.readHits() + a.writeHits())) : NOT_COUNTED,
                Long.toString(n.total(a -> a.readMisses() + a.writeMisses())), Long.toString(n.total(ArrayCounts::invalidationsSent)),
                Long.toString(n.total(ArrayCounts::invalidationsReceived)), Long.toString(n.bytesIn()), Long.toString(n.bytesOut())};
    }

    private static void print(PrintWriter out, List<String> header, List<String[]> rows) {
        int[] width = new int[header.size()];
        for (int c = 0; c < width.length; c++) width[c] = header.get(c).length();
        for (String[] r : rows) for (int c = 0; c < width.length && c < r.length; c++) width[c] = Math.max(width[c], r[c].length());
        out.println(line(header.toArray(new String[0]), width));
        for (String[] r : rows) out.println(line(Arrays.copyOf(r, width.length), width));
    }

    private static String line(String[] cells, int[] width) {
        StringBuilder b = new StringBuilder();
        for (int c = 0; c < width.length; c++) {
            String cell = cells[c] == null ? "" : cells[c];
            b.append(cell).append(" ".repeat(width[c] - cell.length() + (c + 1 < width.length ? 2 : 0)));
        }
        return b.toString().stripTrailing();
    }
}
