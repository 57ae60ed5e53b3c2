package io.dsa.agent.cli;

import io.dsa.agent.DsaAgent;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.TransferReport;
import io.dsa.agent.HostPort;
import io.dsa.agent.host.HostClient;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Options of {@code dsa migrate} and {@code dsa clone}, and the request both send to the node's host. */
final class TransferOptions {
    /** How long a transfer may take before the launcher gives up waiting (the hosts finish or abort it on their own). */
    static final long TIMEOUT_MS = 120_000;

    @Mixin
    NodeOptions node;

    @Option(names = "--to", paramLabel = "HOST:PORT", required = true, description = "The 'dsa host' to move or copy it to.")
    String target;

    /** Finds the host of node K and asks the new host to take it (or a clone); prints what moved and the pause. */
    int execute(CommandSpec spec, boolean clone) throws InterruptedException {
        String what = clone ? "cloning" : "migration";
        Checks.range(spec, "--node", node.nodeId, 0, DsaConfig.MAX_NODES - 1);
        String vm = node.vm(spec);
        HostPort to = HostList.parse(spec, "--to", target).get(0);
        List<HostPort> hosts = node.hosts(spec);
        byte[] secret = node.secret(spec);
        PrintWriter out = spec.commandLine().getOut();
        try (HostClient client = HostClient.open(secret, DsaConfig.DEFAULT_BIND_HOST, TIMEOUT_MS, node.security.value)) {
            VmLookup found = node.lookup(spec, client, hosts);
            HostPort source = found.serving(node.nodeId);
            if (source == null) {
                out.println(what + " failed: " + found.whyNot(node.nodeId));
                out.flush();
                return DsaCli.EXIT_FAILED;
            }
            String agentId = DsaAgent.agentId(vm, node.nodeId);
            if (clone) {
                TransferReport report = client.cloneAgent(to, agentId, source, hosts);
                out.printf("cloned %s from %s to %s as %s: pause %.1f ms, %d bytes copied%n", agentId, report.fromMonitor(),
                        report.toMonitor(), report.agentId(), report.pauseNanos() / 1e6, report.bytes());
            } else {
                out.println(client.migrate(to, agentId, source, hosts).describe("moved"));
            }
            out.flush();
            return 0;
        } catch (RuntimeException e) {
            out.println(what + " failed: " + Jobs.describe(e));
            out.flush();
            return DsaCli.EXIT_FAILED;
        }
    }
}
