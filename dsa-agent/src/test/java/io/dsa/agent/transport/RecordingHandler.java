package io.dsa.agent.transport;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertNotNull;

/** Test handler that records every callback for the test thread to wait on. */
class RecordingHandler implements InboundHandler {
    record Received(Connection connection, Object message) {}

    final BlockingQueue<Connection> connected = new LinkedBlockingQueue<>();
    final BlockingQueue<Received> messages = new LinkedBlockingQueue<>();
    final BlockingQueue<Connection> disconnected = new LinkedBlockingQueue<>();
    final List<Throwable> disconnectCauses = new CopyOnWriteArrayList<>();

    @Override
    public void onConnected(Connection connection) {
        connected.add(connection);
    }

    @Override
    public void onMessage(Connection connection, Object message) {
        messages.add(new Received(connection, message));
    }

    @Override
    public void onDisconnected(Connection connection, Throwable cause) {
        if (cause != null) {
            disconnectCauses.add(cause);
        }
        disconnected.add(connection);
    }

    Connection awaitConnected() throws InterruptedException {
        Connection c = connected.poll(10, TimeUnit.SECONDS);
        assertNotNull(c, "no onConnected within 10 s");
        return c;
    }

    Object awaitMessage() throws InterruptedException {
        Received r = messages.poll(10, TimeUnit.SECONDS);
        assertNotNull(r, "no message within 10 s");
        return r.message();
    }

    Connection awaitDisconnected() throws InterruptedException {
        Connection c = disconnected.poll(10, TimeUnit.SECONDS);
        assertNotNull(c, "no onDisconnected within 10 s");
        return c;
    }
}
