package io.dsa.agent.host;

import io.dsa.agent.AgentMonitor;
import io.dsa.agent.TransferReport;
import io.dsa.agent.transport.Connection;
import io.dsa.agent.wire.HostReplyMessage;
import io.dsa.agent.wire.TransferMessage;
import io.dsa.agent.wire.TransferReportMessage;

/**
 * Another host's {@link AgentMonitor}, reached over an authenticated connection: each handler is
 * one {@link TransferMessage} and waits for its answer ({@link TransferReportMessage} or {@link HostReplyMessage}). A refusal, a lost
 * connection or no answer in time surfaces as a {@link io.dsa.DsaException} naming the host and
 * the step.
 */
final class RemoteAgentMonitor implements AgentMonitor {
    private final String address;
    private final String self;
    private final Connection connection;
    private final Replies replies;
    private final long timeoutMs;

    /**
     * @param address the remote monitor's {@code host:port}
     * @param self the caller's address, sent as {@code fromMonitor} of the steps
     */
    RemoteAgentMonitor(String address, String self, Connection connection, Replies replies, long timeoutMs) {
        this.address = address;
        this.self = self;
        this.connection = connection;
        this.replies = replies;
        this.timeoutMs = timeoutMs;
    }

    @Override
    public String address() { return address; }

    @Override
    public TransferReport requestTransfer(String agentId, String fromMonitor) {
        return requestTransfer(agentId, fromMonitor, java.util.List.of());
    }

    /** {@link #requestTransfer} telling the new host where the VM's nodes may run ({@code host:port} each). */
    TransferReport requestTransfer(String agentId, String fromMonitor, java.util.List<String> vmHosts) {
        return report(call(new TransferMessage(0, TransferMessage.REQUEST_TRANSFER, agentId, fromMonitor, vmHosts, false, -1),
                TransferReportMessage.class));
    }

    @Override
    public TransferReport requestClone(String agentId, String fromMonitor) {
        return requestClone(agentId, fromMonitor, java.util.List.of());
    }

    /** {@link #requestClone} telling the new host where the VM's nodes may run ({@code host:port} each). */
    TransferReport requestClone(String agentId, String fromMonitor, java.util.List<String> vmHosts) {
        return report(call(new TransferMessage(0, TransferMessage.REQUEST_CLONE, agentId, fromMonitor, vmHosts, false, -1),
                TransferReportMessage.class));
    }

    /** {@link #beginTransfer} of a cloning: the agent stays where it is and runs on. */
    byte[] beginCloning(String agentId) {
        return call(new TransferMessage(0, TransferMessage.BEGIN_TRANSFER, agentId, self, java.util.List.of(), true, -1),
                HostReplyMessage.class).payload();
    }

    /** {@link #transferAgent} of a cloning: the clone's state, with node id {@code cloneId}. */
    byte[] transferClone(String agentId, int cloneId) {
        return call(new TransferMessage(0, TransferMessage.TRANSFER_AGENT, agentId, self, java.util.List.of(), false, cloneId),
                HostReplyMessage.class).payload();
    }

    @Override
    public byte[] beginTransfer(String agentId) { return call(TransferMessage.BEGIN_TRANSFER, agentId).payload(); }

    @Override
    public byte[] transferAgent(String agentId) { return call(TransferMessage.TRANSFER_AGENT, agentId).payload(); }

    @Override
    public void endTransfer(String agentId) { call(TransferMessage.END_TRANSFER, agentId); }

    @Override
    public void endCloning(String agentId) { call(TransferMessage.END_CLONING, agentId); }

    @Override
    public void abortTransfer(String agentId) { call(TransferMessage.ABORT_TRANSFER, agentId); }

    private HostReplyMessage call(int op, String agentId) {
        return call(new TransferMessage(0, op, agentId, self), HostReplyMessage.class);
    }

    /** Sends {@code step} under a fresh request id and waits for its answer, a {@code type}. */
    private <T> T call(TransferMessage step, Class<T> type) {
        long id = replies.open(connection);
        if (!connection.isOpen()) replies.failVia(connection, "connection to host " + address + " closed");
        connection.send(new TransferMessage(id, step.op(), step.agentId(), step.fromMonitor(), step.vmHosts(), step.cloning(),
                step.cloneId()));
        return replies.await(id, step(step.op()) + " of " + step.agentId() + " on host " + address, timeoutMs, type);
    }

    /** @return {@code r} as it travels, answering request {@code requestId} */
    static TransferReportMessage toWire(long requestId, TransferReport r) {
        return new TransferReportMessage(requestId, r.agentId(), r.fromMonitor(), r.toMonitor(), r.pauseNanos(), r.bytes());
    }

    /**
     * The report another host sent.
     *
     * @throws io.dsa.DsaException when a field is absent or pauseNanos or bytes is negative
     */
    static TransferReport report(TransferReportMessage m) {
        String expected = "expected agentId, from, to, pauseNanos >= 0, bytes >= 0";
        if (m == null || m.agentId() == null || m.fromMonitor() == null || m.toMonitor() == null) {
            throw new io.dsa.DsaException("transfer report lacks a field: " + expected);
        }
        if (m.pauseNanos() < 0 || m.bytes() < 0) {
            throw new io.dsa.DsaException("transfer report of " + StatusRow.shown(m.agentId()) + " has pauseNanos " + m.pauseNanos()
                    + " and bytes " + m.bytes() + ": " + expected);
        }
        return new TransferReport(m.agentId(), m.fromMonitor(), m.toMonitor(), m.pauseNanos(), m.bytes());
    }

    static String step(int op) {
        return switch (op) {
            case TransferMessage.REQUEST_TRANSFER -> "requestTransfer";
            case TransferMessage.REQUEST_CLONE -> "requestClone";
            case TransferMessage.BEGIN_TRANSFER -> "beginTransfer";
            case TransferMessage.TRANSFER_AGENT -> "transferAgent";
            case TransferMessage.END_TRANSFER -> "endTransfer";
            case TransferMessage.END_CLONING -> "endCloning";
            case TransferMessage.ABORT_TRANSFER -> "abortTransfer";
            default -> "transfer step " + op;
        };
    }
}
