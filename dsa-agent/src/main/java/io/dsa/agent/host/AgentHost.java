package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.DsaProgram;
import io.dsa.agent.AgentMonitor;
import io.dsa.agent.BarrierKind;
import io.dsa.agent.DsaAgent;
import io.dsa.agent.DsaConfig;
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
import java.util.concurrent.ExecutorService;
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

    private static final Logger LOG = LoggerFactory.getLogger(AgentHost.class);

    /** Where a hosted agent is in its life. */
    enum JobState { STARTING, RUNNING, DONE, FAILED, STOPPED }

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

    private AgentHost(String bindHost, int port, byte[] secret) {
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
        return new AgentHost(bindHost, port, secret);
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

    // ---- jobs ------------------------------------------------------------------------------------

    /** One agent this host serves, with the class loader of its job. */
    private static final class HostedJob {
        final HostJobMessage job;
        final Connection owner;
        volatile JobState state = JobState.STARTING;
        volatile DsaAgent agent;
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
            DsaConfig.Builder config = DsaConfig.builder().nodes(m.nodes()).threadsPerNode(m.threadsPerNode())
                    .vmName(m.vmName()).nodeId(m.nodeId()).bindHost(bindHost).port(0)
                    .monitorAddress(m.monitorAddress()).secret(secret);
            applyOptions(config, m.options());
            job.agent = DsaAgent.start(config.build());
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
        Thread runner = new Thread(() -> run(id, job, program), "dsa-host-job-" + id);
        runner.setContextClassLoader(job.loader);
        runner.setDaemon(true);
        runner.start();
    }

    private void run(String id, HostedJob job, DsaProgram program) {
        HostJobMessage m = job.job;
        try {
            RunReport report = job.agent.run(program, m.args());
            job.state = JobState.DONE;
            job.owner.send(new HostJobEventMessage(m.jobId(), m.nodeId(), HostJobEventMessage.DONE, "",
                    report.lines(), new long[] {report.startupNanos(), report.runNanos()}));
        } catch (RuntimeException | LinkageError e) {
            job.state = JobState.FAILED;
            job.owner.send(event(m, HostJobEventMessage.FAILED, e.getMessage() == null ? e.toString() : e.getMessage()));
        } finally {
            finish(id, job, job.state);
        }
    }

    // The program's classes come from the shipped JAR, in a loader of this job's own whose parent
    // holds DSA itself, so io.dsa types are shared and jobs of different VMs do not see each other.
    private static DsaProgram load(HostedJob job) throws IOException, ReflectiveOperationException {
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
        job.state = state;
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
                case HostRequestMessage.STATUS -> from.send(ok(r.requestId(), "", status(r.vmName())));
                case HostRequestMessage.STOP_VM -> {
                    int n = stopVm(r.vmName(), null);
                    from.send(ok(r.requestId(), "stopped " + n + " agent(s) of vm '" + r.vmName() + "'", List.of()));
                }
                case HostRequestMessage.MIGRATE, HostRequestMessage.CLONE -> {
                    String id = DsaAgent.agentId(r.vmName(), r.nodeId());
                    if (!jobs.containsKey(id)) {
                        throw new DsaException("host " + address() + " does not serve node " + r.nodeId() + " of vm '"
                                + r.vmName() + "'; it serves " + agentIds());
                    }
                    throw new DsaException((r.op() == HostRequestMessage.MIGRATE ? "migration" : "cloning")
                            + " of agent " + id + " is not available in this build");
                }
                default -> throw new DsaException("unknown host request op " + r.op() + ", expected 1 to 4");
            }
        } catch (RuntimeException e) {
            from.send(new HostReplyMessage(r.requestId(), false, String.valueOf(e.getMessage()), List.of()));
        }
    }

    private void onTransfer(Connection from, TransferMessage t) {
        try {
            switch (t.op()) {
                case TransferMessage.REQUEST_TRANSFER -> requestTransfer(t.agentId(), t.fromMonitor());
                case TransferMessage.REQUEST_CLONE -> requestClone(t.agentId(), t.fromMonitor());
                case TransferMessage.BEGIN_TRANSFER -> beginTransfer(t.agentId(), t.fromMonitor(), t.payload());
                case TransferMessage.TRANSFER_AGENT -> transferAgent(t.agentId(), t.payload());
                case TransferMessage.END_TRANSFER -> endTransfer(t.agentId());
                case TransferMessage.END_CLONING -> endCloning(t.agentId());
                default -> throw new DsaException("unknown transfer op " + t.op() + ", expected 1 to 6");
            }
            from.send(ok(t.requestId(), "", List.of()));
        } catch (RuntimeException e) {
            from.send(new HostReplyMessage(t.requestId(), false, String.valueOf(e.getMessage()), List.of()));
        }
    }

    private static HostReplyMessage ok(long id, String text, List<String> rows) {
        return new HostReplyMessage(id, true, text, rows);
    }

    // ---- AgentMonitor ----------------------------------------------------------------------------

    @Override
    public void requestTransfer(String agentId, String fromMonitor) {
        if (closed.get()) throw new DsaException("host " + address() + " is shutting down");
        if (jobs.containsKey(agentId)) throw new DsaException("host " + address() + " already serves agent " + agentId);
        throw new DsaException("host " + address() + " cannot take agent " + agentId + " from " + fromMonitor
                + ": migration is not available in this build");
    }

    @Override
    public void requestClone(String agentId, String fromMonitor) {
        if (closed.get()) throw new DsaException("host " + address() + " is shutting down");
        throw new DsaException("host " + address() + " cannot take a clone of " + agentId + " from " + fromMonitor
                + ": cloning is not available in this build");
    }

    @Override
    public void beginTransfer(String agentId, String fromMonitor, byte[] job) {
        throw new DsaException("no transfer of " + agentId + " from " + fromMonitor + " was requested");
    }

    @Override
    public void transferAgent(String agentId, byte[] state) {
        throw new DsaException("no transfer of " + agentId + " has begun");
    }

    @Override
    public void endTransfer(String agentId) {
        throw new DsaException("no transfer of " + agentId + " has begun");
    }

    @Override
    public void endCloning(String agentId) {
        throw new DsaException("no cloning of " + agentId + " has begun");
    }

    /** Stops every agent this host serves and closes its port. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        int stopped = stopVm(null, null);
        LOG.info("host {} stopping: {} agent(s) stopped", address(), stopped);
        transport.close();
        control.shutdownNow();
    }

    private final class Inbound implements InboundHandler {
        @Override
        public void onMessage(Connection connection, Object message) {
            // Starting an agent and running a transfer block: never on the I/O thread.
            if (message instanceof HostJobMessage m) control.execute(() -> startJob(connection, m));
            else if (message instanceof HostRequestMessage r) control.execute(() -> onRequest(connection, r));
            else if (message instanceof TransferMessage t) control.execute(() -> onTransfer(connection, t));
            else {
                LOG.warn("host {}: unexpected {} from {}; closing that connection", address(),
                        message.getClass().getSimpleName(), connection.remoteAddress());
                connection.close();
            }
        }

        @Override
        public void onDisconnected(Connection connection, Throwable cause) {
            if (closed.get()) return;
            control.execute(() -> {
                int n = stopVm(null, connection);
                if (n > 0) LOG.warn("host {}: launcher {} left; stopped its {} agent(s)", address(),
                        connection.remoteAddress(), n);
            });
        }
    }
}
