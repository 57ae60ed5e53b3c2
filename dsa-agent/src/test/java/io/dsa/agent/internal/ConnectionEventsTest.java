package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.BarrierKind;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.ProxyMode;
import io.dsa.agent.wire.JoinMessage;
import io.dsa.agent.wire.RegisterMessage;
import io.dsa.agent.wire.ReportMessage;
import io.dsa.agent.wire.StatusMessage;
import io.dsa.agent.wire.ViewMessage;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a node makes of connections coming, carrying messages and going, in a whole node on a
 * scripted transport (3 nodes x 1 thread): attach rules, joins at node 0, retired connections,
 * lost nodes, the lost monitor, clones, and a handler that throws.
 */
@Timeout(10)
class ConnectionEventsTest {
    static final DsaConfig CONFIG = ScriptedNode.config(3, 1, BarrierKind.TREE, 2, ProxyMode.FLOAT);
    ScriptedNode node;

    @AfterEach
    void close() { if (node != null) node.close(); }

    ScriptedNode node(int id) { return node = new ScriptedNode(CONFIG, id); }

    @Test
    void aNodeAttachesTheConnectionsOfHigherNodesOnceAndLeavesItsOwnDialsToTheDialler() {
        ScriptedNode n = node(1);
        n.connected(0);
        assertFalse(n.rt.peers().connected(0), "node 1 dialled node 0: its own code attaches it");
        FakeConnection from2 = n.connected(2);
        assertTrue(n.rt.peers().holds(2, from2));
        FakeConnection second = n.newLink(2);
        n.connected(second);
        assertFalse(second.isOpen(), "a second connection from node 2 is refused");
        assertTrue(n.rt.peers().holds(2, from2));
    }

    @Test
    void node0TakesJoinsAndClosesAConnectionWhoseJoinItRefuses() {
        ScriptedNode n = node(0);
        FakeConnection c1 = n.connected(1);
        n.deliver(c1, new JoinMessage(1, "127.0.0.1", 7001));
        assertTrue(c1.isOpen());
        FakeConnection c2 = n.connected(2);
        n.deliver(c2, new JoinMessage(1, "127.0.0.1", 7002));
        assertFalse(c2.isOpen(), "node 2 joined as node 1");
        assertEquals(List.of(), n.take());
    }

    @Test
    void aMessageOfARoleThisNodeDoesNotHaveIsDroppedAndHarmless() {
        ScriptedNode n = node(2).connectAll();
        n.deliver(1, new RegisterMessage(1, RegisterMessage.LOCK, "L", new long[0]));
        n.deliver(1, new ReportMessage(1, "x"));
        n.deliver(1, new JoinMessage(1, "h", 1));
        n.deliver(1, new StatusMessage(1, StatusMessage.DONE, ""));
        assertEquals(List.of(), n.take());
        assertFalse(n.rt.job.failed());
    }

    @Test
    void aHandlerThatThrowsReportsTheFailureAndTheNodeGoesOn() {
        ScriptedNode n = node(2).connectAll();
        n.rt.registry.onDefine(new io.dsa.agent.wire.DefineMessage(RegisterMessage.ARRAY, 4, 0, "A",
                Specs.toParams(io.dsa.ArraySpec.oneDimensional("A", io.dsa.ElementType.INT, 8, 4, io.dsa.Distribution.BLOCK))));
        n.deliver(1, new CoherenceMessage(CoherenceOp.INV, 4, 0, 1, 2, 1, null));
        List<String> sent = n.take();
        assertEquals(1, sent.size(), sent.toString());
        assertTrue(sent.get(0).startsWith("to 0: Status(2, 2, node 2 failed handling CoherenceMessage from node 1: "
                + "java.lang.IllegalStateException: node 2: unexpected INV"), sent.get(0));
    }

    @Test
    void messagesOnAMovedNodesRetiredConnectionAreDroppedAndItsCloseIsNoLoss() {
        ScriptedNode n = node(2);
        n.deliver(0, new ViewMessage(1, List.of("127.0.0.1:7000", "127.0.0.1:7001", "127.0.0.1:7002")));
        assertEquals(List.of("127.0.0.1:7001"), n.dialled(), "node 2 dials node 1");
        n.connectAll();
        FakeConnection old = n.link(1);
        assertTrue(n.rt.peers().holds(1, old));
        n.rt.expectMove(1);
        FakeConnection fresh = n.connected(n.newLink(1));
        n.rt.commitMove(1, "127.0.0.1:7101");
        assertFalse(old.isOpen());
        assertEquals("127.0.0.1:7101", n.rt.view().get(1));
        n.deliver(old, new StatusMessage(0, StatusMessage.ABORT, "the old agent lost a peer"));
        assertFalse(n.rt.job.failed(), "dropped");
        n.disconnected(old, null);
        assertEquals(List.of(), n.take());
        n.disconnected(fresh, new IOException("reset"));
        assertEquals(List.of("to 0: Status(2, 2, node 2 lost node 1 at 127.0.0.1:7101: java.io.IOException: reset)"), n.take());
    }

    @Test
    void losingTheMonitorEndsTheJobAtANode() {
        ScriptedNode n = node(1).connectAll();
        n.disconnected(n.link(0), new IOException("reset"));
        assertTrue(n.rt.job.finished());
        assertEquals("lost the monitor (node 0): java.io.IOException: reset", n.rt.job.failure());
        assertEquals(List.of(), n.take());
    }

    @Test
    void node0BroadcastsTheLossOfANodeThatWasNotDone() {
        ScriptedNode n = node(0).connectAll();
        n.disconnected(n.link(2), null);
        assertEquals(List.of("to 1: Status(0, 3, lost node 2 before it joined: connection closed)",
                        "to 2: Status(0, 3, lost node 2 before it joined: connection closed)"),
                n.take(), "node 0's own abort is local");
        assertTrue(n.rt.job.failed());
    }

    @Test
    void afterTheJobEndedOrTheNodeClosedAConnectionMayClose() {
        ScriptedNode n = node(1).connectAll();
        n.deliver(0, new StatusMessage(0, StatusMessage.FINISHED, ""));
        n.disconnected(n.link(2), null);
        assertEquals(List.of(), n.take());
        assertFalse(n.rt.job.failed());
        ScriptedNode m = new ScriptedNode(CONFIG, 2).connectAll();
        m.rt.close();
        m.disconnected(m.link(1), null);
        assertEquals(List.of(), m.take());
    }

    @Test
    void aStrayConnectionClosingWhileThePeersCurrentOneIsUpIsNoLoss() {
        ScriptedNode n = node(2).connectAll();
        n.disconnected(new FakeConnection(1), null);
        assertEquals(List.of(), n.take());
    }

    @Test
    void aCloneThatLeavesIsForgottenAndACloneEndsWithItsMonitor() throws Exception {
        ScriptedNode n = node(0).connectAll();
        n.rt.admitClone(3);
        FakeConnection clone = n.connected(3);
        assertTrue(n.rt.peers().holds(3, clone));
        n.disconnected(clone, null);
        assertEquals(List.of(), n.take(), "a clone is no member of the job");
        assertFalse(n.rt.job.failed());

        ScriptedNode c = new ScriptedNode(3, f -> new NodeRuntime(CONFIG, 3, 4, f));
        try {
            c.connectAll();
            // the VM's end is announced off the I/O thread, where a reaction may close the node and wait for it
            CompletableFuture<Thread> announcedOn = c.rt.monitorLost().thenApply(reason -> Thread.currentThread());
            c.disconnected(c.link(1), null);
            assertFalse(c.rt.monitorLost().isDone());
            c.disconnected(c.link(0), null);
            assertEquals("connection closed", c.rt.monitorLost().get(10, TimeUnit.SECONDS));
            assertNotSame(c.ioThread(), announcedOn.get(10, TimeUnit.SECONDS), "announced on the I/O thread, which saw node 0 go");
            assertFalse(c.rt.job.failed());
        } finally {
            c.close();
        }
    }
}
