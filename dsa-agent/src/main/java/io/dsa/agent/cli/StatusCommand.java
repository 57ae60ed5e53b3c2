package io.dsa.agent.cli;

import io.dsa.agent.DsaConfig;
import io.dsa.agent.HostPort;
import io.dsa.agent.host.AgentHost;
import io.dsa.agent.host.HostClient;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
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
            "The cluster secret comes from --secret-file or the environment variable " + DsaConfig.SECRET_ENV + "."},
        footer = {"", "Examples:",
            "  dsa status --hosts 10.0.0.2:7000,10.0.0.3:7000 --vm jacobi",
            "  dsa status --host 10.0.0.2:7000"})
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

    @Mixin
    SecretOptions secretOptions;

    @Mixin
    TransportSecurityOption security = new TransportSecurityOption();

    @Override
    public Integer call() {
        List<HostPort> hosts = HostList.parse(spec, "--hosts", hostsOption);
        byte[] secret = secretOptions.secret(spec);
        PrintWriter out = spec.commandLine().getOut();
        List<String[]> rows = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        try (HostClient client = HostClient.open(secret, DsaConfig.DEFAULT_BIND_HOST, TIMEOUT_MS, security.value)) {
            for (HostPort h : hosts) {
                try {
                    for (String row : client.status(h, vmName)) rows.add(row.split("\t", -1));
                } catch (RuntimeException e) {
                    problems.add(Jobs.describe(e));
                }
            }
        }
        rows.sort((a, b) -> a[0].equals(b[0]) ? Integer.compare(Integer.parseInt(a[1]), Integer.parseInt(b[1])) : a[0].compareTo(b[0]));
        for (String[] r : rows) r[5] = r[5].substring(r[5].lastIndexOf('.') + 1);
        print(out, rows);
        for (String p : problems) out.println("error: " + p);
        if (vmName != null && rows.isEmpty() && problems.isEmpty()) {
            out.println("error: vm '" + vmName + "' has no nodes on " + hosts);
        }
        out.flush();
        return problems.isEmpty() && (vmName == null || !rows.isEmpty()) ? 0 : DsaCli.EXIT_FAILED;
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
