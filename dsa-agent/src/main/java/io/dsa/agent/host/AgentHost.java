package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.DsaProgram;
import io.dsa.agent.AgentMonitor;
import io.dsa.agent.BarrierKind;
import io.dsa.agent.DsaAgent;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.HostPort;
import io.dsa.agent.TransferReport;
import io.dsa.agent.ProxyMode;
import io.dsa.agent.RunReport;
import io.dsa.agent.transport.Connection;
import io.dsa.agent.transport.InboundHandler;
import io.dsa.agent.transport.Transport;
import io.dsa.agent.transport.TransportConfig;
import io.dsa.agent.wire.HostJobEventMessage;
import io.dsa.agent.wire.HostJobMessage;
import io.dsa.agent.wire.HostReplyMessage;
import io.dsa.agent.wire.HostRequestMessage;
import io.dsa.agent.wire.TransferMessage;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code dsa host} daemon: one {@link AgentMonitor} per host. Launchers holding the cluster
 * secret submit jobs to it ({@code dsa run --hosts}); it starts the node's {@link DsaAgent} on
 * this host, loads the program from the shipped JAR in a class loader of the job's own, runs it,
 * and reports back. It serves agents of any number of VMs at once, one per {@code (vm, node)}.
 *
 * <p>Every connection to the host's port runs the transport's authenticated handshake with the
 * cluster secret (on the reserved VM name {@value #HOST_VM}); a peer without it is refused
 * before any request is decoded, so only authenticated peers can submit jobs, ask for status or
 * request transfers. When the launcher's connection closes, the host stops the agents it
 * submitted.
 */
public final class AgentHost implements AgentMonitor, AutoCloseable {
    /** The VM name of the host control channel's handshake. */
    public static final String HOST_VM = "dsa-host";
    /** Node id a host presents in its handshake. */
    static final int HOST_ID = 0;
    /** Node id a launcher presents in its handshake. */
    static final int CLIENT_ID = 1;
    /** Columns of a status row, tab-separated. */
    public static final List<String> STATUS_COLUMNS =
            List.of("VM", "NODE", "HOST", "AGENT", "STATE", "PROGRAM", "HOMED", "CACHED");

    /** How long one transfer step may take. */
    static final long TRANSFER_STEP_TIMEOUT_MS = 60_000;

    private static final Logger LOG = LoggerFactory.getLogger(AgentHost.class);

    /** Where a hosted agent is in its life. */
    enum JobState { STARTING, RUNNING, SUSPENDED, MOVED, DONE, FAILED, STOPPED }

    private final byte[] secret;
    private final String bindHost;
    private final Transport transport;
    private final Map<String, HostedJob> jobs = new ConcurrentHashMap<>();
    private final ExecutorService control = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "dsa-host-control");
        t.setDaemon(true);
        return t;
    });
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Requests this host sent to other hosts (transfer steps). */
    private final Replies replies = new Replies();
    /** Authenticated connections this host dialled to other hosts, by address. */
    private final Map<String, Connection> peerHosts = new ConcurrentHashMap<>();
    /** Agents of this host between beginTransfer and endTransfer/abortTransfer. */
    private final Map<String, Outgoing> outgoing = new ConcurrentHashMap<>();
    /** Agents that moved away: their new host's events are relayed to their launcher. */
    private final Map<String, Moved> moved = new ConcurrentHashMap<>();
    private final AgentMobility mobility;

    private AgentHost(String bindHost, int port, byte[] secret, AgentMobility mobility) {
        this.mobility = mobility;
        this.secret = secret.clone();
        this.bindHost = bindHost;
        this.transport = Transport.start(TransportConfig.builder().vmName(HOST_VM).nodeId(HOST_ID).secret(secret)
                .bindHost(bindHost).port(port).build(), new Inbound());
    }

    /**
     * Starts a host daemon listening on {@code bindHost:port}; its agents listen on {@code bindHost}
     * too, on free ports, so {@code bindHost} must be an address the other hosts can reach.
     *
     * @param port in {@code [0, 65535]}; 0 picks a free one
     * @param secret the cluster secret, at least {@value TransportConfig#MIN_SECRET_BYTES} bytes
     * @throws DsaException when the port cannot be bound
     * @throws IllegalArgumentException for a bad port or secret
     */
    public static AgentHost start(String bindHost, int port, byte[] secret) {
        if (port < 0 || port > 65535) throw new IllegalArgumentException("port " + port + " out of range [0, 65535]");
        return new AgentHost(bindHost, port, secret, AgentMobility.RUNTIME);
    }

    @Override
    public String address() { return bindHost + ":" + transport.boundAddress().getPort(); }

    /** @return the ids ({@code vm/node}) of the agents this host serves now */
    public List<String> agentIds() { return List.copyOf(jobs.keySet()); }

    /** @return one tab-separated row per agent this host serves (columns {@link #STATUS_COLUMNS}), of {@code vmName} or all if null */
    public List<String> status(String vmName) {
        List<String> rows = new ArrayList<>();
        for (HostedJob j : jobs.values()) {
            if (vmName != null && !vmName.equals(j.job.vmName())) continue;
            DsaAgent a = j.agent;
            rows.add(String.join("\t", j.job.vmName(), Integer.toString(j.job.nodeId()), address(),
                    a == null ? "-" : a.address(), j.state.name(), j.job.programClass(),
                    a == null ? "0" : Integer.toString(a.partitionsHomed()),
                    a == null ? "0" : Integer.toString(a.partitionsCached())));
        }
        rows.sort(null);
        return rows;
    }

    /** @return the ids of the agents that moved away from this host and whose events it relays */
    List<String> movedAway() {
        List<String> rows = new ArrayList<>(moved.keySet());
        rows.sort(null);
        return rows;
    }

    // ---- jobs ------------------------------------------------------------------------------------

    /** One agent this host serves, with the class loader of its job. */
    private static final class HostedJob {
        final HostJobMessage job;
        final Connection owner;
        volatile JobState state = JobState.STARTING;
        volatile DsaAgent agent;
        volatile DsaProgram program;
        Path jarFile;
        URLClassLoader loader;

        HostedJob(HostJobMessage job, Connection owner) {
            this.job = job;
            this.owner = owner;
        }
    }

    private void startJob(Connection owner, HostJobMessage m) {
        String id = DsaAgent.agentId(m.vmName(), m.nodeId());
        HostedJob job = new HostedJob(m, owner);
        if (closed.get()) {
            owner.send(event(m, HostJobEventMessage.FAILED, "host " + address() + " is shutting down"));
            return;
        }
        if (jobs.putIfAbsent(id, job) != null) {
            owner.send(event(m, HostJobEventMessage.FAILED, "host " + address() + " already serves node " + m.nodeId()
                    + " of vm '" + m.vmName() + "'; stop that vm or choose another name with --vm"));
            return;
        }
        DsaProgram program;
        try {
            program = load(job);
            job.agent = DsaAgent.start(config(m).build());
            job.agent.initialize(this);
            job.agent.start();
        } catch (RuntimeException | ReflectiveOperationException | IOException | LinkageError e) {
            finish(id, job, JobState.FAILED);
            String why = e.getMessage() == null ? e.toString() : e.getMessage();
            owner.send(event(m, HostJobEventMessage.FAILED, "node " + m.nodeId() + " cannot start on host " + address()
                    + ": " + why));
            return;
        }
        job.state = JobState.RUNNING;
        LOG.info("host {}: node {} of vm '{}' runs {} at {}", address(), m.nodeId(), m.vmName(), m.programClass(),
                job.agent.address());
        owner.send(event(m, HostJobEventMessage.STARTED, job.agent.address()));
        startRunner(id, job, () -> job.agent.run(program, m.args()));
    }

    /** @return the config of the agent of {@code m} on this host: its shape, this host's address and the cluster secret */
    DsaConfig.Builder config(HostJobMessage m) {
        DsaConfig.Builder config = DsaConfig.builder().nodes(m.nodes()).threadsPerNode(m.threadsPerNode())
                .vmName(m.vmName()).nodeId(m.nodeId()).bindHost(bindHost).port(0)
                .monitorAddress(m.monitorAddress()).secret(secret);
        applyOptions(config, m.options());
        return config;
    }

    private void startRunner(String id, HostedJob job, Supplier<RunReport> body) {
        Thread runner = new Thread(() -> run(id, job, body), "dsa-host-job-" + id);
        runner.setContextClassLoader(job.loader);
        runner.setDaemon(true);
        runner.start();
    }

    private void run(String id, HostedJob job, Supplier<RunReport> body) {
        HostJobMessage m = job.job;
        try {
            RunReport report = body.get();
            if (job.state == JobState.MOVED) return;   // the node's new host reports its outcome
            job.state = JobState.DONE;
            if (job.owner != null) job.owner.send(new HostJobEventMessage(m.jobId(), m.nodeId(), HostJobEventMessage.DONE, "",
                    report.lines(), new long[] {report.startupNanos(), report.runNanos()}));
        } catch (RuntimeException | LinkageError e) {
            if (job.state == JobState.MOVED) return;
            job.state = JobState.FAILED;
            if (job.owner != null) job.owner.send(event(m, HostJobEventMessage.FAILED, e.getMessage() == null ? e.toString() : e.getMessage()));
        } finally {
            finish(id, job, job.state);
        }
    }

    // The program's classes come from the shipped JAR, in a loader of this job's own whose parent
    // holds DSA itself, so io.dsa types are shared and jobs of different VMs do not see each other.
    private static DsaProgram load(HostedJob job) throws IOException, ReflectiveOperationException {
        job.program = instantiate(job);
        return job.program;
    }

    private static DsaProgram instantiate(HostedJob job) throws IOException, ReflectiveOperationException {
        HostJobMessage m = job.job;
        job.jarFile = Files.createTempFile("dsa-job-" + m.vmName() + "-" + m.nodeId() + "-", ".jar");
        Files.write(job.jarFile, m.jar());
        job.loader = new URLClassLoader("dsa-job-" + m.vmName() + "-" + m.nodeId(),
                new URL[] {job.jarFile.toUri().toURL()}, AgentHost.class.getClassLoader());
        Class<?> type = Class.forName(m.programClass(), true, job.loader);
        if (!DsaProgram.class.isAssignableFrom(type)) {
            throw new DsaException("class " + m.programClass() + " does not implement " + DsaProgram.class.getName());
        }
        return (DsaProgram) type.getConstructor().newInstance();
    }

    private static void applyOptions(DsaConfig.Builder config, List<String> options) {
        for (String option : options) {
            int eq = option.indexOf('=');
            String key = eq < 0 ? option : option.substring(0, eq);
            String value = eq < 0 ? "" : option.substring(eq + 1);
            switch (key) {
                case "barrier" -> config.barrier(BarrierKind.valueOf(value));
                case "fanout" -> config.barrierFanout(Integer.parseInt(value));
                case "proxy" -> config.proxy(ProxyMode.valueOf(value));
                case "startupTimeoutMs" -> config.startupTimeoutMs(Long.parseLong(value));
                default -> throw new DsaException("unknown job option '" + option
                        + "'; known: barrier, fanout, proxy, startupTimeoutMs");
            }
        }
    }

    private void finish(String id, HostedJob job, JobState state) {
        if (job.state != JobState.MOVED) job.state = state;
        if (job.agent != null) job.agent.stop();
        if (job.loader != null) {
            try {
                job.loader.close();
            } catch (IOException e) {
                LOG.debug("closing the class loader of {}: {}", id, e.toString());
            }
        }
        if (job.jarFile != null) {
            try {
                Files.deleteIfExists(job.jarFile);
            } catch (IOException e) {
                LOG.debug("deleting {}: {}", job.jarFile, e.toString());
            }
        }
        jobs.remove(id, job);
    }

    private static HostJobEventMessage event(HostJobMessage m, int event, String text) {
        return new HostJobEventMessage(m.jobId(), m.nodeId(), event, text, List.of(), new long[0]);
    }

    private int stopVm(String vmName, Connection owner) {
        int stopped = 0;
        for (Map.Entry<String, HostedJob> e : jobs.entrySet()) {
            HostedJob j = e.getValue();
            if ((vmName == null || vmName.equals(j.job.vmName())) && (owner == null || owner == j.owner)) {
                finish(e.getKey(), j, JobState.STOPPED);
                stopped++;
            }
        }
        return stopped;
    }

    // ---- requests --------------------------------------------------------------------------------

    private void onRequest(Connection from, HostRequestMessage r) {
        try {
            switch (r.op()) {
                case HostRequestMessage.STATUS -> from.send(ok(r.requestId(), "", status(r.vmName()), new byte[0]));
                case HostRequestMessage.STOP_VM -> {
                    int n = stopVm(r.vmName(), null);
                    from.send(ok(r.requestId(), "stopped " + n + " agent(s) of vm '" + r.vmName() + "'", List.of(),
                            new byte[0]));
                }
                default -> throw new DsaException("unknown host request op " + r.op() + ", expected 1 or 2");
            }
        } catch (RuntimeException e) {
            from.send(refused(r.requestId(), e));
        }
    }

    private void onTransfer(Connection from, TransferMessage t) {
        try {
            HostReplyMessage reply = switch (t.op()) {
                case TransferMessage.REQUEST_TRANSFER ->
                        ok(t.requestId(), "", RemoteAgentMonitor.rows(requestTransfer(t.agentId(), t.fromMonitor())), new byte[0]);
                case TransferMessage.REQUEST_CLONE ->
                        ok(t.requestId(), "", RemoteAgentMonitor.rows(requestClone(t.agentId(), t.fromMonitor())), new byte[0]);
                case TransferMessage.BEGIN_TRANSFER -> {
                    byte[] job = beginTransfer(t.agentId());
                    outgoing.get(t.agentId()).taker = from;
                    yield ok(t.requestId(), "", List.of(), job);
                }
                case TransferMessage.TRANSFER_AGENT -> ok(t.requestId(), "", List.of(), transferAgent(t.agentId()));
                case TransferMessage.END_TRANSFER -> {
                    endTransfer(t.agentId());
                    yield ok(t.requestId(), "", List.of(), new byte[0]);
                }
                case TransferMessage.END_CLONING -> {
                    endCloning(t.agentId());
                    yield ok(t.requestId(), "", List.of(), new byte[0]);
                }
                case TransferMessage.ABORT_TRANSFER -> {
                    abortTransfer(t.agentId());
                    yield ok(t.requestId(), "", List.of(), new byte[0]);
                }
                default -> throw new DsaException("unknown transfer op " + t.op() + ", expected 1 to 7");
            };
            from.send(reply);
        } catch (RuntimeException e) {
            LOG.warn("host {}: {} of {} from {} refused: {}", address(), RemoteAgentMonitor.step(t.op()), t.agentId(),
                    from.remoteAddress(), e.getMessage());
            from.send(refused(t.requestId(), e));
        }
    }

    private static HostReplyMessage ok(long id, String text, List<String> rows, byte[] payload) {
        return new HostReplyMessage(id, true, text, rows, payload);
    }

    private static HostReplyMessage refused(long id, RuntimeException e) {
        return new HostReplyMessage(id, false, e.getMessage() == null ? e.toString() : e.getMessage(), List.of(), new byte[0]);
    }

    // ---- AgentMonitor: the new host's side ----------------------------------------------------------

    /** @return the monitor at {@code address}, over this host's authenticated transport */
    AgentMonitor remote(String address) {
        HostPort hp = HostPort.parse(address);
        Connection c = peerHosts.get(address);
        if (c == null || !c.isOpen()) {
            try {
                c = transport.connect(hp.host(), hp.port()).get(TRANSFER_STEP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw new DsaException("host " + address + ": " + e.getCause().getMessage(), e.getCause());
            } catch (TimeoutException e) {
                throw new DsaException("host " + address + ": no connection after " + TRANSFER_STEP_TIMEOUT_MS + " ms");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new DsaException("host " + address + ": interrupted");
            }
            peerHosts.put(address, c);
        }
        return new RemoteAgentMonitor(address, address(), c, replies, TRANSFER_STEP_TIMEOUT_MS);
    }

    @Override
    public TransferReport requestTransfer(String agentId, String fromMonitor) {
        return acquire(agentId, fromMonitor, false);
    }

    @Override
    public TransferReport requestClone(String agentId, String fromMonitor) {
        return acquire(agentId, fromMonitor, true);
    }

    private TransferReport acquire(String agentId, String fromMonitor, boolean clone) {
        if (closed.get()) throw new DsaException("host " + address() + " is shutting down");
        if (fromMonitor == null || fromMonitor.equals(address())) {
            throw new DsaException("agent " + agentId + " cannot move from host " + fromMonitor + " to itself");
        }
        if (!clone && jobs.containsKey(agentId)) throw new DsaException("host " + address() + " already serves agent " + agentId);
        AgentMonitor source = remote(fromMonitor);
        Connection sourceConnection = peerHosts.get(fromMonitor);
        byte[] jobBytes;
        try {
            jobBytes = source.beginTransfer(agentId);   // the agent is at its safe point from here on
        } catch (RuntimeException e) {
            throw notTaken(agentId, fromMonitor, e);
        }
        long safePointNs = System.nanoTime();
        HostedJob job = null;
        String id = agentId;
        try {
            HostJobMessage m = JobCodec.decode(jobBytes);
            byte[] state = source.transferAgent(agentId);
            AgentMobility.Incoming in = mobility.restore(this, m, state, clone);
            id = DsaAgent.agentId(m.vmName(), in.nodeId());
            job = new HostedJob(new HostJobMessage(m.jobId(), m.vmName(), in.nodeId(), m.nodes(), m.threadsPerNode(),
                    m.monitorAddress(), m.programClass(), m.args(), m.options(), m.jar()), clone ? null : sourceConnection);
            if (jobs.putIfAbsent(id, job) != null) {
                job = null;
                throw new DsaException("host " + address() + " already serves agent " + id);
            }
            DsaProgram program = load(job);
            job.agent = in.agent();
            job.agent.initialize(this);
            if (clone) source.endCloning(agentId);
            else source.endTransfer(agentId);    // commit: from here the copy here is the agent
            job.state = JobState.RUNNING;
            HostedJob running = job;
            String runningId = id;
            Thread runner = new Thread(() -> run(runningId, running, () -> in.resume(program)), "dsa-host-job-" + id);
            runner.setContextClassLoader(job.loader);
            runner.setDaemon(true);
            runner.start();
            long pauseNs = clone ? 0 : System.nanoTime() - safePointNs;
            TransferReport report = new TransferReport(id, fromMonitor, address(), pauseNs, state.length);
            LOG.info("host {}: {}", address(), report.describe(clone ? "cloned" : "moved"));
            return report;
        } catch (RuntimeException | IOException | ReflectiveOperationException | LinkageError e) {
            if (job != null) finish(id, job, JobState.FAILED);
            try {
                source.abortTransfer(agentId);
            } catch (RuntimeException abort) {
                e.addSuppressed(abort);
            }
            throw notTaken(agentId, fromMonitor, e);
        }
    }

    private DsaException notTaken(String agentId, String fromMonitor, Throwable e) {
        String why = e.getMessage() == null ? e.toString() : e.getMessage();
        return new DsaException("host " + address() + " could not take agent " + agentId + " from " + fromMonitor
                + " (it stays there): " + why, e);
    }

    // ---- AgentMonitor: the current host's side ------------------------------------------------------

    /** An agent of this host on its way out: between beginTransfer and endTransfer or abortTransfer. */
    private static final class Outgoing {
        final HostedJob job;
        /** The new host's connection, once it called beginTransfer over the wire. */
        volatile Connection taker;

        Outgoing(HostedJob job) { this.job = job; }
    }

    /** Where the events of an agent that moved away come from and go to. */
    private record Moved(long jobId, Connection owner, Connection taker) {}

    @Override
    public byte[] beginTransfer(String agentId) {
        HostedJob job = jobs.get(agentId);
        if (job == null || job.state != JobState.RUNNING) {
            throw new DsaException("host " + address() + " does not run agent " + agentId + "; it runs " + agentIds());
        }
        if (outgoing.putIfAbsent(agentId, new Outgoing(job)) != null) {
            throw new DsaException("agent " + agentId + " is already being transferred");
        }
        try {
            mobility.suspend(job.agent, job.program, agentId);
        } catch (RuntimeException e) {
            outgoing.remove(agentId);
            throw e;
        }
        job.state = JobState.SUSPENDED;
        return JobCodec.encode(job.job);
    }

    @Override
    public byte[] transferAgent(String agentId) {
        return mobility.export(outgoingJob(agentId).agent);
    }

    @Override
    public void endTransfer(String agentId) {
        Outgoing out = outgoing.get(agentId);
        HostedJob job = outgoingJob(agentId);
        job.state = JobState.MOVED;   // before the hand-over: this copy's run must report nothing
        moved.put(agentId, new Moved(job.job.jobId(), job.owner, out.taker));
        mobility.handOver(job.agent);
        outgoing.remove(agentId);
        finish(agentId, job, JobState.MOVED);
        LOG.info("host {}: agent {} moved away", address(), agentId);
    }

    @Override
    public void endCloning(String agentId) {
        HostedJob job = outgoingJob(agentId);
        mobility.resume(job.agent);
        outgoing.remove(agentId);
        job.state = JobState.RUNNING;
    }

    @Override
    public void abortTransfer(String agentId) {
        HostedJob job = outgoingJob(agentId);
        mobility.resume(job.agent);
        outgoing.remove(agentId);
        job.state = JobState.RUNNING;
        LOG.warn("host {}: transfer of agent {} aborted; it keeps running here", address(), agentId);
    }

    private HostedJob outgoingJob(String agentId) {
        Outgoing out = outgoing.get(agentId);
        if (out == null) throw new DsaException("no transfer of agent " + agentId + " has begun on host " + address());
        return out.job;
    }

    /** Stops every agent this host serves and closes its port. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        for (String id : outgoing.keySet()) {
            try {
                abortTransfer(id);
            } catch (RuntimeException e) {
                LOG.debug("resuming {}: {}", id, e.getMessage());
            }
        }
        int stopped = stopVm(null, null);
        LOG.info("host {} stopping: {} agent(s) stopped", address(), stopped);
        transport.close();
        replies.failAll("host " + address() + " stopped");
        control.shutdownNow();
    }

    // A host that took one of our agents sends its events here; the launcher knows only us.
    private void relay(Connection from, HostJobEventMessage e) {
        for (Map.Entry<String, Moved> m : moved.entrySet()) {
            Moved mv = m.getValue();
            if (mv.taker() == from && mv.jobId() == e.jobId() && m.getKey().endsWith("/" + e.nodeId())) {
                if (mv.owner() != null) mv.owner().send(e);
                if (e.event() != HostJobEventMessage.STARTED) moved.remove(m.getKey());
                return;
            }
        }
        LOG.warn("host {}: event of node {} from {} matches no agent that moved away; dropped", address(), e.nodeId(),
                from.remoteAddress());
    }

    private final class Inbound implements InboundHandler {
        @Override
        public void onMessage(Connection connection, Object message) {
            // Starting an agent and running a transfer block: never on the I/O thread.
            if (message instanceof HostJobMessage m) control.execute(() -> startJob(connection, m));
            else if (message instanceof HostRequestMessage r) control.execute(() -> onRequest(connection, r));
            else if (message instanceof TransferMessage t) control.execute(() -> onTransfer(connection, t));
            else if (message instanceof HostReplyMessage r) replies.onReply(r);
            else if (message instanceof HostJobEventMessage e) relay(connection, e);
            else {
                LOG.warn("host {}: unexpected {} from {}; closing that connection", address(),
                        message.getClass().getSimpleName(), connection.remoteAddress());
                connection.close();
            }
        }

        @Override
        public void onDisconnected(Connection connection, Throwable cause) {
            if (closed.get()) return;
            peerHosts.values().remove(connection);
            control.execute(() -> {
                for (Map.Entry<String, Outgoing> e : outgoing.entrySet()) {
                    if (e.getValue().taker == connection) {
                        LOG.warn("host {}: the host taking agent {} left before the transfer ended", address(), e.getKey());
                        try {
                            abortTransfer(e.getKey());
                        } catch (RuntimeException ex) {
                            LOG.warn("host {}: cannot resume agent {}: {}", address(), e.getKey(), ex.getMessage());
                        }
                    }
                }
                int n = stopVm(null, connection);
                if (n > 0) LOG.warn("host {}: launcher {} left; stopped its {} agent(s)", address(),
                        connection.remoteAddress(), n);
            });
        }
    }
}
