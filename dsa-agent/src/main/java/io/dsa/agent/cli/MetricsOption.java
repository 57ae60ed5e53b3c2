package io.dsa.agent.cli;

import io.dsa.agent.DsaAgent;
import io.dsa.agent.metrics.MetricsServer;
import io.dsa.agent.metrics.NodeCounts;
import io.dsa.agent.metrics.NodeMBeans;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * {@code --metrics-port P} of {@code dsa run}, {@code dsa node} and {@code dsa host}: a Prometheus
 * text endpoint ({@link MetricsServer}) on the command's bind address, and the JMX MBeans of the
 * nodes this JVM runs ({@link NodeMBeans}). Off unless given.
 */
final class MetricsOption {
    @Option(names = "--metrics-port", paramLabel = "PORT",
            description = "Serve the counts of the nodes this command runs (hits, misses, invalidations, bytes, barrier waits,"
                    + " migration pauses; per node and array) as Prometheus text on http://BIND:PORT/metrics, and those of nodes"
                    + " running in this JVM (run, node) as JMX MBeans io.dsa:type=Node,vm=VM,node=K; 0 picks a free port and prints"
                    + " it (default: off).")
    Integer port;

    /** @return whether the option was given */
    boolean on() { return port != null; }

    /** @throws picocli.CommandLine.ParameterException for a port out of range */
    void validate(CommandSpec spec) {
        if (port != null) Checks.range(spec, "--metrics-port", port, 0, MetricsServer.MAX_PORT);
    }

    /**
     * Starts the endpoint for the counts {@code source} gives and prints its address as
     * {@code who: metrics on URL}.
     *
     * @return the server, or null if the option is off
     */
    MetricsServer serve(String bindHost, Supplier<List<NodeCounts>> source, String who, PrintWriter out) {
        if (port == null) return null;
        MetricsServer server = MetricsServer.start(bindHost, port, source);
        out.println(who + ": metrics on " + server.url());
        out.flush();
        return server;
    }

    /**
     * The metrics of the agents {@code agents} gives (asked at each scrape: a list that fills as
     * they start): the endpoint, and each agent's MBean once it exists.
     *
     * @return closes both; null if the option is off
     */
    Exposure expose(String bindHost, Supplier<List<DsaAgent>> agents, String who, PrintWriter out) {
        if (port == null) return null;
        return new Exposure(serve(bindHost, () -> agents.get().stream().map(DsaAgent::counts).toList(), who, out));
    }

    /** A running endpoint and the MBeans registered beside it. */
    static final class Exposure implements AutoCloseable {
        private final MetricsServer server;
        private final List<AutoCloseable> beans = new ArrayList<>();

        private Exposure(MetricsServer server) { this.server = server; }

        /** Registers {@code agent}'s MBean until {@link #close()}. */
        synchronized void register(DsaAgent agent) { beans.add(NodeMBeans.register(agent::counts)); }

        @Override
        public synchronized void close() {
            for (AutoCloseable b : beans) {
                try {
                    b.close();
                } catch (Exception e) {
                    // unregistering at the end: nothing left to tell
                }
            }
            server.close();
        }
    }
}
