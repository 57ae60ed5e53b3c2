package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.agent.transport.Connection;
import io.dsa.agent.wire.ReportMessage;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Peers queues messages for a node not yet connected; a queued coherence message keeps a copy of
 * its data, because the runtime lends a slot's own array to a send.
 */
@Timeout(10)
class PeersTest {
    /** A connection that records what it was given, as a real one encodes it at once. */
    private static class Recording implements Connection {
        final List<Object> sent = new ArrayList<>();

        @Override public int peerNodeId() { return 1; }
        @Override public void send(Object message) { sent.add(message); }
        @Override public boolean isOpen() { return true; }
        @Override public void close() {}
        @Override public String remoteAddress() { return "test"; }
    }

    @Test
    void aQueuedCoherenceMessageKeepsTheBytesItWasSentWithAndOrderIsKept() {
        Peers peers = new Peers(0, 2, (n, m) -> {}, IoThread.CALLER, (n, m, e) -> { throw new AssertionError(e); });
        byte[] slot = {1, 2, 3, 4};
        CoherenceMessage data = new CoherenceMessage(CoherenceOp.DATA_S, 7, 0, 0, 1, 1, slot);
        peers.send(1, data);
        ReportMessage after = new ReportMessage(0, "after");
        peers.send(1, after);
        slot[0] = 99;   // the lender writes its array again once the send returned
        Recording c = new Recording();
        assertTrue(peers.attach(1, c));
        assertEquals(2, c.sent.size());
        CoherenceMessage flushed = (CoherenceMessage) c.sent.get(0);
        assertArrayEquals(new byte[] {1, 2, 3, 4}, flushed.data(), "the queued message kept the bytes of its send");
        assertSame(after, c.sent.get(1));
        // once connected, a message goes straight to the connection, which consumes it before send returns
        peers.send(1, data);
        assertSame(data, c.sent.get(2));
    }

    /** A barrier's release reaches the other nodes' connections before this node's own workers wake. */
    @Test
    void sendToAllWritesToEveryOtherNodeBeforeDispatchingToItself() {
        List<String> order = new ArrayList<>();
        Peers peers = new Peers(1, 3, (n, m) -> order.add("self"), IoThread.CALLER, (n, m, e) -> { });
        for (int n : new int[] {0, 2}) {
            assertTrue(peers.attach(n, new Recording() {
                @Override public void send(Object message) { order.add("node " + n); }
            }));
        }
        peers.sendToAll(new ReportMessage(1, "release"));
        assertEquals(List.of("node 0", "node 2", "self"), order);
    }

    /** Before: NettyConnection logged a frame over the limit as a WARN and returned, and whoever waited for it hung. */
    @Test
    void aMessageThatCannotBeSentGoesToTheFailureHandlerQueuedOrNot() {
        List<String> failures = new ArrayList<>();
        Peers peers = new Peers(0, 2, (n, m) -> {}, IoThread.CALLER, (n, m, e) -> failures.add(n + " " + m + " " + e.getMessage()));
        ReportMessage big = new ReportMessage(0, "too big");
        peers.send(1, big);   // queued: fails when flushed
        Connection refusing = new Recording() {
            @Override public void send(Object message) {
                if (message == big) throw new DsaException("cannot send REPORT to node 1 at test: frame too large");
                super.send(message);
            }
        };
        assertTrue(peers.attach(1, refusing));
        peers.send(1, big);
        assertEquals(List.of("1 " + big + " cannot send REPORT to node 1 at test: frame too large",
                "1 " + big + " cannot send REPORT to node 1 at test: frame too large"), failures);
    }
}
