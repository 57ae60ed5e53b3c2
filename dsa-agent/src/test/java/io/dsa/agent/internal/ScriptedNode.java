package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.fail;

import io.dsa.agent.BarrierKind;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.ProxyMode;
import io.dsa.agent.transport.Connection;
import io.dsa.agent.transport.InboundHandler;
import io.dsa.agent.transport.WireRoundTrip;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One whole {@link NodeRuntime} on a scripted transport: no sockets, no other nodes. The test plays
 * the other nodes: it delivers their messages ({@link #deliver}) and connection events on the
 * calling thread as the I/O thread would, and reads what the node sent to each of them, in order,
 * through the real codec ({@link #take}, {@link #awaitSent}). Messages the node sends to itself
 * are dispatched at once, as in a real node, and do not appear. The node's I/O thread is a thread
 * named {@code scripted-io-N}: it runs the delivered messages and connection events (the calling
 * test waits for each), the node's I/O thread tasks (the FIXED proxy, a worker's miss) and owns
 * its coherence engine; each send remembers its thread.
 */
final class ScriptedNode implements AutoCloseable {
    /** Test configurations: a random secret, the given shape and barrier. */
    static DsaConfig config(int nodes, int threads, BarrierKind kind, int fanout, ProxyMode proxy) {
        return DsaConfig.builder().nodes(nodes).threadsPerNode(threads).barrier(kind).barrierFanout(fanout).proxy(proxy)
                .randomSecret().startupTimeoutMs(10_000).build();
    }

    /** A message sent, to whom, from which thread. */
    record Sent(int to, String text, String thread) {
        @Override public String toString() { return "to " + to + ": " + text; }
    }

    final NodeRuntime rt;
    private final int nodeId;
    private final ExecutorService io;
    private volatile Thread ioThread;
    private final List<Sent> sent = new ArrayList<>();
    private final Map<Integer, FakeConnection> links = new HashMap<>();
    private final List<String> dialled = new ArrayList<>();
    private InboundHandler inbound;

    /** Node {@code nodeId} of {@code config}'s VM; no connection is up yet (sends queue, see {@link #connectAll}). */
    ScriptedNode(DsaConfig config, int nodeId) {
        this(nodeId, transports -> new NodeRuntime(config, nodeId, config.nodes(), transports));
    }

    /** The node {@code assemble} makes on the scripted transport (a restore, a clone). */
    ScriptedNode(int nodeId, Function<NodeTransport.Factory, NodeRuntime> assemble) {
        this.nodeId = nodeId;
        this.io = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "scripted-io-" + nodeId);
            t.setDaemon(true);
            ioThread = t;
            return t;
        });
        IoThread owner = new IoThread() {
            @Override public void execute(Runnable task) { io.execute(task); }

            @Override public boolean isCurrent() { return Thread.currentThread() == ioThread; }
        };
        this.rt = assemble.apply((c, id) -> {
            return new NodeTransport() {
                @Override public IoThread ioThread() { return owner; }

                @Override public void listen(InboundHandler handler) { inbound = handler; }

                @Override public int port() { return 7000 + id; }

                @Override
                public CompletableFuture<Connection> connect(String host, int port) {
                    synchronized (dialled) { dialled.add(host + ":" + port); }
                    FakeConnection link = link(port - 7000);
                    onIoThread(() -> inbound.onConnected(link));
                    return CompletableFuture.completedFuture(link);
                }

                @Override public void close() { io.shutdownNow(); }
            };
        });
    }

    /** @return the connection of peer {@code node} (made on first use) */
    synchronized FakeConnection link(int node) {
        return links.computeIfAbsent(node, n -> new FakeConnection(n, this::record, io));
    }

    private void record(int to, Object message) {
        synchronized (sent) {
            sent.add(new Sent(to, WireText.of(message), Thread.currentThread().getName()));
            sent.notifyAll();
        }
    }

    /** Attaches a connection to every other node of the VM (queued messages flush, in order). */
    ScriptedNode connectAll() {
        for (int n = 0; n < rt.nodes; n++) if (n != nodeId) rt.peers().attach(n, link(n));
        return this;
    }

    /** @return a new connection from {@code node}, in place of its current one here (a moved node's new agent) */
    synchronized FakeConnection newLink(int node) {
        FakeConnection c = new FakeConnection(node, this::record, io);
        links.put(node, c);
        return c;
    }

    /** The transport reports a new connection from {@code node}. */
    FakeConnection connected(int node) {
        return connected(link(node));
    }

    /** The transport reports connection {@code c}. */
    FakeConnection connected(FakeConnection c) {
        onIoThread(() -> inbound.onConnected(c));
        return c;
    }

    /**
     * Runs {@code event} on the node's I/O thread and waits for it; its exception is thrown here.
     * After the node closed (its I/O thread stopped), on the calling thread, as a closing transport
     * still reports its connections' closes.
     */
    void onIoThread(Runnable event) {
        if (Thread.currentThread() == ioThread || io.isShutdown()) {
            event.run();
            return;
        }
        try {
            io.submit(event).get(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            if (e.getCause() instanceof Error err) throw err;
            throw new IllegalStateException(e.getCause());
        } catch (java.util.concurrent.TimeoutException | InterruptedException e) {
            throw new IllegalStateException("node " + nodeId + "'s I/O thread did not run an event within 10 s", e);
        }
    }

    /** Node {@code from} sends {@code message} (through the codec), on its connection. */
    void deliver(int from, Object message) {
        deliver(link(from), message);
    }

    /** {@code message} arrives on connection {@code c}. */
    void deliver(Connection c, Object message) {
        Object copy = WireRoundTrip.copy(message);
        onIoThread(() -> inbound.onMessage(c, copy));
    }

    /** Connection {@code c} closed. */
    /** @return the thread that plays the node's I/O thread (every scripted event runs on it) */
    Thread ioThread() { return ioThread; }

    void disconnected(Connection c, Throwable cause) {
        onIoThread(() -> inbound.onDisconnected(c, cause));
    }

    /** @return what the node sent since the last take, in order, as {@code "to N: Text(...)"}, and forgets it */
    List<String> take() {
        synchronized (sent) {
            List<String> all = new ArrayList<>();
            for (Sent s : sent) all.add(s.toString());
            sent.clear();
            return all;
        }
    }

    /** Waits (5 s at most) until a send matches, and returns it; earlier sends stay for {@link #take}. */
    Sent awaitSent(Predicate<Sent> matching) {
        long deadline = System.nanoTime() + 5_000_000_000L;
        synchronized (sent) {
            while (true) {
                for (Sent s : sent) if (matching.test(s)) return s;
                long leftMs = (deadline - System.nanoTime()) / 1_000_000;
                if (leftMs <= 0) return fail("node " + nodeId + " sent no matching message within 5 s; sent: " + sent);
                try {
                    sent.wait(leftMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return fail("interrupted");
                }
            }
        }
    }

    /** Waits until the node sent {@code text} to {@code to}. */
    Sent awaitSent(int to, String text) {
        return awaitSent(s -> s.to() == to && s.text().equals(text));
    }

    /** @return the addresses the node dialled */
    List<String> dialled() {
        synchronized (dialled) { return List.copyOf(dialled); }
    }

    @Override
    public void close() { rt.close(); }
}
