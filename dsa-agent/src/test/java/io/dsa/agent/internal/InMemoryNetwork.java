package io.dsa.agent.internal;

import io.dsa.DsaException;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.transport.Connection;
import io.dsa.agent.transport.InboundHandler;
import io.dsa.agent.transport.WireRoundTrip;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * Nodes of one JVM wired in memory instead of sockets: a {@link NodeTransport.Factory} whose
 * transports listen on made-up ports of {@code config.bindHost()} and connect to each other.
 * Each node has one I/O thread ({@code mem-io-N}), which runs its connection events, the messages
 * it receives (in the order sent on each connection) and its I/O thread tasks, as Netty's does.
 * Every message is encoded by the real codec when it is sent, so a lent array may be reused at once,
 * and decoded on the receiver's I/O thread, a partition into the array the receiver names for it.
 * A dial authenticates as the real handshake does: same VM name and secret, or it is refused.
 * A test can hold a message on its way, and what follows it on its connection ({@link #holdFrom}).
 */
final class InMemoryNetwork implements NodeTransport.Factory {
    private final Map<Integer, Endpoint> endpoints = new ConcurrentHashMap<>();
    private final AtomicInteger nextPort = new AtomicInteger(41000);
    /** Posting order: a connection's events and messages are queued in the order they happen. */
    private final Object posting = new Object();
    private final AtomicInteger messages = new AtomicInteger();
    // under `posting`: the messages held on their way (holdFrom)
    private int holdSender = -1;
    private int holdReceiver = -1;
    private Predicate<Object> holdFirst;
    private Side heldOn;
    private final List<Runnable> held = new ArrayList<>();

    @Override
    public NodeTransport create(DsaConfig config, int nodeId) {
        return new Endpoint(config, nodeId, nextPort.getAndIncrement());
    }

    /** @return how many messages crossed the network */
    int messages() { return messages.get(); }

    /**
     * Holds the first message node {@code sender} sends to node {@code receiver} that {@code first}
     * accepts, and every later one on that connection (so their order stays), until
     * {@link #releaseHeld}: a message slow on its way.
     */
    void holdFrom(int sender, int receiver, Predicate<Object> first) {
        synchronized (posting) {
            holdSender = sender;
            holdReceiver = receiver;
            holdFirst = first;
        }
    }

    /** @return how many messages are held */
    int held() {
        synchronized (posting) {
            return held.size();
        }
    }

    /** Delivers the held messages, in the order sent, and holds no more. */
    void releaseHeld() {
        synchronized (posting) {
            for (Runnable deliver : held) deliver.run();
            held.clear();
            heldOn = null;
            holdFirst = null;
        }
    }

    private final class Endpoint implements NodeTransport, IoThread {
        final DsaConfig config;
        final int nodeId;
        volatile InboundHandler inbound;
        final int port;
        final ExecutorService io;
        volatile Thread ioThread;
        final List<Side> sides = new ArrayList<>();
        volatile boolean closed;

        Endpoint(DsaConfig config, int nodeId, int port) {
            this.config = config;
            this.nodeId = nodeId;
            this.port = port;
            this.io = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "mem-io-" + nodeId);
                t.setDaemon(true);
                ioThread = t;
                return t;
            });
        }

        @Override public IoThread ioThread() { return this; }

        @Override
        public void execute(Runnable task) {
            synchronized (sides) {
                if (io.isShutdown()) throw new java.util.concurrent.RejectedExecutionException("node " + nodeId + " closed");
                io.execute(task);
            }
        }

        @Override public boolean isCurrent() { return Thread.currentThread() == ioThread; }

        @Override
        public void listen(InboundHandler handler) {
            inbound = handler;
            endpoints.put(port, this);
        }

        @Override public int port() { return port; }

        @Override
        public CompletableFuture<Connection> connect(String host, int port) {
            CompletableFuture<Connection> result = new CompletableFuture<>();
            Endpoint peer = endpoints.get(port);
            if (closed || peer == null || peer.closed || !peer.config.bindHost().equals(host)) {
                result.completeExceptionally(new DsaException("cannot connect to " + host + ":" + port + ": connection refused"));
                return result;
            }
            if (!peer.config.vmName().equals(config.vmName()) || !Arrays.equals(peer.config.secret(), config.secret())) {
                result.completeExceptionally(new DsaException("cannot connect to " + host + ":" + port + ": authentication failed"));
                return result;
            }
            Side dialler = new Side(this, peer.nodeId);
            Side acceptor = new Side(peer, nodeId);
            dialler.other = acceptor;
            acceptor.other = dialler;
            synchronized (posting) {
                // the acceptor sees the connection first, as in the real handshake (it sends the welcome)
                peer.post(() -> peer.inbound.onConnected(acceptor));
                post(() -> {
                    inbound.onConnected(dialler);
                    result.complete(dialler);
                });
            }
            return result;
        }

        void post(Runnable task) {
            synchronized (sides) {
                if (io.isShutdown()) return;
                io.execute(task);
            }
        }

        @Override
        public void close() {
            List<Side> all;
            synchronized (sides) {
                if (closed) return;
                closed = true;
                all = List.copyOf(sides);
            }
            for (Side s : all) s.close();
            synchronized (sides) { io.shutdown(); } // what is queued (the closes) still runs
            if (!isCurrent()) {
                try {
                    io.awaitTermination(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** One end of a connection: owned by {@code local}, talking to node {@code peer}. */
    private final class Side implements Connection {
        final Endpoint local;
        final int peer;
        Side other;
        volatile boolean open = true;

        Side(Endpoint local, int peer) {
            this.local = local;
            this.peer = peer;
            synchronized (local.sides) { local.sides.add(this); }
        }

        @Override public int peerNodeId() { return peer; }

        @Override
        public void send(Object message) {
            byte[] frame = WireRoundTrip.encode(message);
            synchronized (posting) {
                if (!open) return;
                messages.incrementAndGet();
                Side to = other;
                // decoded on the receiver's I/O thread, a partition into the array its node names
                Runnable deliver = () -> to.local.post(() -> to.local.inbound.onMessage(to, WireRoundTrip.decode(frame, to.local.inbound)));
                if (heldOn == this || heldOn == null && holdFirst != null && local.nodeId == holdSender && peer == holdReceiver
                        && holdFirst.test(message)) {
                    heldOn = this;
                    held.add(deliver);
                    return;
                }
                deliver.run();
            }
        }

        @Override public void executeOnIoThread(Runnable task) { local.post(task); }

        @Override public boolean isOpen() { return open; }

        @Override
        public void close() {
            synchronized (posting) {
                if (!open) return;
                open = false;
                other.open = false;
                local.post(() -> local.inbound.onDisconnected(this, null));
                Side o = other;
                o.local.post(() -> o.local.inbound.onDisconnected(o, null));
            }
        }

        @Override public String remoteAddress() { return other.local.config.bindHost() + ":" + other.local.port; }

        @Override public String toString() { return "mem[node " + local.nodeId + " -> " + peer + "]"; }
    }
}
