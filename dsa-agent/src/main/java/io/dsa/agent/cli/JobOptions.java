package io.dsa.agent.cli;

import io.dsa.agent.DsaConfig;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Options and parameters shared by {@code dsa run} and {@code dsa node}: the VM's shape and the program. */
final class JobOptions {
    /** Longest run accepted by {@code --timeout}: one day. */
    static final long MAX_TIMEOUT_SECONDS = 86_400;

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "4",
            description = "Nodes in the virtual machine (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--threads", paramLabel = "T", defaultValue = "2",
            description = "Worker threads per node (default: ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--vm", paramLabel = "NAME", defaultValue = DsaConfig.DEFAULT_VM,
            description = "Name of the virtual machine (default: ${DEFAULT-VALUE}).")
    String vmName;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "300",
            description = "Fail the job if it has not finished after this many seconds (default: ${DEFAULT-VALUE}).")
    long timeoutSeconds;

    @Parameters(index = "0", paramLabel = "PROGRAM",
            description = "A program's short name (see 'dsa programs') or the full name of a class implementing io.dsa.DsaProgram.")
    String program;

    @Parameters(index = "1..*", paramLabel = "ARGS", description = "The program's arguments.")
    List<String> args = new ArrayList<>();

    /** @throws picocli.CommandLine.ParameterException naming the first bad value and its range */
    void validate(CommandSpec spec) {
        Checks.range(spec, "--nodes", nodes, 1, DsaConfig.MAX_NODES);
        Checks.range(spec, "--threads", threads, 1, DsaConfig.MAX_THREADS_PER_NODE);
        Checks.range(spec, "--timeout", timeoutSeconds, 1, MAX_TIMEOUT_SECONDS);
        if (vmName == null || !vmName.matches("[A-Za-z0-9._-]{1,64}")) {
            throw Checks.usage(spec, "--vm '" + vmName + "' invalid: use 1 to 64 letters, digits, '.', '_' or '-'");
        }
    }

    /** @return the base config: shape and VM name */
    DsaConfig.Builder config() {
        return DsaConfig.builder().nodes(nodes).threadsPerNode(threads).vmName(vmName);
    }

    /** @return the timeout in milliseconds */
    long timeoutMs() { return timeoutSeconds * 1000; }
}
