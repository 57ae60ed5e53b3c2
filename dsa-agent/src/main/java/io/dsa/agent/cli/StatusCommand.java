package io.dsa.agent.cli;

import io.dsa.DsaException;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.HostPort;
import io.dsa.agent.host.AgentHost;
import io.dsa.agent.host.HostClient;
import io.dsa.agent.host.StatusRow;
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
            "The cluster secret comes from --secret-file or the environment variable " + DsaConfig.SECRET_ENV + "."},
        footer = {"", "Examples:",
            "  dsa status --hosts 10.0.0.2:7000,10.0.0.3:7000 --vm jacobi",
            "  dsa status --host 10.0.0.2:7000",
            "  dsa run --hosts 10.0.0.2:7000,10.0.0.3:7000 --vm demo jacobi 512 20000 &",
            "  dsa status --hosts 10.0.0.2:7000,10.0.0.3:7000 --wait-for-vm demo"})
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

    @Mixin
    SecretOptions secretOptions;

    @Mixin
    TransportSecurityOption security = new TransportSecurityOption();

    @Override
    public Integer call() throws InterruptedException {
        if (vmName != null && waitForVm != null) throw Checks.usage(spec, "--vm and --wait-for-vm exclude each other");
        List<HostPort> hosts = HostList.parse(spec, "--hosts", hostsOption);
        byte[] secret = secretOptions.secret(spec);
        PrintWriter out = spec.commandLine().getOut();
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
            for (HostPort h : hosts) {
                try {
                    rows.addAll(VmLookup.parse(h, client.status(h, vm)));
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
        if (!rows.isEmpty() || vm == null) print(out, cells);   // an unknown vm: its error line alone
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

    private static void print(PrintWriter out, List<String[]> rows) {
        List<String> header = AgentHost.STATUS_COLUMNS;
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
