package io.dsa.agent.cli;

import io.dsa.agent.DsaConfig;
import io.dsa.agent.host.AgentHost;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dsa host}: runs an AgentMonitor daemon on this host until it is stopped (SIGTERM or
 * Ctrl-C), which stops its agents and closes its port.
 */
@Command(name = "host",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {"Runs an AgentMonitor daemon that serves the agents of jobs sent by 'dsa run --hosts'.",
            "Only peers holding the cluster secret (--secret-file, or the environment variable "
                    + DsaConfig.SECRET_ENV + ") may submit jobs, ask for status or request transfers.",
            "Stop it with SIGTERM or Ctrl-C: it stops its agents and exits."},
        footer = {"", "Example:",
            "  DSA_SECRET=$(cat ~/.dsa-secret) dsa host --bind 10.0.0.2 --port 7000"})
final class HostCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "0",
            description = "Port to listen on; 0 picks a free one (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--bind", paramLabel = "ADDR", defaultValue = DsaConfig.DEFAULT_BIND_HOST,
            description = "Address to listen on, for the daemon and its agents; others must reach it there (default: ${DEFAULT-VALUE}).")
    String bindHost;

    @Option(names = "--secret-file", paramLabel = "FILE", description = "File holding the cluster secret.")
    Path secretFile;

    @Mixin
    TransportSecurityOption security = new TransportSecurityOption();

    @Override
    public Integer call() throws InterruptedException {
        Checks.range(spec, "--port", port, 0, 65535);
        byte[] secret = HostList.secret(spec, secretFile);
        PrintWriter out = spec.commandLine().getOut();
        AgentHost host;
        try {
            host = AgentHost.start(bindHost, port, secret, security.value);
        } catch (RuntimeException e) {
            out.println("dsa host: " + Jobs.describe(e));
            out.flush();
            return DsaCli.EXIT_FAILED;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            host.close();
            out.println("host " + host.address() + " stopped");
            out.flush();
            stopped.countDown();
        }, "dsa-host-shutdown"));
        out.println("host listening on " + host.address());
        out.flush();
        stopped.await();
        return 0;
    }
}
