package io.dsa.agent.cli;

import io.dsa.agent.DsaConfig;
import io.dsa.agent.HostPort;
import io.dsa.agent.host.AgentHost;
import io.dsa.agent.host.ElementRow;
import io.dsa.agent.host.HostClient;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dsa read}: prints elements of a shared array of a running VM, read through one node's
 * agent on its host (typically a clone, which holds shared copies and disturbs nobody).
 */
@Command(name = "read",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {"Prints elements of a shared array of a running VM, read through the agent of node K on its",
            "'dsa host' (a clone from 'dsa clone', or any node). Reads follow the coherence protocol: a copy the",
            "agent holds is read in place, others are fetched from their homes. Indices are flat (row-major)."},
        footer = {"", "Example:",
            "  dsa read --vm jacobi --node 3 --hosts 10.0.0.4:7000 --array jacobi.u0 --index 0 --count 8"})
final class ReadCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    NodeOptions node;

    @Option(names = "--array", paramLabel = "NAME", required = true, description = "The shared array's name.")
    String array;

    @Option(names = "--index", paramLabel = "I", defaultValue = "0", description = "First flat (row-major) index (default: ${DEFAULT-VALUE}).")
    long from;

    @Option(names = "--count", paramLabel = "N", defaultValue = "1",
            description = "How many elements, at most " + AgentHost.MAX_READ + " (default: ${DEFAULT-VALUE}).")
    long count;

    @Override
    public Integer call() throws InterruptedException {
        Checks.range(spec, "--node", node.nodeId, 0, Integer.MAX_VALUE);
        Checks.range(spec, "--index", from, 0, Integer.MAX_VALUE);
        Checks.range(spec, "--count", count, 1, AgentHost.MAX_READ);
        node.vm(spec);
        List<HostPort> hosts = node.hosts(spec);
        byte[] secret = node.secret(spec);
        PrintWriter out = spec.commandLine().getOut();
        try (HostClient client = HostClient.open(secret, DsaConfig.DEFAULT_BIND_HOST, StatusCommand.TIMEOUT_MS, node.security.value)) {
            VmLookup found = node.lookup(spec, client, hosts);
            HostPort host = found.serving(node.nodeId);
            if (host == null) {
                out.println("read failed: " + found.whyNot(node.nodeId));
                out.flush();
                return DsaCli.EXIT_FAILED;
            }
            for (ElementRow element : client.read(host, node.vm(spec), node.nodeId, array, from, count)) {
                out.println(array + "[" + element.index() + "] = " + element.value());
            }
            out.flush();
            return 0;
        } catch (RuntimeException e) {
            out.println("read failed: " + Jobs.describe(e));
            out.flush();
            return DsaCli.EXIT_FAILED;
        }
    }
}
