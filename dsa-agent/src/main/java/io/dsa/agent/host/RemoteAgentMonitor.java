package io.dsa.agent.host;

import io.dsa.agent.AgentMonitor;
import io.dsa.agent.TransferReport;
import io.dsa.agent.transport.Connection;
import io.dsa.agent.wire.HostReplyMessage;
import io.dsa.agent.wire.TransferMessage;

/**
 * Another host's {@link AgentMonitor}, reached over an authenticated connection: each handler is
 * one {@link TransferMessage} and waits for its {@link HostReplyMessage}. A refusal, a lost
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
        return report(call(TransferMessage.REQUEST_TRANSFER, agentId, fromMonitor));
    }

    /** {@link #requestTransfer} telling the new host where the VM's nodes may run ({@code host:port} each). */
    TransferReport requestTransfer(String agentId, String fromMonitor, java.util.List<String> vmHosts) {
        return report(call(TransferMessage.REQUEST_TRANSFER, agentId, fromMonitor,
                String.join(",", vmHosts).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    @Override
    public TransferReport requestClone(String agentId, String fromMonitor) {
        return report(call(TransferMessage.REQUEST_CLONE, agentId, fromMonitor));
    }

    /** {@link #requestClone} telling the new host where the VM's nodes may run ({@code host:port} each). */
    TransferReport requestClone(String agentId, String fromMonitor, java.util.List<String> vmHosts) {
        return report(call(TransferMessage.REQUEST_CLONE, agentId, fromMonitor,
                String.join(",", vmHosts).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    /** {@link #beginTransfer} of a cloning: the agent stays where it is and runs on. */
    byte[] beginCloning(String agentId) {
        return call(TransferMessage.BEGIN_TRANSFER, agentId, self, CLONING.clone()).payload();
    }

    /** {@link #transferAgent} of a cloning: the clone's state, with node id {@code cloneId}. */
    byte[] transferClone(String agentId, int cloneId) {
        return call(TransferMessage.TRANSFER_AGENT, agentId, self,
                Integer.toString(cloneId).getBytes(java.nio.charset.StandardCharsets.UTF_8)).payload();
    }

    private static final byte[] CLONING = "clone".getBytes(java.nio.charset.StandardCharsets.UTF_8);

    /** @return whether a {@link TransferMessage#BEGIN_TRANSFER} payload begins a cloning */
    static boolean isCloning(byte[] payload) { return java.util.Arrays.equals(payload, CLONING); }

    /** @return the clone id in a {@link TransferMessage#TRANSFER_AGENT} payload, or -1 for a move */
    static int cloneId(byte[] payload) {
        if (payload == null || payload.length == 0) return -1;
        String text = new String(payload, java.nio.charset.StandardCharsets.UTF_8);
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new io.dsa.DsaException("transferAgent payload '" + text + "' is not a clone id");
        }
    }

    @Override
    public byte[] beginTransfer(String agentId) { return call(TransferMessage.BEGIN_TRANSFER, agentId, self).payload(); }

    @Override
    public byte[] transferAgent(String agentId) { return call(TransferMessage.TRANSFER_AGENT, agentId, self).payload(); }

    @Override
    public void endTransfer(String agentId) { call(TransferMessage.END_TRANSFER, agentId, self); }

    @Override
    public void endCloning(String agentId) { call(TransferMessage.END_CLONING, agentId, self); }

    @Override
    public void abortTransfer(String agentId) { call(TransferMessage.ABORT_TRANSFER, agentId, self); }

    private HostReplyMessage call(int op, String agentId, String fromMonitor) {
        return call(op, agentId, fromMonitor, new byte[0]);
    }

    private HostReplyMessage call(int op, String agentId, String fromMonitor, byte[] payload) {
        long id = replies.open(connection);
        if (!connection.isOpen()) replies.failVia(connection, "connection to host " + address + " closed");
        connection.send(new TransferMessage(id, op, agentId, fromMonitor, payload));
        return replies.await(id, step(op) + " of " + agentId + " on host " + address, timeoutMs);
    }

    /** A transfer's reply rows: agentId, from, to, pauseNanos, bytes. */
    static java.util.List<String> rows(TransferReport r) {
        return java.util.List.of(r.agentId(), r.fromMonitor(), r.toMonitor(), Long.toString(r.pauseNanos()),
                Long.toString(r.bytes()));
    }

    private static TransferReport report(HostReplyMessage reply) {
        return report(reply.rows());
    }

    /**
     * The report in a transfer's reply rows (as {@link #rows} writes them), from another host.
     *
     * @throws io.dsa.DsaException when the rows are not agentId, from, to, pauseNanos >= 0, bytes >= 0
     */
    static TransferReport report(java.util.List<String> r) {
        String expected = "expected agentId, from, to, pauseNanos >= 0, bytes >= 0";
        if (r == null || r.size() != 5 || r.stream().anyMatch(java.util.Objects::isNull)) {
            throw new io.dsa.DsaException("transfer reply has " + (r == null ? "no" : r.size() + "") + " rows (null rows count too), "
                    + expected);
        }
        long pauseNanos;
        long bytes;
        try {
            pauseNanos = Long.parseLong(r.get(3));
            bytes = Long.parseLong(r.get(4));
        } catch (NumberFormatException e) {
            pauseNanos = -1;
            bytes = -1;
        }
        if (pauseNanos < 0 || bytes < 0) {
            throw new io.dsa.DsaException("transfer reply rows '" + StatusRow.shown(r.get(3)) + "', '" + StatusRow.shown(r.get(4))
                    + "' are not numbers >= 0: " + expected);
        }
        return new TransferReport(r.get(0), r.get(1), r.get(2), pauseNanos, bytes);
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
