package io.dsa.agent.internal;

import io.dsa.DsaException;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.transport.Connection;
import io.dsa.agent.transport.InboundHandler;
import io.dsa.agent.transport.SilenceDetector;
import io.dsa.agent.transport.WireRoundTrip;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
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
 *
 * <p>With a {@link FaultPlan}, the network applies its faults to every frame (drop, delay keeping
 * each connection's order, duplicate, reorder, cuts between nodes, across which frames wait for the
 * heal) and each connection runs the failure
 * detector's rules ({@link SilenceDetector}, as the Netty transport's {@code HeartbeatHandler} does)
 * on a clock thread: heartbeats when idle, through the codec and the plan like any frame, and a
 * connection silent for its node's {@code failureTimeoutMs} is closed with the transport's reason
 * (its peer sees the close only if the two are not cut from each other). {@link #close} stops it.
 */
final class InMemoryNetwork implements NodeTransport.Factory, AutoCloseable {
    private final Map<Integer, Endpoint> endpoints = new ConcurrentHashMap<>();
    private final AtomicInteger nextPort = new AtomicInteger(41000);
    /** Posting order: a connection's events and messages are queued in the order they happen. */
    private final Object posting = new Object();
    private final AtomicInteger messages = new AtomicInteger();
    private final java.util.concurrent.atomic.AtomicLong heartbeats = new java.util.concurrent.atomic.AtomicLong();
    // under `posting`: the messages held on their way (holdFrom)
    private int holdSender = -1;
    private int holdReceiver = -1;
    private Predicate<Object> holdFirst;
    private Side heldOn;
    private final List<Runnable> held = new ArrayList<>();
    // under `posting`: the messages record() asked for, in the order they were sent
    private Predicate<Object> recordWhich;
    private final List<Sent> recorded = new ArrayList<>();

    /** A message {@link #record} logged: who sent it to whom. */
    record Sent(int sender, int receiver, Object message) {}
    // with a fault plan (else null): the plan, every connection end, the clock driving the detectors
    private final FaultPlan plan;
    private final List<Side> all = new ArrayList<>();
    private final ScheduledExecutorService clock;
    /** Under `posting`: frames that reached their node so far (a delay's release counts them). */
    private long deliveries;
    /** Reordered frames that later frames of their connection did overtake (not released by their time bound). */
    private final java.util.concurrent.atomic.AtomicLong overtaken = new java.util.concurrent.atomic.AtomicLong();

    /** A network without faults and without the failure detector. */
    InMemoryNetwork() {
        this.plan = null;
        this.clock = null;
    }

    /** A network that applies {@code plan} and runs the failure detector on every connection. */
    InMemoryNetwork(FaultPlan plan) {
        this.plan = plan;
        this.clock = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "mem-clock");
            t.setDaemon(true);
            return t;
        });
        clock.scheduleAtFixedRate(this::tick, 1, 1, TimeUnit.MILLISECONDS);
    }

    /** Stops the clock (with a fault plan); the nodes close their own transports. */
    @Override
    public void close() {
        if (clock != null) clock.shutdownNow();
    }

    /** The clock: releases delays whose time passed, sends heartbeats owed, closes silent connections. */
    private void tick() {
        synchronized (posting) {
            long now = System.nanoTime();
            releaseDue(now);
            for (Side s : List.copyOf(all)) {
                if (!s.open) {
                    all.remove(s);
                    continue;
                }
                if (now - s.nextTickNs >= 0) {
                    s.nextTickNs = now + TimeUnit.MILLISECONDS.toNanos(s.detector.tickPeriodMs());
                    if (s.detector.heartbeatDue()) {
                        heartbeats.incrementAndGet();
                        s.transmit(WireRoundTrip.heartbeat(s.detector.ownIntervalMs()));
                    }
                }
                if (s.detector.nanosLeft(now) <= 0) s.closeSilent(s.detector.silence(s.peer, s.remoteAddress()));
            }
        }
    }

    /** Under `posting`: delivers, in order, the delayed frames at the head of each connection whose release came. */
    private void releaseDue(long now) {
        boolean released = true;
        while (released) {
            released = false;
            for (Side s : all) {
                while (!s.delayed.isEmpty() && (s.delayed.peek().untilHealed ? !plan.isCut(s.local.nodeId, s.peer)
                        : s.delayed.peek().due(deliveries, now))) {
                    s.delayed.poll().deliver.run();
                    released = true;
                }
                for (java.util.Iterator<Delayed> i = s.overtaken.iterator(); i.hasNext(); ) {
                    Delayed d = i.next();
                    if (!d.due(s.other.received, now)) continue;
                    if (s.other.received >= d.afterDeliveries()) overtaken.incrementAndGet();
                    i.remove();
                    d.deliver.run();
                    released = true;
                }
            }
        }
    }

    /**
     * A frame waiting on its connection: delivered once {@code afterDeliveries} frames arrived or at
     * {@code atNs}, or, {@code untilHealed}, once its nodes are no longer cut from each other.
     */
    private record Delayed(Runnable deliver, long afterDeliveries, long atNs, boolean untilHealed) {
        boolean due(long deliveries, long now) { return deliveries >= afterDeliveries || now - atNs >= 0; }
    }

    @Override
    public NodeTransport create(DsaConfig config, int nodeId) {
        return new Endpoint(config, nodeId, nextPort.getAndIncrement());
    }

    /** @return how many heartbeats the failure detectors sent so far (with a fault plan) */
    long heartbeats() { return heartbeats.get(); }

    /** @return how many frames wait for a cut between their nodes to heal */
    int waitingForHeal() {
        synchronized (posting) {
            int n = 0;
            for (Side side : all) for (Delayed d : side.delayed) if (d.untilHealed) n++;
            return n;
        }
    }

    /** @return how many reordered frames were overtaken by later frames of their connection (the rest waited out their bound) */
    long overtaken() { return overtaken.get(); }

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

    /** From now on logs every message {@code which} accepts, in the order sent (held ones too, when sent). */
    void record(Predicate<Object> which) {
        synchronized (posting) {
            recordWhich = which;
        }
    }

    /** @return the messages logged since {@link #record}, in the order sent */
    List<Sent> recorded() {
        synchronized (posting) {
            return List.copyOf(recorded);
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
            FaultPlan.Verdict v = plan == null ? FaultPlan.Verdict.DELIVER : plan.decideDial(nodeId, peer.nodeId);
            switch (v.action()) {
                case DROP -> result.completeExceptionally(new DsaException("cannot connect to " + host + ":" + port
                        + ": the handshake was lost on its way (the fault plan dropped it)"));
                case DELAY -> clock.schedule(() -> establish(peer, result), v.forNs(), TimeUnit.NANOSECONDS);
                default -> establish(peer, result);   // a dial across a cut still connects; its frames wait
            }
            return result;
        }

        /** Connects this node to {@code peer}, both ends, as a handshake that succeeded does. */
        private void establish(Endpoint peer, CompletableFuture<Connection> result) {
            if (closed || peer.closed) {
                result.completeExceptionally(new DsaException("cannot connect to node " + peer.nodeId + ": an end closed during the handshake"));
                return;
            }
            Side dialler = new Side(this, peer.nodeId);
            Side acceptor = new Side(peer, nodeId);
            dialler.other = acceptor;
            acceptor.other = dialler;
            synchronized (posting) {
                if (plan != null) {   // the clock drives both ends from now on
                    all.add(dialler);
                    all.add(acceptor);
                }
                // the acceptor sees the connection first, as in the real handshake (it sends the welcome)
                peer.post(() -> peer.inbound.onConnected(acceptor));
                post(() -> {
                    inbound.onConnected(dialler);
                    result.complete(dialler);
                });
            }
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
        // with a fault plan, under `posting`: the frames waiting on this connection, the failure detector, its next tick
        final ArrayDeque<Delayed> delayed = new ArrayDeque<>();
        /** Frames that wait alone until later ones on this connection passed them (a reordering fault). */
        final List<Delayed> overtaken = new ArrayList<>();
        /** Frames this end received. */
        long received;
        final SilenceDetector detector;
        long nextTickNs;

        Side(Endpoint local, int peer) {
            this.local = local;
            this.peer = peer;
            synchronized (local.sides) { local.sides.add(this); }
            if (plan == null) {
                detector = null;
                return;
            }
            nextTickNs = System.nanoTime();   // the first tick sends the first heartbeat, as right after a handshake
            detector = new SilenceDetector(local.config.failureTimeoutMs(), nextTickNs);
        }

        @Override public int peerNodeId() { return peer; }

        @Override
        public void send(Object message) { transmit(message); }

        /** Encodes {@code message} (the real codec), then delivers it as the fault plan says. */
        void transmit(Object message) {
            byte[] frame = WireRoundTrip.encode(message);
            synchronized (posting) {
                if (!open) return;
                messages.incrementAndGet();
                if (recordWhich != null && recordWhich.test(message)) recorded.add(new Sent(local.nodeId, peer, message));
                Side to = other;
                Runnable deliver = () -> to.arrive(frame);
                if (heldOn == this || heldOn == null && holdFirst != null && local.nodeId == holdSender && peer == holdReceiver
                        && holdFirst.test(message)) {
                    heldOn = this;
                    held.add(deliver);
                    return;
                }
                if (plan == null) {
                    deliver.run();
                    return;
                }
                detector.onWrite();
                FaultPlan.Verdict v = plan.decide(local.nodeId, peer, message);
                long now = System.nanoTime();
                switch (v.action()) {
                    case DROP -> { }
                    case CUT -> enqueue(new Delayed(deliver, Long.MAX_VALUE, now, true));
                    case DUPLICATE -> {
                        enqueue(new Delayed(deliver, 0, now, false));
                        enqueue(new Delayed(deliver, 0, now, false));
                    }
                    case DELAY -> enqueue(new Delayed(deliver, deliveries + v.afterDeliveries(), now + v.forNs(), false));
                    case REORDER -> overtaken.add(new Delayed(deliver, to.received + v.afterDeliveries(), now + v.forNs(), false));
                    case DELIVER -> enqueue(new Delayed(deliver, 0, now, false));
                }
                releaseDue(now);
            }
        }

        // under `posting`: behind what waits on this connection, so its order is kept
        private void enqueue(Delayed d) {
            delayed.add(d);
        }

        /** Under `posting`: {@code frame} reaches this end; decoded on its node's I/O thread. */
        private void arrive(byte[] frame) {
            if (!open) return;   // a closed connection reads nothing
            deliveries++;
            received++;
            if (detector != null) detector.onRead(System.nanoTime());
            local.post(() -> {
                Object m = WireRoundTrip.decode(frame, local.inbound);
                int heartbeatMs = WireRoundTrip.heartbeatIntervalMs(m);
                if (heartbeatMs < 0) {
                    local.inbound.onMessage(this, m);
                } else {
                    synchronized (posting) {
                        if (detector.onPeerHeartbeat(heartbeatMs)) nextTickNs = System.nanoTime();
                    }
                }
            });
        }

        /**
         * Under `posting`: the detector found the peer silent. This end closes with {@code reason};
         * the peer sees the close only when the network between them still carries it.
         */
        void closeSilent(String reason) {
            open = false;
            delayed.clear();
            overtaken.clear();
            DsaException cause = new DsaException(reason);
            System.out.println("mem: closing " + this + ": " + reason);
            local.post(() -> local.inbound.onDisconnected(this, cause));
            Side o = other;
            if (o.open && !plan.isCut(local.nodeId, peer)) {
                o.open = false;
                o.delayed.clear();
                o.overtaken.clear();
                o.local.post(() -> o.local.inbound.onDisconnected(o, null));
            }
        }

        @Override public void executeOnIoThread(Runnable task) { local.post(task); }

        @Override public boolean isOpen() { return open; }

        @Override
        public void close() {
            synchronized (posting) {
                if (!open) return;
                // an orderly close: what waits on either end is still delivered before it (TCP sends its FIN after the data)
                flush();
                other.flush();
                open = false;
                other.open = false;
                local.post(() -> local.inbound.onDisconnected(this, null));
                Side o = other;
                o.local.post(() -> o.local.inbound.onDisconnected(o, null));
            }
        }

        // under `posting`
        private void flush() {
            while (!delayed.isEmpty()) delayed.poll().deliver.run();
            for (Delayed d : overtaken) d.deliver.run();
            overtaken.clear();
        }

        @Override public String remoteAddress() { return other.local.config.bindHost() + ":" + other.local.port; }

        @Override public String toString() { return "mem[node " + local.nodeId + " -> " + peer + "]"; }
    }
}
