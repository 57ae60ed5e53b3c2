package io.dsa.agent.internal;

import io.dsa.agent.transport.Connection;
import io.dsa.agent.transport.WireRoundTrip;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;

/**
 * A connection to node {@link #peerNodeId()} that hands each message it is given, passed through
 * the real codec, to a sink (by default none: the test looks at the connection, not its traffic).
 * Sends after {@link #close()} are dropped, as on a closed channel. Thread-safe.
 */
final class FakeConnection implements Connection {
    private final int peer;
    private final BiConsumer<Integer, Object> sink;
    private final Executor ioThread;
    private volatile boolean open = true;

    /** Checks that what it is given encodes, and drops it; runs I/O thread tasks on the calling thread. */
    FakeConnection(int peer) {
        this(peer, (to, message) -> {}, Runnable::run);
    }

    /** Hands its sends to {@code sink} (peer, decoded copy) and I/O thread tasks to {@code ioThread}. */
    FakeConnection(int peer, BiConsumer<Integer, Object> sink, Executor ioThread) {
        this.peer = peer;
        this.sink = sink;
        this.ioThread = ioThread;
    }

    @Override public int peerNodeId() { return peer; }

    @Override
    public void send(Object message) {
        Object copy = WireRoundTrip.copy(message);
        if (open) sink.accept(peer, copy);
    }

    @Override public void executeOnIoThread(Runnable task) { ioThread.execute(task); }

    @Override public boolean isOpen() { return open; }

    @Override public void close() { open = false; }

    @Override public String remoteAddress() { return "fake:" + peer; }

    @Override public String toString() { return "FakeConnection[node " + peer + (open ? "" : ", closed") + "]"; }
}
