package io.dsa.agent.host;

import io.dsa.agent.DsaConfig;
import io.dsa.agent.transport.TransportConfig;
import io.dsa.agent.transport.TransportSecurity;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Configuration of a {@code dsa host} daemon ({@link AgentHost}). Immutable; build with
 * {@link #builder()}, whose {@link Builder#build()} validates every field.
 */
public final class HostConfig {
    /** Smallest heap a job's JVM may have: 16 MiB. */
    public static final long MIN_JOB_HEAP_BYTES = 16L << 20;
    /** Largest heap a job's JVM may have: 1 TiB. */
    public static final long MAX_JOB_HEAP_BYTES = 1L << 40;
    /** Most processors a job's JVM may ask for. */
    public static final int MAX_JOB_CPUS = 4096;

    private final String bindHost;
    private final int port;
    private final byte[] secret;
    private final Path workDir;
    private final long maxJobHeapBytes;
    private final int maxJobCpus;
    private final TransportSecurity security;
    private final long failureTimeoutMs;

    private HostConfig(Builder b) {
        this.bindHost = b.bindHost;
        this.port = b.port;
        this.secret = b.secret.clone();
        this.workDir = b.workDir;
        this.maxJobHeapBytes = b.maxJobHeapBytes;
        this.maxJobCpus = b.maxJobCpus;
        this.security = b.security;
        this.failureTimeoutMs = b.failureTimeoutMs;
    }

    /** @return a builder with the defaults */
    public static Builder builder() { return new Builder(); }

    /** @return where the daemon and its agents listen */
    public String bindHost() { return bindHost; }

    /** @return the daemon's port; 0 picks a free one */
    public int port() { return port; }

    /** @return a copy of the cluster secret */
    public byte[] secret() { return secret.clone(); }

    /** @return the directory under which the daemon keeps a private directory of its own (shipped jars) */
    public Path workDir() { return workDir; }

    /** @return the largest heap a job's JVM gets, in bytes; 0 for no cap (a job without a request then gets the JVM's default) */
    public long maxJobHeapBytes() { return maxJobHeapBytes; }

    /** @return the most processors a job's JVM gets */
    public int maxJobCpus() { return maxJobCpus; }

    /** @return how every connection of the host is protected (launchers, hosts, its job JVMs, their agents) */
    public TransportSecurity security() { return security; }

    /**
     * @return how long a launcher, another host or a job JVM may be silent on its connection to this
     *         daemon before the connection is closed as lost, in milliseconds (see {@link TransportConfig#failureTimeoutMs()})
     */
    public long failureTimeoutMs() { return failureTimeoutMs; }

    /** @return {@code bytes} as people write heap sizes: {@code 64 MiB}, {@code 1.5 GiB} */
    public static String formatBytes(long bytes) {
        if (bytes >= 1L << 30) return trim(bytes / (double) (1L << 30)) + " GiB";
        if (bytes >= 1L << 20) return trim(bytes / (double) (1L << 20)) + " MiB";
        if (bytes >= 1L << 10) return trim(bytes / (double) (1L << 10)) + " KiB";
        return bytes + " bytes";
    }

    private static String trim(double v) {
        String s = String.format(Locale.ROOT, "%.1f", v);
        return s.endsWith(".0") ? s.substring(0, s.length() - 2) : s;
    }

    /** Builds a {@link HostConfig}; every setter returns the builder. */
    public static final class Builder {
        private String bindHost = DsaConfig.DEFAULT_BIND_HOST;
        private int port;
        private byte[] secret;
        private Path workDir = WorkDir.defaultBase();
        private long maxJobHeapBytes;
        private int maxJobCpus = Runtime.getRuntime().availableProcessors();
        private TransportSecurity security = TransportConfig.DEFAULT_SECURITY;
        private long failureTimeoutMs = TransportConfig.DEFAULT_FAILURE_TIMEOUT_MS;

        private Builder() {}

        /**
         * @param ms how long a peer of the daemon may be silent before its connection is closed as lost, in
         *        [{@value TransportConfig#MIN_FAILURE_TIMEOUT_MS}, {@value TransportConfig#MAX_FAILURE_TIMEOUT_MS}]
         *        (default {@value TransportConfig#DEFAULT_FAILURE_TIMEOUT_MS})
         */
        public Builder failureTimeoutMs(long ms) { this.failureTimeoutMs = ms; return this; }

        /** @param bindHost where the daemon and its agents listen; others must reach it there (default 127.0.0.1) */
        public Builder bindHost(String bindHost) { this.bindHost = bindHost; return this; }

        /** @param port in {@code [0, 65535]}; 0 picks a free one (the default) */
        public Builder port(int port) { this.port = port; return this; }

        /** @param secret the cluster secret, at least {@value TransportConfig#MIN_SECRET_BYTES} bytes (copied); required */
        public Builder secret(byte[] secret) { this.secret = secret == null ? null : secret.clone(); return this; }

        /** @param workDir the base directory of hosts' work directories (default: {@link WorkDir#defaultBase()}) */
        public Builder workDir(Path workDir) { this.workDir = workDir; return this; }

        /** @param bytes the largest heap of a job's JVM, in {@code [16 MiB, 1 TiB]}, or 0 for no cap (the default) */
        public Builder maxJobHeapBytes(long bytes) { this.maxJobHeapBytes = bytes; return this; }

        /** @param cpus the most processors of a job's JVM, in {@code [1, 4096]} (default: this machine's) */
        public Builder maxJobCpus(int cpus) { this.maxJobCpus = cpus; return this; }

        /** @param security how connections are protected; peers must use the same (default {@link TransportConfig#DEFAULT_SECURITY}) */
        public Builder security(TransportSecurity security) { this.security = java.util.Objects.requireNonNull(security, "transport security"); return this; }

        /**
         * @return the config
         * @throws IllegalArgumentException naming the first bad value and its valid range
         */
        public HostConfig build() {
            if (bindHost == null || bindHost.isEmpty()) throw new IllegalArgumentException("bind host must be non-empty");
            if (port < 0 || port > 65535) throw new IllegalArgumentException("port " + port + " out of range [0, 65535]");
            if (secret == null || secret.length < TransportConfig.MIN_SECRET_BYTES) {
                throw new IllegalArgumentException("cluster secret has " + (secret == null ? "no" : secret.length)
                        + " bytes, at least " + TransportConfig.MIN_SECRET_BYTES + " required");
            }
            if (workDir == null) throw new IllegalArgumentException("work directory must be set");
            if (maxJobHeapBytes != 0 && (maxJobHeapBytes < MIN_JOB_HEAP_BYTES || maxJobHeapBytes > MAX_JOB_HEAP_BYTES)) {
                throw new IllegalArgumentException("max job heap " + maxJobHeapBytes + " bytes out of range ["
                        + formatBytes(MIN_JOB_HEAP_BYTES) + ", " + formatBytes(MAX_JOB_HEAP_BYTES) + "] (or 0 for no cap)");
            }
            if (maxJobCpus < 1 || maxJobCpus > MAX_JOB_CPUS) {
                throw new IllegalArgumentException("max job cpus " + maxJobCpus + " out of range [1, " + MAX_JOB_CPUS + "]");
            }
            if (failureTimeoutMs < TransportConfig.MIN_FAILURE_TIMEOUT_MS || failureTimeoutMs > TransportConfig.MAX_FAILURE_TIMEOUT_MS) {
                throw new IllegalArgumentException("failure timeout " + failureTimeoutMs + " ms out of range ["
                        + TransportConfig.MIN_FAILURE_TIMEOUT_MS + ", " + TransportConfig.MAX_FAILURE_TIMEOUT_MS + "]");
            }
            return new HostConfig(this);
        }
    }
}
