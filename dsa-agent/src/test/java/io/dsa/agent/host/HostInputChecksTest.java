package io.dsa.agent.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.agent.TransferReport;
import io.dsa.agent.transport.TransportSecurity;
import io.dsa.ElementType;
import io.dsa.agent.wire.AgentLaunchMessage;
import io.dsa.agent.wire.AgentRow;
import io.dsa.agent.wire.ElementsMessage;
import io.dsa.agent.wire.AgentStartedMessage;
import io.dsa.agent.wire.CommitMoveMessage;
import io.dsa.agent.wire.TransferReportMessage;
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
        assertEquals(new AgentRow("jacobi", 2, "127.0.0.1:7000", "127.0.0.1:45677", "RUNNING", "io.dsa.examples.Jacobi", 12, 3, 4),
                ROW.toWire());
        assertEquals(ROW, StatusRow.of(ROW.toWire()));
        assertEquals(4, ROW.nodes());
        // a finished node's row: no agent, counts no longer known
        StatusRow ended = new StatusRow("jacobi", 2, "127.0.0.1:7000", StatusRow.NO_AGENT, "DONE", "P", StatusRow.UNKNOWN,
                StatusRow.UNKNOWN, 4);
        assertEquals(ended, StatusRow.of(ended.toWire()));
        assertEquals("-", StatusRow.count(ended.homed()));
        assertEquals("Jacobi", ROW.programSimpleName());
        assertTrue(ROW.serving());
        assertEquals(List.of(ROW), StatusRow.checkAll(List.of(ROW.toWire())));
    }

    private static AgentRow row(String vm, int node, String host, String agent, String state, int homed, int cached) {
        return new AgentRow(vm, node, host, agent, state, "P", homed, cached, 2);
    }

    /** Before: split("\t")[1] and [4] threw ArrayIndexOutOfBoundsException in dsa status, dsa read and a moving host. */
    @Test
    void aMalformedStatusRowIsRefusedNamingTheRowAndTheColumn() {
        assertEquals("status row of vm 'jacobi' node -1: NODE -1 out of range [0, 2147483647]",
                refusal(() -> StatusRow.of(row("jacobi", -1, "127.0.0.1:7000", "-", "RUNNING", 0, 0))));
        assertEquals("status row of vm 'jacobi' node 1: STATE 'HIJACKED' is not one of "
                        + "[STARTING, RUNNING, SUSPENDED, MOVED, DONE, FAILED, STOPPED, CLONE]",
                refusal(() -> StatusRow.of(row("jacobi", 1, "127.0.0.1:7000", "-", "HIJACKED", 0, 0))));
        assertEquals("status row of vm 'jacobi\\u000afake line' node 1: VM holds control character 10 at 6",
                refusal(() -> StatusRow.of(row("jacobi\nfake line", 1, "127.0.0.1:7000", "-", "RUNNING", 0, 0))));
        assertEquals("status row of vm 'v' node 1: address 'h' is not host:port",
                refusal(() -> StatusRow.of(row("v", 1, "h", "-", "RUNNING", 0, 0))));
        assertEquals("status row of vm 'v' node 1: CACHED -2 out of range [0, 2147483647]",
                refusal(() -> StatusRow.of(row("v", 1, "h:1", "-", "RUNNING", 0, -2))));
        assertEquals("status row of vm 'v' node 1: STATE 'null' is not one of "
                        + "[STARTING, RUNNING, SUSPENDED, MOVED, DONE, FAILED, STOPPED, CLONE]",
                refusal(() -> StatusRow.of(row("v", 1, "h:1", "-", null, 0, 0))));
        assertEquals("status reply without rows", refusal(() -> StatusRow.checkAll(null)));
        assertEquals("status row is missing", refusal(() -> StatusRow.of(null)));
    }

    @Test
    void elementsBecomeRowsOfTheirTypesText() {
        ElementsMessage doubles = new ElementsMessage(1, 7, ElementType.DOUBLE.ordinal(),
                new long[] {Double.doubleToRawLongBits(-1.5e-3), Double.doubleToRawLongBits(Double.NaN)});
        assertEquals(List.of(new ElementRow(7, "-0.0015"), new ElementRow(8, "NaN")), ElementRow.of(doubles));
        assertEquals(List.of(new ElementRow(0, "2.5")), ElementRow.of(new ElementsMessage(1, 0, ElementType.FLOAT.ordinal(),
                new long[] {Float.floatToRawIntBits(2.5f)})));
        assertEquals(List.of(new ElementRow(3, "9223372036854775807")), ElementRow.of(new ElementsMessage(1, 3,
                ElementType.LONG.ordinal(), new long[] {Long.MAX_VALUE})));
        assertEquals(List.of(new ElementRow(3, "-1")), ElementRow.of(new ElementsMessage(1, 3, ElementType.INT.ordinal(),
                new long[] {-1})));
        assertEquals("read answer is missing", refusal(() -> ElementRow.of(null)));
    }

    /**
     * Before: each control character of a refused row went through String.format, 86 KB of garbage
     * for a 211-byte reply (found by the host-replies fuzz target; its input is a regression input).
     */
    @Test
    void aTextOfControlCharactersIsShownEscapedAndCut() {
        assertEquals("\\u0000\\u001f\\u007f\\u009f", StatusRow.shown("\u0000\u001f\u007f\u009f"));
        assertEquals("\\u0001".repeat(17) + "...", StatusRow.shown("\u0001".repeat(200)));
    }

    /** Before: the report travelled as five text rows, parsed by the caller; a reply with fewer threw IndexOutOfBoundsException. */
    @Test
    void aTransferReportWithAnAbsentFieldOrANegativeCountIsRefusedSayingWhatItExpects() {
        TransferReport report = new TransferReport("jacobi/2", "127.0.0.1:7000", "127.0.0.1:7001", 1_000, 2_000);
        assertEquals(report, RemoteAgentMonitor.report(RemoteAgentMonitor.toWire(3, report)));
        assertEquals("transfer report lacks a field: expected agentId, from, to, pauseNanos >= 0, bytes >= 0",
                refusal(() -> RemoteAgentMonitor.report(new TransferReportMessage(3, "a", null, "c", 0, 0))));
        assertEquals("transfer report lacks a field: expected agentId, from, to, pauseNanos >= 0, bytes >= 0",
                refusal(() -> RemoteAgentMonitor.report(null)));
        assertEquals("transfer report of a has pauseNanos -1 and bytes 5: expected agentId, from, to, pauseNanos >= 0, bytes >= 0",
                refusal(() -> RemoteAgentMonitor.report(new TransferReportMessage(3, "a", "b", "c", -1, 5))));
    }

    /** Before: the commit travelled as text {@code node@host:port}, split and parsed by the host. */
    @Test
    void aMovesCommitAddressIsCheckedNamingIt() {
        assertEquals("127.0.0.1:45690", HostRequests.commitAddress(new CommitMoveMessage(1, 2, "127.0.0.1:45690")));
        assertEquals("commit of the move of node 2 names no address",
                refusal(() -> HostRequests.commitAddress(new CommitMoveMessage(1, 2, null))));
        assertEquals("commit of the move of node 2 to 'nowhere': address 'nowhere' is not host:port",
                refusal(() -> HostRequests.commitAddress(new CommitMoveMessage(1, 2, "nowhere"))));
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
