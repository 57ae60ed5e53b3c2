package io.dsa.agent.internal;

import io.dsa.agent.transport.Connection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** A transport that only dials: each dial waits until the test answers it ({@link #answer}). */
final class FakeDialer implements NodeTransport {
    private final Map<String, CompletableFuture<Connection>> dials = new LinkedHashMap<>();

    @Override public IoThread ioThread() { return IoThread.CALLER; }

    @Override public void listen(io.dsa.agent.transport.InboundHandler inbound) {}

    @Override public int port() { return 7999; }

    @Override
    public synchronized CompletableFuture<Connection> connect(String host, int port) {
        return dials.computeIfAbsent(host + ":" + port, k -> new CompletableFuture<>());
    }

    @Override public void close() {}

    /** @return the addresses dialled, in order */
    synchronized List<String> dialled() { return new ArrayList<>(dials.keySet()); }

    /** The dial of {@code address} reached {@code c}. */
    void answer(String address, Connection c) { dial(address).complete(c); }

    /** The dial of {@code address} failed with {@code e}. */
    void fail(String address, Throwable e) { dial(address).completeExceptionally(e); }

    private synchronized CompletableFuture<Connection> dial(String address) {
        CompletableFuture<Connection> f = dials.get(address);
        if (f == null) throw new AssertionError(address + " was not dialled; dialled: " + dials.keySet());
        return f;
    }
}
