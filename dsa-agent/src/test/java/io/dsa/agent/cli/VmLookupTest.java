package io.dsa.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.HostPort;
import io.dsa.agent.host.StatusRow;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What {@code migrate}, {@code clone}, {@code read} and {@code status --wait-for-vm} make of the
 * hosts' status rows, without hosts: each host's answers are scripted. The same messages are
 * checked end to end against host processes in {@link HostsSystemTest}.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class VmLookupTest {
    private static final HostPort A = new HostPort("127.0.0.2", 7000);
    private static final HostPort B = new HostPort("127.0.0.3", 7000);
    private static final List<HostPort> HOSTS = List.of(A, B);

    /** A status row as a host sends it. */
    private static StatusRow row(String vm, int node, HostPort host, String state, int nodes) {
        boolean ended = VmLookup.ENDED.contains(state);
        return new StatusRow(vm, node, host.toString(), ended ? StatusRow.NO_AGENT : host.host() + ":40000", state, "my.Program",
                ended ? StatusRow.UNKNOWN : 2, ended ? StatusRow.UNKNOWN : 0, nodes);
    }

    /** Hosts that answer with fixed rows. */
    private static VmLookup.StatusSource fixed(Map<HostPort, List<StatusRow>> rows) {
        return (host, vm) -> rows.getOrDefault(host, List.of()).stream().filter(r -> r.vm().equals(vm)).toList();
    }

    @Test
    void anUnknownVmIsCalledUnknown() {
        VmLookup lookup = VmLookup.query(fixed(Map.of(A, List.of(row("other", 0, A, "RUNNING", 1)))), HOSTS, "demo");
        assertNull(lookup.serving(1));
        assertEquals("vm 'demo' is unknown to [127.0.0.2:7000, 127.0.0.3:7000]"
                + " (is it running? hosts remember a finished vm for 10 minutes)", lookup.whyNot(1));
    }

    @Test
    void aFinishedVmSaysHowAndWhereEachNodeEnded() {
        VmLookup lookup = VmLookup.query(fixed(Map.of(A, List.of(row("demo", 0, A, "DONE", 2)),
                B, List.of(row("demo", 1, B, "FAILED", 2)))), HOSTS, "demo");
        assertTrue(lookup.finished());
        assertNull(lookup.serving(1));
        assertEquals("vm 'demo' has finished: node 0 DONE on 127.0.0.2:7000, node 1 FAILED on 127.0.0.3:7000", lookup.whyNot(1));
    }

    @Test
    void aNodeTheRunningVmDoesNotHaveIsNamedWithTheNodesItHas() {
        VmLookup lookup = VmLookup.query(fixed(Map.of(A, List.of(row("demo", 0, A, "RUNNING", 2)),
                B, List.of(row("demo", 1, B, "RUNNING", 2)))), HOSTS, "demo");
        assertEquals(B, lookup.serving(1));
        assertNull(lookup.serving(7));
        assertEquals("vm 'demo' has no node 7 on [127.0.0.2:7000, 127.0.0.3:7000]; its nodes: [0, 1]", lookup.whyNot(7));
    }

    @Test
    void aNodeThatIsStillStartingIsNamedWithItsState() {
        VmLookup lookup = VmLookup.query(fixed(Map.of(A, List.of(row("demo", 0, A, "RUNNING", 2)),
                B, List.of(row("demo", 1, B, "STARTING", 2)))), HOSTS, "demo");
        assertNull(lookup.serving(1));
        assertEquals("node 1 of vm 'demo' is STARTING on 127.0.0.3:7000", lookup.whyNot(1));
    }

    /**
     * The launcher submits node 0, then the others once node 0 listens: the hosts showed node 0
     * running, alone, for several polls, and {@code status --wait-for-vm} printed that one row.
     */
    @Test
    void waitForVmReturnedWhenOnlyNodeZeroRan() throws InterruptedException {
        List<StatusRow> nodeZero = List.of(row("demo", 0, A, "RUNNING", 3));
        List<StatusRow> all = List.of(row("demo", 0, A, "RUNNING", 3), row("demo", 2, A, "RUNNING", 3));
        Deque<Map<HostPort, List<StatusRow>>> script = new ConcurrentLinkedDeque<>(List.of(
                Map.of(), Map.of(A, nodeZero), Map.of(A, nodeZero), Map.of(A, nodeZero), Map.of(A, nodeZero),
                Map.of(A, nodeZero, B, List.of(row("demo", 1, B, "STARTING", 3))),
                Map.of(A, all, B, List.of(row("demo", 1, B, "RUNNING", 3)))));
        AtomicInteger polls = new AtomicInteger();
        // each poll asks A then B; the script moves on after B answered
        VmLookup.StatusSource source = (host, vm) -> {
            Map<HostPort, List<StatusRow>> now = script.size() > 1 && host.equals(B) ? script.poll() : script.peek();
            if (host.equals(B)) polls.incrementAndGet();
            return now.getOrDefault(host, List.of());
        };
        VmLookup lookup = VmLookup.awaitVm(source, HOSTS, "demo", line -> { });
        assertEquals(3, lookup.rows().size(), lookup.rows().toString());
        assertTrue(lookup.rows().stream().allMatch(r -> r.state().equals("RUNNING")), lookup.rows().toString());
        assertTrue(polls.get() >= 7, "polled " + polls.get() + " times");
    }

    /** A command typed right after {@code dsa host ... &}: it waited two minutes without a word while the host was not up. */
    @Test
    void aHostThatDoesNotListenYetIsWaitedForSayingSoOnce() throws InterruptedException {
        AtomicInteger refusals = new AtomicInteger(3);
        VmLookup.StatusSource source = (host, vm) -> {
            if (host.equals(B) && refusals.getAndDecrement() > 0) {
                throw new io.dsa.DsaException("host " + B + ": cannot connect", new java.net.ConnectException("Connection refused"));
            }
            return host.equals(A) ? List.of(row("demo", 0, A, "RUNNING", 2)) : List.of(row("demo", 1, B, "RUNNING", 2));
        };
        List<String> told = new java.util.concurrent.CopyOnWriteArrayList<>();
        VmLookup lookup = VmLookup.awaitNode(source, HOSTS, "demo", 1, told::add);
        assertEquals(B, lookup.serving(1));
        assertEquals(List.of("waiting up to 120 s for the hosts to listen (host 127.0.0.3:7000: cannot connect)"), told);
    }

    /** A row without the VM's node count (0: not said): then two equal answers in a row are enough. */
    @Test
    void withoutANodeCountTwoEqualAnswersAreEnough() throws InterruptedException {
        StatusRow old = new StatusRow("demo", 0, A.toString(), "127.0.0.2:40000", "RUNNING", "my.Program", 2, 0);
        VmLookup lookup = VmLookup.awaitVm(fixed(Map.of(A, List.of(old))), HOSTS, "demo", line -> { });
        assertEquals(1, lookup.rows().size());
        assertEquals(A, lookup.serving(0));
    }
}
