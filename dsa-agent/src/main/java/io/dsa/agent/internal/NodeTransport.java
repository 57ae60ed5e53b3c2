package io.dsa.agent.internal;

import io.dsa.agent.DsaConfig;
import io.dsa.agent.transport.Connection;
import io.dsa.agent.transport.InboundHandler;
import io.dsa.agent.transport.Transport;
import io.dsa.agent.transport.TransportConfig;
import java.util.concurrent.CompletableFuture;

/**
 * The transport as a node uses it: the port it listens on, dialling a peer, closing. A node's
 * inbound handler receives connections, messages and disconnections on the transport's I/O
 * thread. The real one is the Netty {@link Transport}; tests assemble nodes on an in-memory one.
 */
interface NodeTransport extends AutoCloseable {
    /** @return the port this node listens on */
    int port();

    /**
     * Dials {@code host:port} and authenticates. Never blocks.
     *
     * @return completes with the connection after the inbound handler's {@code onConnected} for it
     */
    CompletableFuture<Connection> connect(String host, int port);

    /** Closes every connection (the handler sees each close) and stops listening. Idempotent. */
    @Override
    void close();

    /** Starts the transport of one node. */
    @FunctionalInterface
    interface Factory {
        /**
         * @param nodeId the id the transport authenticates as ({@code config.nodeId()}, or a clone's id)
         * @throws io.dsa.DsaException if it cannot listen
         */
        NodeTransport start(DsaConfig config, int nodeId, InboundHandler inbound);
    }

    /** The Netty transport on {@code config}'s bind host and port, with one I/O thread. */
    Factory NETTY = (config, nodeId, inbound) -> {
        TransportConfig tc = TransportConfig.builder()
                .bindHost(config.bindHost())
                .port(config.port())
                .secret(config.secret())
                .vmName(config.vmName())
                .nodeId(nodeId)
                .maxFrameBytes(config.maxFrameBytes())
                .security(config.transportSecurity())
                .ioThreads(1) // a node has at most N-1 connections; one I/O thread keeps ordering cheap
                .build();
        Transport transport = Transport.start(tc, inbound);
        return new NodeTransport() {
            @Override public int port() { return transport.boundAddress().getPort(); }
            @Override public CompletableFuture<Connection> connect(String host, int port) { return transport.connect(host, port); }
            @Override public void close() { transport.close(); }
        };
    };
}
