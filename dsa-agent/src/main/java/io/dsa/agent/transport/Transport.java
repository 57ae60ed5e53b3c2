package io.dsa.agent.transport;

import io.dsa.DsaException;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A node's network endpoint: listens for peers, dials peers, and runs the authenticated
 * handshake on every connection before any message is decoded; after it, every frame travels
 * sealed in a record ({@link TransportConfig#security()}: encrypted by default). Accepted
 * connections that have not authenticated yet are held within per-source and overall limits
 * ({@link PendingHandshakes}); authenticated ones are always served. Uses native epoll when
 * available, else NIO. One instance per node; thread-safe.
 *
 * <pre>{@code
 * Transport transport = Transport.start(config, handler);      // listening
 * Connection c = transport.connect("10.0.0.2", 4567).join();   // authenticated
 * c.send(new JoinMessage(1, "10.0.0.1", transport.boundAddress().getPort()));
 * transport.close();
 * }</pre>
 *
 * <p>Channel pipeline during the handshake: {@code handshakeDecoder} ({@link FrameDecoder},
 * small handshake frames only), {@code frameEncoder} ({@link FrameEncoder}), {@code handshake}
 * ({@link HandshakeHandler}). Once authenticated, for the rest of the connection's life:
 * <pre>
 * socket &lt;-&gt; heartbeat     ({@link HeartbeatHandler}: closes a connection silent for the failure timeout,
 *                           sends a heartbeat after a third of it without writing)
 *            recordEncoder ({@link RecordEncoder}, outbound: frame -&gt; sealed record)
 *            recordDecoder ({@link RecordDecoder}, inbound: record -&gt; opened frame)
 *            frameDecoder  ({@link FrameDecoder}, inbound: frame -&gt; message)
 *            frameEncoder  ({@link FrameEncoder}, outbound: message -&gt; frame; after the
 *                           handshake messages arrive here already encoded)
 *            scheduler     ({@link OutboundScheduler}: the order and timing of writes: small
 *                           frames between the chunks of large messages, back-pressure, flushes)
 *            connection    ({@link ConnectionHandler}: messages to the {@link InboundHandler})
 * </pre>
 * A peer silent for {@link TransportConfig#failureTimeoutMs()} is lost: its connection closes with
 * a reason naming it, and the handler's {@code onDisconnected} sees that reason.
 */
public final class Transport implements AutoCloseable {
    static final String HANDSHAKE_DECODER = "handshakeDecoder";
    static final String FRAME_ENCODER = "frameEncoder";
    static final String HANDSHAKE_HANDLER = "handshake";
    static final String RECORD_ENCODER = "recordEncoder";
    static final String RECORD_DECODER = "recordDecoder";
    static final String FRAME_DECODER = "frameDecoder";
    static final String SCHEDULER = "scheduler";
    static final String CONNECTION_HANDLER = "connection";
    static final String BYTE_COUNTER = "byteCounter";
    static final String HEARTBEAT_HANDLER = "heartbeat";

    private static final Logger LOG = LoggerFactory.getLogger(Transport.class);
    private static final int SHUTDOWN_TIMEOUT_SECONDS = 2;

    private final TransportConfig config;
    private final InboundHandler inbound;
    private final EventLoopGroup bossGroup;
    private final EventLoopGroup workerGroup;
    /** The I/O loop the transport runs on when it was given one (it does not stop it), else null. */
    private final IoLoop ioLoop;
    private final boolean epoll;
    private final ChannelGroup channels = new DefaultChannelGroup("dsa-transport", GlobalEventExecutor.INSTANCE);
    private final PendingHandshakes pending;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final ByteCounter bytes = new ByteCounter();
    private Channel serverChannel;
    /**
     * The loopback address this transport listens on, from which it also dials loopback peers; null
     * when it listens on a wildcard or non-loopback address (the kernel then picks the source). So
     * every node of a VM on one machine is one address on the wire, as on a real network: a firewall
     * rule between two nodes' addresses cuts exactly their connections (the fault tests do that).
     */
    private java.net.InetAddress dialFrom;

    private Transport(TransportConfig config, InboundHandler inbound, IoLoop ioLoop) {
        LeakDetection.apply();
        this.config = config;
        this.inbound = inbound;
        this.ioLoop = ioLoop;
        this.epoll = ioLoop != null ? ioLoop.epoll() : config.preferNativeTransport() && Epoll.isAvailable();
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        String name = "dsa-" + config.vmName() + "-" + config.nodeId();
        this.bossGroup = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory(name + "-accept", true), io);
        this.workerGroup = ioLoop != null ? ioLoop.group()
                : new MultiThreadIoEventLoopGroup(config.ioThreads(), new DefaultThreadFactory(name + "-io", true), io);
        HandshakeLog log = new HandshakeLog(LOG::warn,
                (task, delaySeconds) -> bossGroup.next().schedule(task, delaySeconds, TimeUnit.SECONDS));
        this.pending = new PendingHandshakes(config.maxPendingHandshakes(), config.maxPendingHandshakesPerSource(), log);
    }

    /**
     * Gets the JDK's AES-GCM compiled now, in the background, once per JVM, where otherwise the
     * JVM's first bulk record would start it (docs/runtime.md, "Warming AES-GCM up"): for JVMs that
     * wait before their traffic, as a host's spare job JVMs do. Skipped where C2 does not run.
     */
    public static void warmUpRecordCiphers() { GcmWarmUp.startOnce(); }

    /**
     * Binds the listening socket and starts serving.
     *
     * @param config where to listen, who this node is, the secret and limits
     * @param inbound receives connections and messages, on I/O threads
     * @return the running transport
     * @throws DsaException when the address cannot be bound (e.g. "cannot bind 127.0.0.1:5000: Address already in use")
     */
    public static Transport start(TransportConfig config, InboundHandler inbound) {
        return start(config, inbound, null);
    }

    /**
     * Binds the listening socket and starts serving every connection on {@code ioLoop}'s thread
     * ({@code config.ioThreads()} is then ignored). Closing the transport leaves the loop running:
     * its owner closes it.
     *
     * @param ioLoop the node's I/O thread, or null for I/O threads of the transport's own
     * @throws DsaException when the address cannot be bound
     */
    public static Transport start(TransportConfig config, InboundHandler inbound, IoLoop ioLoop) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(inbound, "inbound");
        Transport transport = new Transport(config, inbound, ioLoop);
        try {
            transport.bind();
        } catch (RuntimeException e) {
            transport.close();
            throw e;
        }
        return transport;
    }

    private void bind() {
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(bossGroup, workerGroup)
                .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childOption(ChannelOption.SO_SNDBUF, sendBufferBytes(config))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        accept(ch);
                    }
                });
        ChannelFuture bound = bootstrap.bind(config.bindHost(), config.port()).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            throw new DsaException("cannot bind " + config.bindHost() + ":" + config.port() + ": "
                    + describe(bound.cause()), bound.cause());
        }
        serverChannel = bound.channel();
        java.net.InetAddress listening = ((InetSocketAddress) serverChannel.localAddress()).getAddress();
        dialFrom = listening.isLoopbackAddress() ? listening : null;
        LOG.info("node {} of vm '{}' listening on {} ({}, {})", config.nodeId(), config.vmName(),
                HandshakeHandler.format(serverChannel.localAddress()), epoll ? "epoll" : "nio", config.security());
    }

    private void accept(SocketChannel ch) {
        if (closed.get()) {
            ch.close();
            return;
        }
        pending.admit(ch);
        channels.add(ch);
        initPipeline(ch, config, HandshakeHandler.forAcceptor(config, inbound, pending));
        ch.pipeline().addFirst(BYTE_COUNTER, bytes);
    }

    /**
     * @return the socket send buffer: two chunks. The kernel's buffer is first in, first out, so a
     *         small message the scheduler puts ahead of a transfer's next chunk still waits for what
     *         the socket already holds, and Linux lets an unset buffer grow to 4 MiB. Two chunks keep
     *         the socket busy while the next is sealed; measured with
     *         {@code SmallMessageUnderBulkBenchmark} and {@code dsa bench stream} (docs/runtime.md,
     *         "Bulk transfers")
     */
    static int sendBufferBytes(TransportConfig config) {
        return 2 * config.chunkBytes();
    }

    /** Sets up a new channel's pipeline for the handshake; also used by tests on embedded channels. */
    static void initPipeline(Channel ch, TransportConfig config, HandshakeHandler handshake) {
        ch.pipeline()
                .addLast(HANDSHAKE_DECODER, new FrameDecoder(WireFormat.MAX_HANDSHAKE_FRAME_BYTES, true))
                .addLast(FRAME_ENCODER, new FrameEncoder(config.maxFrameBytes()))
                .addLast(HANDSHAKE_HANDLER, handshake);
    }

    /** @return accepted connections whose handshake is still running */
    int pendingHandshakes() { return pending.size(); }

    /** @return the address the server is bound to (with the real port when the config said 0) */
    public InetSocketAddress boundAddress() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /** @return bytes read from this transport's sockets so far (every connection, handshakes included) */
    public long bytesIn() { return bytes.bytesIn(); }

    /** @return bytes written to this transport's sockets so far (every connection, handshakes included) */
    public long bytesOut() { return bytes.bytesOut(); }

    /** @return this transport's configuration */
    public TransportConfig config() { return config; }

    /**
     * Dials a peer and runs the handshake. Never blocks.
     *
     * @return completes with the authenticated connection (after the handler's {@code onConnected}),
     *         or exceptionally with a {@link DsaException} saying why (connect failure, refused,
     *         timed out)
     */
    public CompletableFuture<Connection> connect(String host, int port) {
        CompletableFuture<Connection> result = new CompletableFuture<>();
        String peer = host + ":" + port;
        if (closed.get()) {
            result.completeExceptionally(new DsaException("cannot connect to " + peer + ": transport closed"));
            return result;
        }
        Bootstrap bootstrap = new Bootstrap()
                .group(workerGroup)
                .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.SO_SNDBUF, sendBufferBytes(config))
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, config.connectTimeoutMs())
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        channels.add(ch);
                        initPipeline(ch, config, HandshakeHandler.forDialer(config, inbound, result, peer));
                        ch.pipeline().addFirst(BYTE_COUNTER, bytes);
                    }
                });
        try {
            InetSocketAddress remote = remote(host, port);
            boolean loopback = !remote.isUnresolved() && remote.getAddress().isLoopbackAddress();
            bootstrap.connect(remote, dialFrom != null && loopback ? new InetSocketAddress(dialFrom, 0) : null)
                    .addListener((ChannelFuture f) -> {
                if (!f.isSuccess()) {
                    result.completeExceptionally(new DsaException("cannot connect to " + peer + ": "
                            + describe(f.cause()), f.cause()));
                }
            });
        } catch (RuntimeException e) {
            // e.g. the event loop group is shutting down
            result.completeExceptionally(new DsaException("cannot connect to " + peer + ": " + describe(e), e));
        }
        return result;
    }

    /**
     * @return {@code host:port} resolved now when {@code host} is an IP address literal (no name
     *         lookup), else unresolved, for the connect to resolve
     */
    private InetSocketAddress remote(String host, int port) {
        byte[] literal = io.netty.util.NetUtil.createByteArrayFromIpAddressString(host);
        if (literal == null) return InetSocketAddress.createUnresolved(host, port);
        try {
            return new InetSocketAddress(java.net.InetAddress.getByAddress(host, literal), port);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException("an address literal of " + literal.length + " bytes", e);
        }
    }

    /**
     * Closes the listening socket and every connection (handlers see {@code onDisconnected}),
     * then stops the I/O threads. Waits up to a few seconds unless called on an I/O thread, where
     * it only starts the shutdown. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        boolean wait = !inEventLoop();
        if (serverChannel != null) {
            ChannelFuture f = serverChannel.close();
            if (wait) {
                f.awaitUninterruptibly(SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            }
        }
        Future<Void> closing = channels.close();
        if (wait) {
            closing.awaitUninterruptibly(SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        Future<?> boss = bossGroup.shutdownGracefully(0, SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        Future<?> workers = ioLoop != null ? null : workerGroup.shutdownGracefully(0, SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (wait) {
            boss.awaitUninterruptibly(2L * SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (workers != null) workers.awaitUninterruptibly(2L * SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        LOG.debug("transport of node {} closed", config.nodeId());
    }

    private boolean inEventLoop() {
        for (EventExecutor e : workerGroup) {
            if (e.inEventLoop()) {
                return true;
            }
        }
        for (EventExecutor e : bossGroup) {
            if (e.inEventLoop()) {
                return true;
            }
        }
        return false;
    }

    /** Netty's native errors read "bind(..) failed: Address already in use"; keep what follows "failed: ". */
    private static String describe(Throwable t) {
        if (t == null) {
            return "unknown error";
        }
        String message = t.getMessage();
        if (message == null) {
            return t.getClass().getSimpleName();
        }
        int failed = message.indexOf("failed");
        int colon = failed < 0 ? -1 : message.indexOf(": ", failed);
        return colon >= 0 && colon + 2 < message.length() ? message.substring(colon + 2) : message;
    }
}
