package io.dsa.agent.host;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.agent.TransferReport;
import io.dsa.agent.transport.TransportSecurity;
import io.dsa.agent.wire.AgentLaunchMessage;
import io.dsa.agent.wire.AgentStartedMessage;
import io.dsa.agent.wire.HostJobMessage;
import io.dsa.agent.wire.RegisterCloneMessage;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a host, its job JVMs and the commands check in what another process sent them before they
 * act on it (the host-replies, host-messages and supervision fuzz targets drive the same checks):
 * each malformed field is refused with a {@link DsaException} naming it, never another exception.
 */
@Timeout(10)
class HostInputChecksTest {
    private static final StatusRow ROW = new StatusRow("jacobi", 2, "127.0.0.1:7000", "127.0.0.1:45677", "RUNNING",
            "io.dsa.examples.Jacobi", 12, 3, 4);

    private static String refusal(Runnable parse) {
        return assertThrows(DsaException.class, parse::run).getMessage();
    }

    @Test
    void aStatusRowRoundTripsAndItsReadersSeeItsColumns() {
        assertEquals("jacobi\t2\t127.0.0.1:7000\t127.0.0.1:45677\tRUNNING\tio.dsa.examples.Jacobi\t12\t3\t4", ROW.format());
        assertEquals(ROW, StatusRow.parse(ROW.format()));
        assertEquals(4, ROW.nodes());
        // a host of an older build sends eight columns: the VM's node count is then not known (0)
        assertEquals(0, StatusRow.parse("jacobi\t2\t127.0.0.1:7000\t-\tRUNNING\tP\t12\t3").nodes());
        // a finished node's row: no agent, counts no longer known
        StatusRow ended = new StatusRow("jacobi", 2, "127.0.0.1:7000", StatusRow.NO_AGENT, "DONE", "P", StatusRow.UNKNOWN,
                StatusRow.UNKNOWN, 4);
        assertEquals("jacobi\t2\t127.0.0.1:7000\t-\tDONE\tP\t-\t-\t4", ended.format());
        assertEquals(ended, StatusRow.parse(ended.format()));
        assertEquals("Jacobi", ROW.programSimpleName());
        assertTrue(ROW.serving());
        assertEquals(List.of(ROW), StatusRow.parseAll(List.of(ROW.format())));
    }

    /** Before: split("\t")[1] and [4] threw ArrayIndexOutOfBoundsException in dsa status, dsa read and a moving host. */
    @Test
    void aMalformedStatusRowIsRefusedNamingTheRowAndTheColumn() {
        assertEquals("status row 'jacobi\t2' has 2 columns, expected 8: [VM, NODE, HOST, AGENT, STATE, PROGRAM, HOMED, CACHED],"
                        + " and optionally the VM's node count",
                refusal(() -> StatusRow.parse("jacobi\t2")));
        assertEquals("status row 'jacobi\tx\t127.0.0.1:7000\t-\tRUNNING\tP\t0\t0': NODE 'x' is not a number",
                refusal(() -> StatusRow.parse("jacobi\tx\t127.0.0.1:7000\t-\tRUNNING\tP\t0\t0")));
        assertEquals("status row 'jacobi\t1\t127.0.0.1:7000\t-\tHIJACKED\tP\t0\t0': STATE 'HIJACKED' is not one of "
                        + "[STARTING, RUNNING, SUSPENDED, MOVED, DONE, FAILED, STOPPED, CLONE]",
                refusal(() -> StatusRow.parse("jacobi\t1\t127.0.0.1:7000\t-\tHIJACKED\tP\t0\t0")));
        assertEquals("status row 'jacobi\\u000afake line\t1\t127.0.0.1:7000\t-\tRUNNING\tP\t0\t0': VM holds control character 10 at 6",
                refusal(() -> StatusRow.parse("jacobi\nfake line\t1\t127.0.0.1:7000\t-\tRUNNING\tP\t0\t0")));
        assertEquals("status row 'v\t1\th\t-\tRUNNING\tP\t0\t0': address 'h' is not host:port",
                refusal(() -> StatusRow.parse("v\t1\th\t-\tRUNNING\tP\t0\t0")));
        assertEquals("status row 'v\t1\th:1\t-\tRUNNING\tP\t0\t-1': CACHED -1 out of range [0, 2147483647]",
                refusal(() -> StatusRow.parse("v\t1\th:1\t-\tRUNNING\tP\t0\t-1")));
        assertEquals("status reply without rows", refusal(() -> StatusRow.parseAll(null)));
    }

    @Test
    void elementRowsRoundTripAndMalformedOnesAreRefused() {
        assertEquals(new ElementRow(7, "-1.5E-3"), ElementRow.parse("7\t-1.5E-3"));
        assertEquals("7\t-1.5E-3", new ElementRow(7, "-1.5E-3").format());
        assertEquals("read row '7' is not index<TAB>value", refusal(() -> ElementRow.parse("7")));
        assertEquals("read row 'x\t1': index is not a number", refusal(() -> ElementRow.parse("x\t1")));
        assertEquals("read row '7\t1\\u001b[2J': expected an index >= 0 and a value of 1 to 64 characters without control characters",
                refusal(() -> ElementRow.parse("7\t1\u001b[2J")));
        assertEquals("read reply without rows", refusal(() -> ElementRow.parseAll(null)));
    }

    /**
     * Before: each control character of a refused row went through String.format, 86 KB of garbage
     * for a 211-byte reply (found by the host-replies fuzz target; its input is a regression input).
     */
    @Test
    void aRowOfControlCharactersIsShownEscapedAndCutInTheRefusal() {
        assertEquals("read row '\\u0000\\u001f\\u007f\\u009f' is not index<TAB>value",
                refusal(() -> ElementRow.parse("\u0000\u001f\u007f\u009f")));
        assertEquals("read row '" + "\\u0001".repeat(17) + "...' is not index<TAB>value",
                refusal(() -> ElementRow.parse("\u0001".repeat(200))));
    }

    /** Before: a reply with fewer rows threw IndexOutOfBoundsException, a non-number NumberFormatException. */
    @Test
    void aTransferReplyThatIsNoReportIsRefusedSayingWhatItExpects() {
        TransferReport report = new TransferReport("jacobi/2", "127.0.0.1:7000", "127.0.0.1:7001", 1_000, 2_000);
        assertEquals(report, RemoteAgentMonitor.report(RemoteAgentMonitor.rows(report)));
        assertEquals("transfer reply has 2 rows (null rows count too), expected agentId, from, to, pauseNanos >= 0, bytes >= 0",
                refusal(() -> RemoteAgentMonitor.report(List.of("a", "b"))));
        assertEquals("transfer reply has no rows (null rows count too), expected agentId, from, to, pauseNanos >= 0, bytes >= 0",
                refusal(() -> RemoteAgentMonitor.report(null)));
        assertEquals("transfer reply rows 'soon', '5' are not numbers >= 0: expected agentId, from, to, pauseNanos >= 0, bytes >= 0",
                refusal(() -> RemoteAgentMonitor.report(List.of("a", "b", "c", "soon", "5"))));
    }

    /** Before: a null target threw NullPointerException out of String.split, reported as such to the requester. */
    @Test
    void hostRequestTargetsAreParsedOrRefusedNamingThem() {
        assertEquals(new HostRequests.Move(2, "127.0.0.1:45690"), HostRequests.move("2@127.0.0.1:45690", true));
        assertEquals(new HostRequests.Move(2, null), HostRequests.move("2", false));
        assertEquals("moving node 'null' is not a number", refusal(() -> HostRequests.move(null, true)));
        assertEquals("commit target '2' is not node@host:port", refusal(() -> HostRequests.move("2", true)));
        assertEquals("commit target '2@nowhere': address 'nowhere' is not host:port", refusal(() -> HostRequests.move("2@nowhere", true)));
        RegisterCloneMessage registration = HostRequests.cloneRegistration("5|3:0,1", 9);
        assertEquals(5, registration.cloneId());
        assertArrayEquals(new long[] {RegisterCloneMessage.pack(3, 0), RegisterCloneMessage.pack(3, 1)}, registration.partitions());
        assertEquals("clone id 'null' is not a number", refusal(() -> HostRequests.cloneRegistration(null, 9)));
        assertEquals(16, HostRequests.read("A\t0\t16", 9).count());
        assertEquals("read request 'null' is not name<TAB>from<TAB>count", refusal(() -> HostRequests.read(null, 9)));
        assertEquals("count 'many' is not a number", refusal(() -> HostRequests.read("A\t0\tmany", 9)));
    }

    @Test
    void aJobIsCheckedBeforeTheHostWritesItsJarOrListsIt() {
        HostJobMessage good = new HostJobMessage(1, "jacobi", 1, 2, 2, "127.0.0.1:1", "P", List.of(), List.of(), new byte[0], 0, 0);
        assertNull(HostedJob.invalid(good));
        assertEquals("vm name '../../x' invalid: use 1 to 64 letters, digits, '.', '_' or '-'",
                HostedJob.invalid(new HostJobMessage(1, "../../x", 1, 2, 2, "127.0.0.1:1", "P", List.of(), List.of(), new byte[0], 0, 0)));
        assertEquals("node id 2 out of range [0, 2)",
                HostedJob.invalid(new HostJobMessage(1, "v", 2, 2, 2, "127.0.0.1:1", "P", List.of(), List.of(), new byte[0], 0, 0)));
        assertEquals("the job of node 1 of vm 'v' lacks its program class, arguments, options or jar",
                HostedJob.invalid(new HostJobMessage(1, "v", 1, 2, 2, "127.0.0.1:1", "P", Arrays.asList("a", null), List.of(),
                        new byte[0], 0, 0)));
    }

    /** A job's JVM runs the job's code: what it says goes into status rows only if it is an address. */
    @Test
    void anAgentAddressFromAJobJvmMustBeHostPort() {
        assertNull(AgentProcess.invalidStart(new AgentStartedMessage(1, "127.0.0.1:45677", true)));
        assertNull(AgentProcess.invalidStart(new AgentStartedMessage(1, null, false)), "a target has no address before its state");
        assertEquals("started an agent at a malformed address: agent address holds control character 9 at 3",
                AgentProcess.invalidStart(new AgentStartedMessage(1, "127\t0.0.1:1", true)));
    }

    /** Before: a bad option value threw IllegalArgumentException or NumberFormatException, null partitions a NullPointerException. */
    @Test
    void aLaunchOrCloneRegistrationIsRefusedNamingTheBadField() {
        byte[] secret = "0123456789abcdef0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        AgentLaunchMessage launch = new AgentLaunchMessage(1, AgentLaunchMessage.RUN, "v", 0, 1, 1, null, "127.0.0.1", "P",
                List.of(), List.of("fanout=many"), "/tmp/p.jar");
        assertEquals("job option 'fanout=many' has a value that does not parse: For input string: \"many\"",
                refusal(() -> ChildAgent.config(launch, secret, TransportSecurity.MAC)));
        AgentLaunchMessage mode = new AgentLaunchMessage(1, 7, "v", 0, 1, 1, null, "127.0.0.1", "P", List.of(), List.of(), "/tmp/p.jar");
        assertEquals("launch mode 7 out of range [1, 3]", refusal(() -> ChildAgent.config(mode, secret, TransportSecurity.MAC)));
        assertEquals("clone 4's registration carries no partition list",
                refusal(() -> ChildAgent.cloneSharers(new RegisterCloneMessage(1, 4, null))));
    }
}
