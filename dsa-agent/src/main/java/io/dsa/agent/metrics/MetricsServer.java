package io.dsa.agent.metrics;

import io.dsa.DsaException;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.util.List;
import java.util.function.Supplier;

/**
 * The Prometheus text endpoint of {@code dsa run --metrics-port} and {@code dsa host
 * --metrics-port}: {@code http://HOST:PORT/metrics} serves {@link DsaCollector}'s counters (the
 * Prometheus Java client's HTTP server, on the JDK's own; its own registry, not the client's
 * global one). Closing it stops the server.
 */
public final class MetricsServer implements AutoCloseable {
    /** Highest port {@code --metrics-port} accepts; 0 picks a free one. */
    public static final int MAX_PORT = 65_535;

    private final HTTPServer server;
    private final String host;

    private MetricsServer(HTTPServer server, String host) {
        this.server = server;
        this.host = host;
    }

    /**
     * Serves the counts {@code source} gives at each scrape on {@code host:port}.
     *
     * @param port the port, or 0 for a free one ({@link #port()} says which)
     * @throws DsaException if the port cannot be bound
     */
    public static MetricsServer start(String host, int port, Supplier<List<NodeCounts>> source) {
        if (port < 0 || port > MAX_PORT) throw new IllegalArgumentException("metrics port " + port + " out of range [0, " + MAX_PORT + "]");
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new DsaCollector(source));
        try {
            return new MetricsServer(HTTPServer.builder().hostname(host).port(port).registry(registry).buildAndStart(), host);
        } catch (IOException e) {
            throw new DsaException("cannot serve metrics on " + host + ":" + port + ": " + e.getMessage(), e);
        }
    }

    /** @return the port the endpoint listens on */
    public int port() { return server.getPort(); }

    /** @return the endpoint's address, {@code http://host:port/metrics} */
    public String url() { return "http://" + host + ":" + port() + "/metrics"; }

    @Override
    public void close() { server.close(); }
}
