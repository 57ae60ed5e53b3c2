package io.dsa.agent.internal;

import io.dsa.agent.DsaConfig;
import io.dsa.agent.transport.Connection;
import io.dsa.agent.transport.InboundHandler;
import io.dsa.agent.transport.IoLoop;
import io.dsa.agent.transport.Transport;
import io.dsa.agent.transport.TransportConfig;
import java.util.concurrent.CompletableFuture;

/**
 * The transport as a node uses it: the node's {@link IoThread}, which exists from the start (it
 * owns the coherence engine before any connection does), then the port it listens on, dialling a
 * peer, closing. A node's inbound handler receives connections, messages and disconnections on
 * that thread. The real one is the Netty {@link Transport} on an {@link IoLoop}; tests assemble
 * nodes on an in-memory one.
 */
interface NodeTransport extends AutoCloseable {
    /** @return the node's I/O thread, running from the transport's creation until {@link #close()} */
    IoThread ioThread();

    /**
     * Starts listening; from now on {@code inbound} receives every connection, message and
     * disconnection, on the I/O thread.
     *
     * @throws io.dsa.DsaException if it cannot listen
     */
    void listen(InboundHandler inbound);

    /** @return the port this node listens on (after {@link #listen}) */
    int port();

    /**
     * Dials {@code host:port} and authenticates. Never blocks.
     *
     * @return completes with the connection after the inbound handler's {@code onConnected} for it
     */
    CompletableFuture<Connection> connect(String host, int port);

    /**
     * @return whether the node may open barrier lanes beside this transport's connections
     *         (Unix-domain sockets, docs/runtime.md "Barrier lanes"); false for a transport without
     *         sockets, whose tests must see every message
     */
    default boolean barrierLanes() { return false; }

    /**
     * Makes the I/O thread poll instead of blocking while {@code condition} holds
     * ({@code WaitStrategy.POLL}); a transport without sockets ignores it.
     */
    default void pollWhile(java.util.function.BooleanSupplier condition) {}

    /** @return bytes this node's connections read from the network so far; 0 for a transport without sockets (tests) */
    default long bytesIn() { return 0; }

    /** @return bytes this node's connections wrote to the network so far; 0 for a transport without sockets (tests) */
    default long bytesOut() { return 0; }

    /** Closes every connection (the handler sees each close), stops listening, then stops the I/O thread. Idempotent. */
    @Override
    void close();

    /** Makes the transport of one node. */
    @FunctionalInterface
    interface Factory {
        /** @param nodeId the id the transport authenticates as ({@code config.nodeId()}, or a clone's id) */
        NodeTransport create(DsaConfig config, int nodeId);
    }

    /**
     * The Netty transport on {@code config}'s bind host and port, on one I/O thread, which idles by
     * the VM's wait strategy ({@link Waiting#spinNs}); under SPIN it lends its work to the node's
     * threads while they spin in a wait ({@link Waiting#waitersDriveIo}).
     */
    Factory NETTY = (config, nodeId) -> {
        boolean lends = Waiting.waitersDriveIo(config.waitStrategy());
        IoLoop loop = IoLoop.start("dsa-" + config.vmName() + "-" + nodeId + "-io", true,
                () -> Waiting.spinNs(config.waitStrategy(), config.machineThreads()), lends);
        IoThread io = new IoThread() {
            @Override public void execute(Runnable task) { loop.execute(task); }

            @Override public boolean isCurrent() { return loop.inLoop(); }

            @Override public void waitBegins() { loop.waitBegins(); }

            @Override public boolean waitTurn() { return loop.waitTurn(); }

            @Override public void waitEnds() { loop.waitEnds(); }

            @Override public boolean lends() { return loop.lends(); }
        };
        return new NodeTransport() {
            private volatile Transport transport;

            @Override public IoThread ioThread() { return io; }

            @Override public void pollWhile(java.util.function.BooleanSupplier condition) { loop.pollWhile(condition); }

            @Override
            public void listen(InboundHandler inbound) {
                TransportConfig.Builder tb = TransportConfig.builder();
                if (!config.sharedRings()) tb.sharedRingBytes(0);   // else the default size (dsa.sharedRingBytes)
                TransportConfig tc = tb
                        .bindHost(config.bindHost())
                        .port(config.port())
                        .secret(config.secret())
                        .vmName(config.vmName())
                        .nodeId(nodeId)
                        .maxFrameBytes(config.maxFrameBytes())
                        .security(config.transportSecurity())
                        .failureTimeoutMs(config.failureTimeoutMs())
                        .build();
                transport = Transport.start(tc, inbound, loop);
            }

            @Override public int port() { return transport.boundAddress().getPort(); }

            @Override public boolean barrierLanes() { return true; }

            @Override public CompletableFuture<Connection> connect(String host, int port) { return transport.connect(host, port); }

            @Override
            public long bytesIn() {
                Transport t = transport;
                return t == null ? 0 : t.bytesIn();
            }

            @Override
            public long bytesOut() {
                Transport t = transport;
                return t == null ? 0 : t.bytesOut();
            }

            @Override
            public void close() {
                Transport t = transport;
                if (t != null) t.close();
                loop.close();
            }
        };
    };
}
