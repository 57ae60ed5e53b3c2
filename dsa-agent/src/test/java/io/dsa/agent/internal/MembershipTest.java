package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.agent.wire.ViewMessage;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The view at node 3 of 4 (2 threads each): taking it, dialling the lower nodes, refusing one that does not fit. */
@Timeout(10)
class MembershipTest {
    static final List<String> ADDRESSES = List.of("h0:5000", "h1:5001", "h2:5002", "h3:5003");
    final RecordingNetwork network = new RecordingNetwork(3, 4);
    final List<String> wakeUps = new java.util.ArrayList<>();
    final JobLifecycle job = new JobLifecycle(3, network, wakeUps::add);
    final Membership membership = new Membership(3, 4, 2, 5_000, network, job);
    final FakeDialer dialer = new FakeDialer();

    @Test
    void aFittingViewIsTakenAndTheNodeDialsEveryLowerNodeButTheMonitor() {
        ViewMessage view = new ViewMessage(2, ADDRESSES);
        membership.onView(view, dialer);
        assertSame(view, membership.await());
        assertEquals(List.of("h1:5001", "h2:5002"), dialer.dialled());
        assertEquals(ADDRESSES, membership.addresses());
        assertTrue(membership.startupNanos() >= 0);
        FakeConnection one = new FakeConnection(1);
        dialer.answer("h1:5001", one);
        assertSame(one, network.connection(1));
        FakeConnection wrong = new FakeConnection(0);
        dialer.answer("h2:5002", wrong);
        assertFalse(wrong.isOpen(), "a connection to the wrong node is closed");
        assertEquals(List.of("to 0: Status(3, 2, node 3 reached node 0 at h2:5002, expected node 2)"), network.take());
    }

    @Test
    void aFailedDialIsReportedToTheMonitor() {
        membership.onView(new ViewMessage(2, ADDRESSES), dialer);
        dialer.fail("h2:5002", new DsaException("cannot connect to h2:5002: connection refused"));
        assertEquals(List.of("to 0: Status(3, 2, node 3 cannot connect to node 2 at h2:5002: cannot connect to h2:5002: "
                + "connection refused)"), network.take());
    }

    /** Found reading the view's decoding for the monitor-messages fuzz target: HostPort.parse threw out of the handler. */
    @Test
    void aViewWithAnAddressThatIsNotHostPortFailsTheJobNamingItBeforeDiallingAnyone() {
        membership.onView(new ViewMessage(2, List.of("h0:5000", "h1:5001", "[]:5002", "h3:5003")), dialer);
        String text = "view refused by node 3: node 2's address '[]:5002' has an empty host, expected host:port";
        assertEquals(text, assertThrows(DsaException.class, membership::await).getMessage());
        assertEquals(text, job.failure());
        assertEquals(List.of(), dialer.dialled());
        assertEquals("view of no nodes x 2 threads does not match node 3's configuration of 4 x 2",
                Membership.invalidView(new ViewMessage(2, null), 3, 4, 2));
        assertEquals("view refused by node 3: node 3's address 'h3' is not host:port",
                Membership.invalidView(new ViewMessage(2, List.of("h0:1", "h1:2", "h2:3", "h3")), 3, 4, 2));
    }

    @Test
    void aViewThatDoesNotFitTheConfigurationFailsTheJobAndTheWait() {
        membership.onView(new ViewMessage(3, ADDRESSES), dialer);
        String text = "view of 4 nodes x 3 threads does not match node 3's configuration of 4 x 2";
        assertEquals(text, assertThrows(DsaException.class, membership::await).getMessage());
        assertEquals(text, job.failure());
        assertEquals(List.of(text), wakeUps);
        assertEquals(List.of(), dialer.dialled());
    }

    @Test
    void withoutAViewTheWaitEndsAtTheStartupTimeout() {
        Membership slow = new Membership(3, 4, 2, 50, network, job);
        assertEquals("the virtual machine did not form within 50 ms (node 3 waited for the view of 4 nodes)",
                assertThrows(DsaException.class, slow::await).getMessage());
    }

    @Test
    void aRestoredViewNeedsNoDialAndMovesChangeOneAddress() {
        membership.install(ADDRESSES);
        assertEquals("ViewMessage[threadsPerNode=2, addresses=" + ADDRESSES + "]", membership.await().toString());
        membership.moved(2, "h9:6000");
        assertEquals("h9:6000", membership.address(2));
        assertEquals(List.of("h0:5000", "h1:5001", "h9:6000", "h3:5003"), membership.addresses());
        assertEquals(List.of(), dialer.dialled());
    }
}
