package io.dsa.agent.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.dsa.DsaException;
import io.dsa.agent.HostPort;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Where the nodes of a VM on hosts run, their checkpoint buddies, the placement after lost hosts, and the restart's states. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class HostPlacementTest {
    private static final HostPort A = new HostPort("127.0.0.2", 7000);
    private static final HostPort B = new HostPort("127.0.0.3", 7000);
    private static final HostPort C = new HostPort("127.0.0.4", 7000);

    @Test
    void eachNodesBuddyIsTheNextNodeOnAnotherHost() {
        HostPlacement p = HostPlacement.roundRobin(List.of(A, B, C), 5);   // A B C A B
        assertArrayEquals(new int[] {1, 2, 3, 4, 0}, p.buddies());
        HostPlacement two = HostPlacement.roundRobin(List.of(A, B), 4);   // A B A B
        assertArrayEquals(new int[] {1, 2, 3, 0}, two.buddies());
        assertNull(HostPlacement.roundRobin(List.of(A), 3).buddies(), "one host: no buddy on another");
        assertNull(HostPlacement.roundRobin(List.of(A, B), 1).buddies(), "one node: no buddy at all");
    }

    @Test
    void theNodesOfALostHostGoToTheHostsOfTheirBuddies() {
        HostPlacement p = HostPlacement.roundRobin(List.of(A, B, C), 5);   // A B C A B
        HostPlacement after = p.without(Set.of(B), p.buddies());
        assertEquals("node 0 on 127.0.0.2:7000, node 1 on 127.0.0.4:7000, node 2 on 127.0.0.4:7000, node 3 on 127.0.0.2:7000,"
                + " node 4 on 127.0.0.2:7000", after.describe());
        assertEquals(List.of(A, C), after.hosts());
        assertArrayEquals(new int[] {1, 3, 3, 1, 1}, after.buddies());
        assertEquals(Set.of(B), p.hostsAmong(Set.of("127.0.0.3:7000", "10.0.0.9:1")));
        HostPort spare = new HostPort("127.0.0.5", 7000);
        assertEquals(List.of(A, spare, C), p.replacing(java.util.Map.of(B, spare)).hosts(), "a spare takes the lost host's place");
    }

    @Test
    void aNodeLostWithItsBuddyCannotRestartAndIsNamed() {
        HostPlacement p = HostPlacement.roundRobin(List.of(A, B, C), 3);
        DsaException e = assertThrows(DsaException.class, () -> p.without(Set.of(A, B), p.buddies()));
        assertEquals("node 0 on host 127.0.0.2:7000 and its buddy node 1 on host 127.0.0.3:7000 were both lost: no copy of node 0's"
                + " checkpoint survives", e.getMessage());
    }

    /**
     * Clone promotion (docs/failures.md, "Clone promotion"): a node of a lost host with a current
     * clone on a host that survived and can be reached goes to the clone's host, even when its
     * buddy was lost too; a clone on a lost or unreachable host, a clone of a node that was not
     * lost, and a clone of node 0 are not promoted.
     */
    @Test
    void aLostNodesCloneOnASurvivingHostTakesItsPlaceEvenWhenItsBuddyIsLostToo() {
        HostPort d = new HostPort("127.0.0.5", 7000);
        HostPort e = new HostPort("127.0.0.6", 7000);
        HostPlacement p = HostPlacement.roundRobin(List.of(A, B, C), 3);   // A B C; buddies 1 2 0
        List<HostPlacement.CurrentClone> clones = List.of(
                new HostPlacement.CurrentClone(1, 3, d),    // current, on a surviving host: promoted
                new HostPlacement.CurrentClone(1, 4, C),    // a second clone of node 1: the first wins
                new HostPlacement.CurrentClone(2, 5, B),    // its host is lost with it
                new HostPlacement.CurrentClone(0, 6, d));   // node 0 restarts from its files
        java.util.Map<Integer, HostPlacement.CurrentClone> promoted = p.promotions(Set.of(B, C), clones, h -> true);
        assertEquals(java.util.Map.of(1, clones.get(0)), promoted);
        // node 1's buddy (node 2, on C) is lost too: without the clone no copy of node 1 survives
        assertEquals("node 1 on host 127.0.0.3:7000 and its buddy node 2 on host 127.0.0.4:7000 were both lost: no copy of node 1's"
                + " checkpoint survives", assertThrows(DsaException.class, () -> p.without(Set.of(B, C), p.buddies())).getMessage());
        assertEquals("node 0 on 127.0.0.2:7000, node 1 on 127.0.0.5:7000, node 2 on 127.0.0.2:7000",
                p.without(Set.of(B, C), p.buddies(), promoted).describe());
        assertEquals(java.util.Map.of(), p.promotions(Set.of(B), List.of(clones.get(0)), h -> !h.equals(d)), "an unreachable host");
        assertEquals(java.util.Map.of(), p.promotions(Set.of(C), List.of(clones.get(0)), h -> true), "node 1 was not lost");
        assertEquals(java.util.Map.of(1, clones.get(1)), p.promotions(Set.of(B), List.of(clones.get(1), new HostPlacement.CurrentClone(1, 7, e)),
                h -> true), "the first usable clone of the node");
    }

    /** Before: a host gave each node of its VM no count of the VM's threads there (only local runs did). */
    @Test
    void theMachineThreadsOfANodeAreThoseOfItsVmOnItsHost() {
        HostPlacement p = HostPlacement.roundRobin(List.of(A, B), 3);   // A B A
        assertEquals(6, p.machineThreads(0, 2));   // two nodes on A, 2 workers + 1 I/O thread each
        assertEquals(3, p.machineThreads(1, 2));
        assertEquals(6, p.machineThreads(2, 2));
    }

    /** Before: with --bind-cores on hosts, node k bound to share k of all the VM's nodes, so a host's nodes left most of its cores idle. */
    @Test
    void aNodesCoreShareCountsTheNodesOfItsHostOnly() {
        HostPlacement p = HostPlacement.roundRobin(List.of(A, B), 5);   // A B A B A
        assertArrayEquals(new int[] {0, 3}, p.coreShare(0));
        assertArrayEquals(new int[] {0, 2}, p.coreShare(1));
        assertArrayEquals(new int[] {1, 3}, p.coreShare(2));
        assertArrayEquals(new int[] {1, 2}, p.coreShare(3));
        assertArrayEquals(new int[] {2, 3}, p.coreShare(4));
        assertArrayEquals(new int[] {0, 1}, p.with(4, C).coreShare(4), "alone on its host: the whole host");
        assertArrayEquals(new int[] {1, 2}, p.with(4, C).coreShare(2), "one node fewer on A");
    }

    @Test
    void theRestartPrintsEachStepAndCountsItsRestarts() {
        StringWriter text = new StringWriter();
        RestartReport r = new RestartReport(new PrintWriter(text), 1);
        assertEquals(true, r.mayRestart());
        r.lost("lost node 1 at 127.0.0.3:5000\nmore", System.nanoTime());
        r.stopped("[127.0.0.3:7000]");
        r.restarting("D/epoch-100", 100, "node 0 on A, node 1 on A");
        r.recovered(100);
        List<String> lines = text.toString().lines().toList();
        assertEquals("node lost: lost node 1 at 127.0.0.3:5000", lines.get(0));
        assertEquals(true, lines.get(1).startsWith("every node stopped ") && lines.get(1).endsWith(" ms after the verdict (lost: [127.0.0.3:7000])"),
                lines.get(1));
        assertEquals("restarting the VM from D/epoch-100 (epoch 100), restart 1 of at most 1: node 0 on A, node 1 on A", lines.get(2));
        assertEquals(true, lines.get(3).startsWith("recovered: the VM formed again and resumes at epoch 100, "));
        assertEquals(false, r.mayRestart());
        assertEquals(1, r.restarts());
        r.stopped("");
        assertEquals(true, text.toString().lines().toList().get(4).endsWith(" ms after the verdict"), "no lost hosts: nothing in brackets");
    }
}
