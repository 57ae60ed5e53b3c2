package io.dsa.agent.cli;

import io.dsa.agent.HostPort;
import java.util.List;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/** The options that name one node of a running VM on {@code dsa host} daemons: {@code dsa migrate}, {@code clone}, {@code read}. */
final class NodeOptions {
    @Option(names = "--vm", paramLabel = "NAME", required = true, description = "The VM.")
    String vmName;

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

    /** @return the hosts of {@code --hosts}; @throws picocli.CommandLine.ParameterException naming a bad entry */
    List<HostPort> hosts(CommandSpec spec) { return HostList.parse(spec, "--hosts", hostsOption); }

    /** @return the cluster secret; @throws picocli.CommandLine.ParameterException when there is none */
    byte[] secret(CommandSpec spec) { return secret.secret(spec); }
}
