package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.agent.AgentMonitor;
import io.dsa.agent.HostPort;
import io.dsa.agent.TransferReport;
import io.dsa.agent.transport.Connection;
import io.dsa.agent.transport.InboundHandler;
import io.dsa.agent.transport.Transport;
import io.dsa.agent.transport.TransportConfig;
import io.dsa.agent.transport.TransportSecurity;
import io.dsa.agent.wire.HostJobEventMessage;
import io.dsa.agent.wire.HostJobMessage;
import io.dsa.agent.wire.HostReplyMessage;
import io.dsa.agent.wire.HostStatusQueryMessage;
import io.dsa.agent.wire.JarQueryMessage;
import io.dsa.agent.wire.StopVmMessage;
import io.dsa.agent.wire.WorkersQueryMessage;
import io.dsa.agent.wire.CountersQueryMessage;
import io.dsa.agent.wire.HostStatusMessage;
import io.dsa.agent.wire.TransferReportMessage;
import io.dsa.agent.wire.NodeRequestMessage;
import io.dsa.agent.wire.ElementsMessage;
import io.dsa.agent.wire.ReadArrayMessage;
import java.util.List;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The launcher's side of talking to {@code dsa host} daemons: one authenticated connection per
 * host (the cluster secret, as for agents), requests answered by replies, and job events.
 * Used by {@code dsa run --hosts}, {@code dsa status}, {@code dsa migrate} and {@code dsa clone}.
 * Thread-safe.
 */
public final class HostClient implements AutoCloseable {
    private final Transport transport;
    private final long timeoutMs;
    private final Replies replies = new Replies();
    private final Map<HostPort, Connection> connections = new ConcurrentHashMap<>();
    /** Dials {@link #dialAll} started and no {@link #connect} has taken yet. */
    private final Map<HostPort, CompletableFuture<Connection>> dialing = new ConcurrentHashMap<>();
    private volatile Consumer<HostJobEventMessage> events = e -> {};
    private volatile Consumer<String> disconnects = h -> {};

    private HostClient(byte[] secret, String bindHost, long timeoutMs, TransportSecurity security, long failureTimeoutMs) {
        this.timeoutMs = timeoutMs;
        this.transport = Transport.start(TransportConfig.builder().vmName(AgentHost.HOST_VM).nodeId(AgentHost.CLIENT_ID)
                .secret(secret).security(security).bindHost(bindHost).port(0).failureTimeoutMs(failureTimeoutMs).build(),
                new Inbound());
    }

    /**
     * @param secret the cluster secret the hosts were started with
     * @param bindHost a local address for this client's (unused) listening socket
     * @param timeoutMs how long to wait for a connection or a reply
     * @return a client with no connections yet
     */
    public static HostClient open(byte[] secret, String bindHost, long timeoutMs) {
        return open(secret, bindHost, timeoutMs, TransportConfig.DEFAULT_SECURITY);
    }

    /**
     * As {@link #open(byte[], String, long)}, protecting the connections with {@code security},
     * which must be what the hosts use (else each refuses the handshake, naming both).
     */
    public static HostClient open(byte[] secret, String bindHost, long timeoutMs, TransportSecurity security) {
        return open(secret, bindHost, timeoutMs, security, TransportConfig.DEFAULT_FAILURE_TIMEOUT_MS);
    }

    /**
     * As {@link #open(byte[], String, long, TransportSecurity)}, taking a host for lost (its
     * connection closes, {@link #onDisconnect} hears it) when it is silent for {@code failureTimeoutMs}
     * (see {@link TransportConfig#failureTimeoutMs()}): a launcher uses its VM's.
     */
    public static HostClient open(byte[] secret, String bindHost, long timeoutMs, TransportSecurity security, long failureTimeoutMs) {
        return new HostClient(secret, bindHost, timeoutMs, security, failureTimeoutMs);
    }

    /** Sets who receives job events (on an I/O thread: must not block). */
    public void onJobEvent(Consumer<HostJobEventMessage> listener) { this.events = listener; }

    /** Sets who hears that a host's connection closed (on an I/O thread: must not block). */
    public void onDisconnect(Consumer<String> listener) { this.disconnects = listener; }

    /**
     * @return the authenticated connection to {@code host}, dialled on first use
     * @throws DsaException when the host cannot be reached or refuses the secret
     */
    public Connection connect(HostPort host) {
        return connect(host, timeoutMs);
    }

    /**
     * Starts dialling each of {@code hosts} that has no connection yet, all at once, and returns
     * at once: each later {@link #connect} of one of them waits for its own dial (and reports its
     * failure as it would have), no longer for the hosts before it. A launcher or a status of many
     * hosts thus pays about one handshake's time, not one per host (docs/hosts.md, "Dialling many
     * hosts at once").
     */
    public void dialAll(Collection<HostPort> hosts) {
        for (HostPort h : hosts) {
            Connection c = connections.get(h);
            if (c == null || !c.isOpen()) dialing.computeIfAbsent(h, k -> transport.connect(k.host(), k.port()));
        }
    }

    private Connection connect(HostPort host, long timeoutMs) {
        Connection c = connections.get(host);
        if (c != null && c.isOpen()) return c;
        CompletableFuture<Connection> dial = dialing.remove(host);
        try {
            c = (dial != null ? dial : transport.connect(host.host(), host.port())).get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new DsaException("host " + host + ": " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new DsaException("host " + host + ": no connection after " + timeoutMs + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DsaException("host " + host + ": interrupted");
        }
        connections.put(host, c);
        return c;
    }

    /** Sends a job to {@code host}; its events arrive at {@link #onJobEvent}. */
    public void submit(HostPort host, HostJobMessage job) { connect(host).send(job); }

    /**
     * Sends {@code request} (made with a fresh request id) and waits for its answer.
     *
     * @param timeoutMs at most this long for the connection (if it must be dialled) and as long again for the answer
     * @param what the request, for messages ("status of vm 'x'")
     * @return the successful answer, a {@code type}
     * @throws DsaException when the host refuses (with its reason) or does not answer in time
     */
    private <T> T ask(HostPort host, java.util.function.LongFunction<Object> request, Class<T> type, String what, long timeoutMs) {
        Connection c = connect(host, timeoutMs);
        long id = replies.open(c);
        c.send(request.apply(id));
        return replies.await(id, what + " on host " + host, timeoutMs, type);
    }

    /**
     * Stops {@code host}'s agents of {@code vmName}, waiting at most {@code timeoutMs} for the
     * connection (if it must be dialled) and as long again for the reply, so that stopping a VM
     * after a failure does not hold its caller up for the client's whole timeout.
     *
     * @param stopToken the token the host gave when it accepted the VM's job ({@code HostJobEventMessage.ACCEPTED})
     * @return the host's summary ("stopped 2 agent(s) of vm 'x'")
     * @throws DsaException when the host refuses (a wrong token, with its reason) or does not answer in time
     */
    public String stopVm(HostPort host, String vmName, String stopToken, long timeoutMs) {
        return stopVm(host, vmName, stopToken, new long[0], timeoutMs);
    }

    /** As {@link #stopVm(HostPort, String, String, long)}, but the VM's clones {@code keep} (ids) go on: they are to be promoted. */
    public String stopVm(HostPort host, String vmName, String stopToken, long[] keep, long timeoutMs) {
        return ask(host, id -> new StopVmMessage(id, vmName, stopToken, keep), HostReplyMessage.class, "stop of vm '" + vmName + "'",
                timeoutMs).text();
    }

    /**
     * @return whether {@code host} keeps the program jar whose SHA-256 is {@code digest} (an earlier
     *         job shipped it), so that a job may name it instead of shipping it ({@link JarQueryMessage})
     * @throws DsaException when the host cannot be asked or refuses
     */
    public boolean keepsJar(HostPort host, byte[] digest) {
        byte[] answer = ask(host, id -> new JarQueryMessage(id, digest), HostReplyMessage.class, "program jar query", timeoutMs).payload();
        return answer.length == 1 && answer[0] == 1;
    }

    /**
     * @return the status rows (see {@link AgentHost#STATUS_COLUMNS}) of {@code host}'s agents of
     *         {@code vmName} (all VMs if null), checked ({@link StatusRow#of})
     * @throws DsaException when the host cannot be asked, refuses, or sends a bad row (naming it)
     */
    public List<StatusRow> status(HostPort host, String vmName) {
        HostStatusMessage reply = ask(host, id -> new HostStatusQueryMessage(id, vmName), HostStatusMessage.class,
                "status" + (vmName == null ? "" : " of vm '" + vmName + "'"), timeoutMs);
        try {
            return StatusRow.checkAll(reply.rows());
        } catch (DsaException e) {
            throw new DsaException("host " + host + " answered with a malformed " + e.getMessage());
        }
    }

    /**
     * @return where the workers of {@code host}'s agents of {@code vmName} are: one line per
     *         unfinished worker (see {@code DsaAgent.workerLines()}), node by node
     */
    public List<String> workers(HostPort host, String vmName) {
        return ask(host, id -> new WorkersQueryMessage(id, vmName), HostReplyMessage.class, "workers of vm '" + vmName + "'",
                timeoutMs).rows();
    }

    /** @return the counts of {@code host}'s agents of {@code vmName} (all VMs if null), node by node */
    public List<io.dsa.agent.metrics.NodeCounts> counters(HostPort host, String vmName) {
        return io.dsa.agent.metrics.CountsRows.parse(ask(host, id -> new CountersQueryMessage(id, vmName), HostReplyMessage.class,
                "counts" + (vmName == null ? "" : " of vm '" + vmName + "'"), timeoutMs).rows());
    }

    /**
     * @return {@code host}'s {@link AgentMonitor}: its handlers are calls over the authenticated
     *         connection, e.g. {@code monitor(target).requestTransfer("jacobi/2", "10.0.0.2:7000")}
     */
    public AgentMonitor monitor(HostPort host) {
        return new RemoteAgentMonitor(host.toString(), null, connect(host), replies, timeoutMs);
    }

    /**
     * Asks {@code target} to take agent {@code agentId} from {@code source} while its job runs.
     *
     * @param vmHosts the hosts the VM's nodes may run on, so the new host can coordinate them
     * @throws DsaException when a host refuses (the agent then stays at {@code source})
     */
    public TransferReport migrate(HostPort target, String agentId, HostPort source, List<HostPort> vmHosts) {
        return new RemoteAgentMonitor(target.toString(), null, connect(target), replies, timeoutMs)
                .requestTransfer(agentId, source.toString(), vmHosts.stream().map(HostPort::toString).toList());
    }

    /**
     * Asks {@code target} to start a clone of agent {@code agentId} (served by {@code source})
     * while its job runs.
     *
     * @param vmHosts the hosts the VM's nodes may run on, so the new host can coordinate them
     * @return the report; its agent id names the clone ({@code vm/cloneNode})
     * @throws DsaException when a host refuses (nothing then refers to a clone)
     */
    public TransferReport cloneAgent(HostPort target, String agentId, HostPort source, List<HostPort> vmHosts) {
        return new RemoteAgentMonitor(target.toString(), null, connect(target), replies, timeoutMs)
                .requestClone(agentId, source.toString(), vmHosts.stream().map(HostPort::toString).toList());
    }

    /**
     * Reads {@code count} elements of array {@code name} from index {@code from} (flat, row-major)
     * through the agent of node {@code node} of {@code vmName} on {@code host} (a clone or a node).
     *
     * @return one row per element, from index {@code from}
     */
    public List<ElementRow> read(HostPort host, String vmName, int node, String name, long from, long count) {
        Connection c = connect(host);
        long id = replies.open(c);
        c.send(new NodeRequestMessage(vmName, node, new ReadArrayMessage(id, name, from, count)));
        return ElementRow.of(replies.await(id, "read through node " + node + " of vm '" + vmName + "' on host " + host,
                timeoutMs, ElementsMessage.class));
    }

    /** Closes every connection. Idempotent. */
    @Override
    public void close() {
        transport.close();
        replies.failAll("client closed");
    }

    private final class Inbound implements InboundHandler {
        @Override
        public void onMessage(Connection connection, Object message) {
            if (message instanceof HostReplyMessage r) replies.onReply(r);
            else if (message instanceof HostStatusMessage r) replies.onAnswer(r.requestId(), r);
            else if (message instanceof ElementsMessage r) replies.onAnswer(r.requestId(), r);
            else if (message instanceof TransferReportMessage r) replies.onAnswer(r.requestId(), r);
            else if (message instanceof HostJobEventMessage e) events.accept(e);
        }

        @Override
        public void onDisconnected(Connection connection, Throwable cause) {
            connections.values().remove(connection);
            replies.failVia(connection, "host " + connection.remoteAddress() + " closed the connection");
            disconnects.accept(connection.remoteAddress());
        }
    }
}
