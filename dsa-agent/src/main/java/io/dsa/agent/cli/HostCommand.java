package io.dsa.agent.cli;

import io.dsa.agent.DsaConfig;
import io.dsa.agent.host.AgentHost;
import io.dsa.agent.host.HostConfig;
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
 * Ctrl-C), which stops its agents' JVMs, deletes its work directory and closes its port.
 */
@Command(name = "host",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {"Runs an AgentMonitor daemon that serves the agents of jobs sent by 'dsa run --hosts'.",
            "Each job's agent runs in a JVM of its own, with the heap and processors its launcher asked for, capped by"
                    + " --max-job-heap and --max-job-cpus: a job that exits, runs out of memory or crashes fails alone.",
            "Only peers holding the cluster secret (--secret-file, or the environment variable " + DsaConfig.SECRET_ENV
                    + ") may submit jobs, ask for status or request transfers; stopping a VM also needs the token its"
                    + " launcher got.",
            "Stop it with SIGTERM or Ctrl-C: it stops its agents, deletes its work directory and exits."},
        footer = {"", "Example:",
            "  dsa keygen --out ~/.dsa-secret      # once; copy the file to every host (mode 600)",
            "  dsa host --bind 10.0.0.2 --port 7000 --secret-file ~/.dsa-secret --max-job-heap 8g --max-job-cpus 16"})
final class HostCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "0",
            description = "Port to listen on; 0 picks a free one (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--bind", paramLabel = "ADDR", defaultValue = DsaConfig.DEFAULT_BIND_HOST,
            description = "Address to listen on, for the daemon and its agents; others must reach it there (default: ${DEFAULT-VALUE}).")
    String bindHost;

    @Mixin
    SecretOptions secret;

    @Option(names = "--max-job-heap", paramLabel = "SIZE",
            description = "Largest heap of a job's JVM, e.g. 4g; larger requests are capped (default: no cap; a job that asks"
                    + " for none gets the JVM's default).")
    String maxJobHeap;

    @Option(names = "--max-job-cpus", paramLabel = "N",
            description = "Most processors of a job's JVM; larger requests are capped (default: this machine's processors).")
    Integer maxJobCpus;

    @Option(names = "--work-dir", paramLabel = "DIR",
            description = "Where this host keeps the jars of running jobs, in a private directory of its own (default: a"
                    + " directory of your user's under java.io.tmpdir).")
    Path workDir;

    @Mixin
    TransportSecurityOption security = new TransportSecurityOption();

    @Mixin
    MetricsOption metrics = new MetricsOption();

    @Option(names = "--failure-timeout-ms", paramLabel = "MS", defaultValue = "" + DsaConfig.DEFAULT_FAILURE_TIMEOUT_MS,
            description = "Close a connection to a launcher or another host that is silent this long (stopped, hung, or cut off"
                    + " without a reset); each VM's own nodes use the VM's --failure-timeout-ms; from "
                    + DsaConfig.MIN_FAILURE_TIMEOUT_MS + " to " + DsaConfig.MAX_FAILURE_TIMEOUT_MS + " (default: ${DEFAULT-VALUE}).")
    long failureTimeoutMs;

    @Override
    public Integer call() throws InterruptedException {
        Checks.range(spec, "--port", port, 0, 65535);
        metrics.validate(spec);
        Checks.range(spec, "--failure-timeout-ms", failureTimeoutMs, DsaConfig.MIN_FAILURE_TIMEOUT_MS, DsaConfig.MAX_FAILURE_TIMEOUT_MS);
        int cpus = maxJobCpus == null ? Runtime.getRuntime().availableProcessors() : maxJobCpus;
        Checks.range(spec, "--max-job-cpus", cpus, 1, HostConfig.MAX_JOB_CPUS);
        long heap = maxJobHeap == null ? 0
                : Checks.bytes(spec, "--max-job-heap", maxJobHeap, HostConfig.MIN_JOB_HEAP_BYTES, HostConfig.MAX_JOB_HEAP_BYTES);
        HostConfig.Builder config = HostConfig.builder().bindHost(bindHost).port(port).secret(secret.secret(spec))
                .maxJobHeapBytes(heap).maxJobCpus(cpus).security(security.value).failureTimeoutMs(failureTimeoutMs);
        if (workDir != null) config.workDir(workDir);
        PrintWriter out = spec.commandLine().getOut();
        AgentHost host;
        try {
            host = AgentHost.start(config.build());
        } catch (RuntimeException e) {
            out.println("dsa host: " + Jobs.describe(e));
            out.flush();
            return DsaCli.EXIT_FAILED;
        }
        io.dsa.agent.metrics.MetricsServer server;
        try {
            // each scrape asks the agents' JVMs for their counts over the host's control channel
            server = metrics.serve(bindHost, () -> io.dsa.agent.metrics.CountsRows.parse(host.counters(null)), "host " + host.address(), out);
        } catch (RuntimeException e) {
            host.close();
            out.println("dsa host: " + Jobs.describe(e));
            out.flush();
            return DsaCli.EXIT_FAILED;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (server != null) server.close();
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
