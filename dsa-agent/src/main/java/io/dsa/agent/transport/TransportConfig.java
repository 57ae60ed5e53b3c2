package io.dsa.agent.transport;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Settings of one {@link Transport}: where it listens, who it is, the cluster secret, how
 * connections are protected and the limits. Immutable; build with {@link #builder()}. Defaults
 * are the {@code DEFAULT_*} constants.
 *
 * <pre>{@code
 * TransportConfig config = TransportConfig.builder()
 *         .vmName("jacobi").nodeId(2).secret(secretBytes)   // required
 *         .bindHost("0.0.0.0").port(0)                        // optional
 *         .build();
 * }</pre>
 */
public final class TransportConfig {
    /** Default interface to listen on. */
    public static final String DEFAULT_BIND_HOST = "127.0.0.1";
    /** Default port: 0 picks a free one (see {@link Transport#boundAddress()}). */
    public static final int DEFAULT_PORT = 0;
    /** Default largest frame, in bytes: 64 MiB. */
    public static final int DEFAULT_MAX_FRAME_BYTES = 64 << 20;
    /**
     * Default chunk size, in bytes: 128 KiB. A message whose body (a coherence message: its
     * partition data) is larger travels in chunks of this many bytes, so small messages are written
     * between them and a partition may exceed {@link #maxFrameBytes()}. Chosen by measurement with
     * {@code dsa bench stream} and {@code dsa bench miss} (docs/runtime.md, "Bulk transfers").
     */
    public static final int DEFAULT_CHUNK_BYTES = 128 << 10;
    /** Smallest chunk size, in bytes. */
    public static final int MIN_CHUNK_BYTES = WireFormat.MIN_CHUNK_BYTES;
    /** Default time a new connection has to complete its handshake, in milliseconds. */
    public static final long DEFAULT_HANDSHAKE_TIMEOUT_MS = 15_000;
    /** Default TCP connect timeout, in milliseconds. */
    public static final int DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
    /**
     * Default failure timeout, in milliseconds: an authenticated connection on which nothing at all
     * arrives for this long is closed as lost (its peer died, hangs, was stopped, or the network
     * drops its packets); each end sends a heartbeat after a third of it without writing.
     */
    public static final long DEFAULT_FAILURE_TIMEOUT_MS = 3_000;
    /** Smallest failure timeout accepted, in milliseconds. */
    public static final long MIN_FAILURE_TIMEOUT_MS = 100;
    /** Largest failure timeout accepted, in milliseconds: one hour. */
    public static final long MAX_FAILURE_TIMEOUT_MS = 3_600_000;
    /** Default protection of authenticated connections: encrypted. */
    public static final TransportSecurity DEFAULT_SECURITY = TransportSecurity.ENCRYPT;
    /**
     * Default limit on accepted connections still in their handshake, over all sources; a newer
     * one closes the oldest (see {@link PendingHandshakes}). Authenticated connections do not count.
     */
    public static final int DEFAULT_MAX_PENDING_HANDSHAKES = 1024;
    /**
     * Default limit on accepted connections still in their handshake from one source address; a
     * newer one closes that source's oldest. Room for a local VM's nodes all dialling at once.
     */
    public static final int DEFAULT_MAX_PENDING_HANDSHAKES_PER_SOURCE = 256;
    /** Default number of I/O threads: up to 4, at most the processors. */
    public static final int DEFAULT_IO_THREADS = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
    /** Default data bytes of a connection's shared ring ({@link #sharedRingBytes()}). */
    public static final long DEFAULT_SHARED_RING_BYTES = 8 << 20;
    /** The system property that sets {@link #sharedRingBytes()} (0 turns the rings off). */
    public static final String SHARED_RING_PROPERTY = "dsa.sharedRingBytes";
    /** Smallest cluster secret accepted, in bytes. */
    public static final int MIN_SECRET_BYTES = 16;
    /** Longest VM name, in UTF-8 bytes (it travels in the small handshake frame). */
    public static final int MAX_VM_NAME_BYTES = 255;
    /** Smallest {@code maxFrameBytes}: room for a handshake frame. */
    public static final int MIN_MAX_FRAME_BYTES = WireFormat.MAX_HANDSHAKE_FRAME_BYTES;

    private final String bindHost;
    private final int port;
    private final byte[] secret;
    private final String vmName;
    private final int nodeId;
    private final int maxFrameBytes;
    private final int chunkBytes;
    private final long handshakeTimeoutMs;
    private final int connectTimeoutMs;
    private final long failureTimeoutMs;
    private final TransportSecurity security;
    private final int maxPendingHandshakes;
    private final int maxPendingHandshakesPerSource;
    private final int ioThreads;
    private final boolean preferNativeTransport;
    private final long sharedRingBytes;

    private TransportConfig(Builder b) {
        this.bindHost = b.bindHost;
        this.port = b.port;
        this.secret = b.secret.clone();
        this.vmName = b.vmName;
        this.nodeId = b.nodeId;
        this.maxFrameBytes = b.maxFrameBytes;
        this.chunkBytes = WireFormat.chunkBytesWithin(b.chunkBytes, b.maxFrameBytes);
        this.handshakeTimeoutMs = b.handshakeTimeoutMs;
        this.connectTimeoutMs = b.connectTimeoutMs;
        this.failureTimeoutMs = b.failureTimeoutMs;
        this.security = b.security;
        this.maxPendingHandshakes = b.maxPendingHandshakes;
        this.maxPendingHandshakesPerSource = b.maxPendingHandshakesPerSource;
        this.ioThreads = b.ioThreads;
        this.preferNativeTransport = b.preferNativeTransport;
        this.sharedRingBytes = b.sharedRingBytes;
    }

    /** @return a builder with the defaults */
    public static Builder builder() { return new Builder(); }

    /** @return the interface to listen on */
    public String bindHost() { return bindHost; }

    /** @return the port to listen on; 0 picks a free one */
    public int port() { return port; }

    /** @return a copy of the cluster secret */
    public byte[] secret() { return secret.clone(); }

    /** Internal: the secret without a copy. */
    byte[] secretNoCopy() { return secret; }

    /** @return the VM name; connections from other VMs are refused */
    public String vmName() { return vmName; }

    /** @return this node's id, told to peers in the handshake */
    public int nodeId() { return nodeId; }

    /**
     * @return the largest frame sent or accepted, in bytes: it bounds what a receiver buffers
     *         before it can check a record. Messages larger than a chunk travel in chunks, so no
     *         message is refused for this limit.
     */
    public int maxFrameBytes() { return maxFrameBytes; }

    /**
     * @return the chunk size in bytes: a message whose body (a coherence message: its partition
     *         data) is larger travels in chunks of this many bytes; the builder's value, lowered if
     *         needed so that a chunk fits {@link #maxFrameBytes()}. Sockets get a send buffer of two
     *         chunks, so that a small message waits behind little else.
     */
    public int chunkBytes() { return chunkBytes; }

    /**
     * @return the data bytes of the {@link SharedRing} a connection to a peer on this machine offers
     *         once it first sends a large body (a partition, a diff, a push of at least
     *         {@value SharedRing#MIN_BODY_BYTES} bytes), or 0: every body travels on the socket
     *         (docs/runtime.md, "Bulk bytes through shared memory")
     */
    public long sharedRingBytes() { return sharedRingBytes; }

    /** @return the time a connection has to authenticate, in milliseconds */
    public long handshakeTimeoutMs() { return handshakeTimeoutMs; }

    /** @return the TCP connect timeout, in milliseconds */
    public int connectTimeoutMs() { return connectTimeoutMs; }

    /**
     * @return how long an authenticated connection may stay silent before it is closed as lost, in
     *         milliseconds; heartbeats go out after a third of it without writing (see {@link HeartbeatHandler})
     */
    public long failureTimeoutMs() { return failureTimeoutMs; }

    /** @return how authenticated connections are protected; both ends must agree */
    public TransportSecurity security() { return security; }

    /** @return the limit on accepted connections still in their handshake, over all sources */
    public int maxPendingHandshakes() { return maxPendingHandshakes; }

    /** @return the limit on accepted connections still in their handshake, per source address */
    public int maxPendingHandshakesPerSource() { return maxPendingHandshakesPerSource; }

    /** @return the number of I/O (event loop) threads */
    public int ioThreads() { return ioThreads; }

    /** @return whether native epoll is used when the platform has it (else NIO) */
    public boolean preferNativeTransport() { return preferNativeTransport; }

    @Override
    public String toString() {
        return "TransportConfig{vm=" + vmName + ", node=" + nodeId + ", bind=" + bindHost + ":" + port
                + ", maxFrameBytes=" + maxFrameBytes + ", chunkBytes=" + chunkBytes + ", handshakeTimeoutMs=" + handshakeTimeoutMs
                + ", connectTimeoutMs=" + connectTimeoutMs + ", failureTimeoutMs=" + failureTimeoutMs + ", security=" + security
                + ", maxPendingHandshakes=" + maxPendingHandshakes + "/" + maxPendingHandshakesPerSource + " per source"
                + ", ioThreads=" + ioThreads + ", preferNativeTransport=" + preferNativeTransport + ", sharedRingBytes=" + sharedRingBytes + "}"; // never the secret
    }

    /** Collects settings; {@link #build()} validates them all at once. Not thread-safe. */
    public static final class Builder {
        private String bindHost = DEFAULT_BIND_HOST;
        private int port = DEFAULT_PORT;
        private byte[] secret;
        private String vmName;
        private int nodeId = -1;
        private int maxFrameBytes = DEFAULT_MAX_FRAME_BYTES;
        private int chunkBytes = DEFAULT_CHUNK_BYTES;
        private long handshakeTimeoutMs = DEFAULT_HANDSHAKE_TIMEOUT_MS;
        private int connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS;
        private long failureTimeoutMs = DEFAULT_FAILURE_TIMEOUT_MS;
        private TransportSecurity security = DEFAULT_SECURITY;
        private int maxPendingHandshakes = DEFAULT_MAX_PENDING_HANDSHAKES;
        private int maxPendingHandshakesPerSource = DEFAULT_MAX_PENDING_HANDSHAKES_PER_SOURCE;
        private int ioThreads = DEFAULT_IO_THREADS;
        private boolean preferNativeTransport = true;
        private long sharedRingBytes = Long.getLong(SHARED_RING_PROPERTY, DEFAULT_SHARED_RING_BYTES);

        private Builder() {}

        /** @param bindHost interface to listen on, e.g. {@code "0.0.0.0"}; default {@value #DEFAULT_BIND_HOST} */
        public Builder bindHost(String bindHost) { this.bindHost = bindHost; return this; }

        /** @param port port to listen on, 0 for any free one */
        public Builder port(int port) { this.port = port; return this; }

        /** @param secret the cluster secret, at least {@value #MIN_SECRET_BYTES} bytes (copied); required */
        public Builder secret(byte[] secret) { this.secret = secret == null ? null : secret.clone(); return this; }

        /** @param vmName the VM's name; required */
        public Builder vmName(String vmName) { this.vmName = vmName; return this; }

        /** @param nodeId this node's id, {@code >= 0}; required */
        public Builder nodeId(int nodeId) { this.nodeId = nodeId; return this; }

        /** @param maxFrameBytes largest frame, in bytes */
        public Builder maxFrameBytes(int maxFrameBytes) { this.maxFrameBytes = maxFrameBytes; return this; }

        /**
         * @param chunkBytes chunk size in bytes, at least {@value #MIN_CHUNK_BYTES}; default
         *        {@value #DEFAULT_CHUNK_BYTES}; lowered to fit {@code maxFrameBytes} if larger
         */
        public Builder chunkBytes(int chunkBytes) { this.chunkBytes = chunkBytes; return this; }

        /** @param handshakeTimeoutMs time a connection has to authenticate, in milliseconds */
        public Builder handshakeTimeoutMs(long handshakeTimeoutMs) { this.handshakeTimeoutMs = handshakeTimeoutMs; return this; }

        /** @param connectTimeoutMs TCP connect timeout, in milliseconds */
        public Builder connectTimeoutMs(int connectTimeoutMs) { this.connectTimeoutMs = connectTimeoutMs; return this; }

        /**
         * @param failureTimeoutMs how long an authenticated connection may stay silent before it is
         *        closed as lost, in milliseconds, in [{@value #MIN_FAILURE_TIMEOUT_MS}, {@value #MAX_FAILURE_TIMEOUT_MS}];
         *        default {@value #DEFAULT_FAILURE_TIMEOUT_MS}
         */
        public Builder failureTimeoutMs(long failureTimeoutMs) { this.failureTimeoutMs = failureTimeoutMs; return this; }

        /**
         * @param security how authenticated connections are protected; default
         *        {@link TransportSecurity#ENCRYPT}; the peer must use the same or the handshake is refused
         */
        public Builder security(TransportSecurity security) { this.security = security; return this; }

        /** @param max limit on accepted connections still in their handshake, over all sources, {@code >= 1} */
        public Builder maxPendingHandshakes(int max) { this.maxPendingHandshakes = max; return this; }

        /** @param max limit on accepted connections still in their handshake, per source address, {@code >= 1} */
        public Builder maxPendingHandshakesPerSource(int max) { this.maxPendingHandshakesPerSource = max; return this; }

        /** @param ioThreads number of I/O threads */
        public Builder ioThreads(int ioThreads) { this.ioThreads = ioThreads; return this; }

        /** @param preferNativeTransport use native epoll when available (default), else always NIO */
        public Builder preferNativeTransport(boolean preferNativeTransport) {
            this.preferNativeTransport = preferNativeTransport;
            return this;
        }

        /**
         * @param bytes the data bytes of the shared ring each connection to a peer on this machine
         *        offers, in [{@link SharedRing#MIN_CAPACITY}, {@link SharedRing#MAX_CAPACITY}], or 0
         *        for none; default {@value #DEFAULT_SHARED_RING_BYTES}, or the system property
         *        {@value #SHARED_RING_PROPERTY}
         */
        public Builder sharedRingBytes(long bytes) { this.sharedRingBytes = bytes; return this; }

        /**
         * @return the config
         * @throws IllegalArgumentException naming the first invalid setting, its value and what is expected
         */
        public TransportConfig build() {
            if (bindHost == null || bindHost.isEmpty()) {
                throw new IllegalArgumentException("bind host '" + bindHost + "' invalid: expected a host name or address");
            }
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port " + port + " out of range [0, 65535]");
            }
            if (secret == null || secret.length < MIN_SECRET_BYTES) {
                throw new IllegalArgumentException("cluster secret has " + (secret == null ? "no" : secret.length)
                        + " bytes, at least " + MIN_SECRET_BYTES + " required");
            }
            Objects.requireNonNull(vmName, "vm name is required");
            int vmNameBytes = vmName.getBytes(StandardCharsets.UTF_8).length;
            if (vmNameBytes == 0 || vmNameBytes > MAX_VM_NAME_BYTES) {
                throw new IllegalArgumentException("vm name '" + vmName + "' has " + vmNameBytes
                        + " UTF-8 bytes, expected [1, " + MAX_VM_NAME_BYTES + "]");
            }
            if (nodeId < 0) {
                throw new IllegalArgumentException("node id " + nodeId + " invalid: expected >= 0 (is it set?)");
            }
            if (maxFrameBytes < MIN_MAX_FRAME_BYTES) {
                throw new IllegalArgumentException("max frame bytes " + maxFrameBytes + " too small, expected >= "
                        + MIN_MAX_FRAME_BYTES);
            }
            if (chunkBytes < MIN_CHUNK_BYTES) {
                throw new IllegalArgumentException("chunk bytes " + chunkBytes + " too small, expected >= " + MIN_CHUNK_BYTES);
            }
            if (handshakeTimeoutMs <= 0) {
                throw new IllegalArgumentException("handshake timeout " + handshakeTimeoutMs + " ms invalid, expected > 0");
            }
            if (connectTimeoutMs <= 0) {
                throw new IllegalArgumentException("connect timeout " + connectTimeoutMs + " ms invalid, expected > 0");
            }
            if (failureTimeoutMs < MIN_FAILURE_TIMEOUT_MS || failureTimeoutMs > MAX_FAILURE_TIMEOUT_MS) {
                throw new IllegalArgumentException("failure timeout " + failureTimeoutMs + " ms out of range ["
                        + MIN_FAILURE_TIMEOUT_MS + ", " + MAX_FAILURE_TIMEOUT_MS + "]");
            }
            Objects.requireNonNull(security, "transport security is required (ENCRYPT or MAC)");
            if (maxPendingHandshakes <= 0) {
                throw new IllegalArgumentException("max pending handshakes " + maxPendingHandshakes + " invalid, expected > 0");
            }
            if (maxPendingHandshakesPerSource <= 0) {
                throw new IllegalArgumentException("max pending handshakes per source " + maxPendingHandshakesPerSource
                        + " invalid, expected > 0");
            }
            if (ioThreads <= 0) {
                throw new IllegalArgumentException("io threads " + ioThreads + " invalid, expected > 0");
            }
            if (sharedRingBytes != 0 && (sharedRingBytes < SharedRing.MIN_CAPACITY || sharedRingBytes > SharedRing.MAX_CAPACITY)) {
                throw new IllegalArgumentException("shared ring bytes " + sharedRingBytes + " out of range [" + SharedRing.MIN_CAPACITY
                        + ", " + SharedRing.MAX_CAPACITY + "], or 0 for none (" + SHARED_RING_PROPERTY + ")");
            }
            return new TransportConfig(this);
        }
    }
}
