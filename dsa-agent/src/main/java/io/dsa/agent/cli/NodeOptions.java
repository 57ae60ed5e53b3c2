package io.dsa.agent.cli;

import io.dsa.agent.HostPort;
import java.util.List;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/** The options that name one node of a running VM on {@code dsa host} daemons: {@code dsa migrate}, {@code clone}, {@code read}. */
final class NodeOptions {
    @Option(names = "--vm", paramLabel = "NAME", description = "The VM (or --wait-for-vm).")
    String vmName;

    @Option(names = "--wait-for-vm", paramLabel = "NAME",
            description = "The VM, and wait (up to " + VmLookup.WAIT_MS / 1000 + " s) until node K runs: for a command typed right"
                    + " after 'dsa run ... &'.")
    String waitForVm;

    @Option(names = "--node", paramLabel = "K", required = true, description = "The node (or clone) K.")
    int nodeId;

    @Option(names = {"--hosts", "--host", "--from"}, paramLabel = "HOST:PORT[,HOST:PORT...]",
            defaultValue = "${env:" + HostList.HOSTS_ENV + "}",
            description = "The hosts the VM runs on (the one serving node K is found by asking them); default: the"
                    + " environment variable " + HostList.HOSTS_ENV + ".")
    String hostsOption;

    @Mixin
    SecretOptions secret;

    @Mixin
    TransportSecurityOption security = new TransportSecurityOption();

    /** @return the VM's name; @throws picocli.CommandLine.ParameterException unless exactly one of --vm and --wait-for-vm is given */
    String vm(CommandSpec spec) {
        if ((vmName == null) == (waitForVm == null)) throw Checks.usage(spec, "give the VM with --vm NAME or --wait-for-vm NAME (one of them)");
        return vmName != null ? vmName : waitForVm;
    }

    /**
     * @return what the hosts say of the VM, after waiting for node K to run if --wait-for-vm
     * @throws RuntimeException when a host cannot be asked
     */
    VmLookup lookup(CommandSpec spec, io.dsa.agent.host.HostClient client, List<HostPort> hosts) throws InterruptedException {
        String vm = vm(spec);
        return waitForVm != null ? VmLookup.awaitNode(client::status, hosts, vm, nodeId, VmLookup.toErr(spec)) : VmLookup.query(client::status, hosts, vm);
    }

    /** @return the hosts of {@code --hosts}; @throws picocli.CommandLine.ParameterException naming a bad entry */
    List<HostPort> hosts(CommandSpec spec) { return HostList.parse(spec, "--hosts", hostsOption); }

    /** @return the cluster secret; @throws picocli.CommandLine.ParameterException when there is none */
    byte[] secret(CommandSpec spec) { return secret.secret(spec); }
}
