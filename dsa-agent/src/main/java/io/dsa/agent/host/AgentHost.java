package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.DsaProgram;
import io.dsa.agent.AgentMonitor;
import io.dsa.agent.AgentState;
import io.dsa.agent.BarrierKind;
import io.dsa.agent.DsaAgent;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.HostPort;
import io.dsa.agent.TransferReport;
import io.dsa.agent.ProxyMode;
import io.dsa.agent.WaitStrategy;
import io.dsa.agent.RunReport;
import io.dsa.agent.transport.Connection;
import io.dsa.agent.transport.InboundHandler;
import io.dsa.agent.transport.Transport;
import io.dsa.agent.transport.TransportConfig;
import io.dsa.agent.transport.TransportSecurity;
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

    /** System property naming a transfer step after which a new host blocks (tests only); see {@link #blockIfTesting}. */
    public static final String BLOCK_AFTER_PROPERTY = "dsa.host.test.blockAfter";
    /** How long one transfer step may take. */
    static final long TRANSFER_STEP_TIMEOUT_MS = 60_000;

    private static final Logger LOG = LoggerFactory.getLogger(AgentHost.class);

    /** Where a hosted agent is in its life. */
    enum JobState { STARTING, RUNNING, SUSPENDED, MOVED, DONE, FAILED, STOPPED,
        /** A clone: no workers, serves reads, stops when its VM's node 0 goes. */
        CLONE }

    private final byte[] secret;
    private final TransportSecurity security;
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
    /** Global barriers held at this host's node 0 agents for a move, by agent id, with who asked. */
    private final Map<String, Connection> holds = new ConcurrentHashMap<>();
    /** Moves that this host's agents expect, armed by a new host. */
    private final Map<String, Expected> expected = new ConcurrentHashMap<>();

    private AgentHost(String bindHost, int port, byte[] secret, TransportSecurity security) {
        this.secret = secret.clone();
        this.security = security;
        this.bindHost = bindHost;
        this.transport = Transport.start(TransportConfig.builder().vmName(HOST_VM).nodeId(HOST_ID).secret(secret)
                .security(security).bindHost(bindHost).port(port).build(), new Inbound());
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
        return start(bindHost, port, secret, TransportConfig.DEFAULT_SECURITY);
    }

    /**
     * Starts a host daemon as {@link #start(String, int, byte[])} does, whose connections (to
     * launchers, other hosts, and between its agents and theirs) are protected with {@code security};
     * peers must use the same.
     */
    public static AgentHost start(String bindHost, int port, byte[] secret, TransportSecurity security) {
        if (port < 0 || port > 65535) throw new IllegalArgumentException("port " + port + " out of range [0, 65535]");
        return new AgentHost(bindHost, port, secret, java.util.Objects.requireNonNull(security, "transport security"));
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
        /** Counted down when the job's run has ended and its agent is closed. */
        final java.util.concurrent.CountDownLatch ended = new java.util.concurrent.CountDownLatch(1);
        Path jarFile;
        URLClassLoader loader;

        HostedJob(HostJobMessage job, Connection owner) {
            this.job = job;
            this.owner = owner;
        }

        synchronized void setState(JobState next) {
            state = next;
            notifyAll();
        }

        /** Waits while a transfer holds this job (state SUSPENDED), up to {@code timeoutMs}. */
        synchronized void awaitNotSuspended(long timeoutMs) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            try {
                while (state == JobState.SUSPENDED) {
                    long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                    if (left <= 0) return;
                    wait(left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
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

    /** @return the config of the agent of {@code m} on this host: its shape, this host's address, the cluster secret and transport security */
    DsaConfig.Builder config(HostJobMessage m) {
        DsaConfig.Builder config = DsaConfig.builder().nodes(m.nodes()).threadsPerNode(m.threadsPerNode())
                .vmName(m.vmName()).nodeId(m.nodeId()).bindHost(bindHost).port(0)
                .monitorAddress(m.monitorAddress()).secret(secret).transportSecurity(security);
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
            RunReport report;
            try {
                report = body.get();
            } finally {
                // A node in a transfer loses its old connections at the commit, before endTransfer
                // tells this host: its outcome counts only if the transfer was aborted.
                job.awaitNotSuspended(TRANSFER_STEP_TIMEOUT_MS);
            }
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
            job.ended.countDown();
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
                case "wait" -> config.waitStrategy(WaitStrategy.valueOf(value));
                case "prefetchWindow" -> config.prefetchWindow(Integer.parseInt(value));
                case "startupTimeoutMs" -> config.startupTimeoutMs(Long.parseLong(value));
                case "hosts" -> { }   // where the VM's nodes run: for moves, see locate()
                default -> throw new DsaException("unknown job option '" + option
                        + "'; known: barrier, fanout, proxy, wait, prefetchWindow, startupTimeoutMs, hosts");
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
            String text = switch (r.op()) {
                case HostRequestMessage.STATUS -> {
                    from.send(ok(r.requestId(), "", status(r.vmName()), new byte[0]));
                    yield null;
                }
                case HostRequestMessage.STOP_VM -> "stopped " + stopVm(r.vmName(), null) + " agent(s) of vm '" + r.vmName() + "'";
                case HostRequestMessage.HOLD_BARRIER -> holdBarrier(from, r);
                case HostRequestMessage.RELEASE_BARRIER -> {
                    movePart(r.vmName(), r.nodeId()).releaseHeldBarrier();
                    holds.remove(DsaAgent.agentId(r.vmName(), r.nodeId()));
                    yield "released";
                }
                case HostRequestMessage.EXPECT_MOVE -> {
                    int moving = Integer.parseInt(r.target());
                    DsaAgent a = movePart(r.vmName(), r.nodeId());
                    expected.put(expectKey(r.vmName(), r.nodeId(), moving), new Expected(a.expectMovedNode(moving), from, a, moving));
                    yield "expecting";
                }
                case HostRequestMessage.AWAIT_MOVE -> {
                    Expected e = expected.get(expectKey(r.vmName(), r.nodeId(), Integer.parseInt(r.target())));
                    if (e == null) throw new DsaException("node " + r.nodeId() + " expects no move of node " + r.target());
                    e.arrived().get(TRANSFER_STEP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
                    yield "arrived";
                }
                case HostRequestMessage.COMMIT_MOVE, HostRequestMessage.ABANDON_MOVE -> {
                    String[] parts = r.target().split("@", 2);
                    int moving = Integer.parseInt(parts[0]);
                    Expected e = expected.remove(expectKey(r.vmName(), r.nodeId(), moving));
                    DsaAgent a = e != null ? e.agent() : movePart(r.vmName(), r.nodeId());
                    if (r.op() == HostRequestMessage.COMMIT_MOVE) a.commitMovedNode(moving, parts[1]);
                    else a.abandonMovedNode(moving);
                    yield r.op() == HostRequestMessage.COMMIT_MOVE ? "committed" : "abandoned";
                }
                case HostRequestMessage.ADMIT_CLONE -> {
                    movePart(r.vmName(), r.nodeId()).admitClone(Integer.parseInt(r.target()));
                    yield "admitted";
                }
                case HostRequestMessage.REGISTER_CLONE -> {
                    String[] parts = r.target().split("\\|", 2);
                    movePart(r.vmName(), r.nodeId()).registerCloneSharers(Integer.parseInt(parts[0]),
                            ClonePartitions.decode(parts.length > 1 ? parts[1] : ""));
                    yield "registered";
                }
                case HostRequestMessage.READ_ARRAY -> {
                    from.send(ok(r.requestId(), "", readArray(r.vmName(), r.nodeId(), r.target()), new byte[0]));
                    yield null;
                }
                default -> throw new DsaException("unknown host request op " + r.op() + ", expected 1 to 11");
            };
            if (text != null) from.send(ok(r.requestId(), text, List.of(), new byte[0]));
        } catch (ExecutionException e) {
            from.send(refused(r.requestId(), new DsaException(String.valueOf(e.getCause().getMessage()), e.getCause())));
        } catch (TimeoutException e) {
            from.send(refused(r.requestId(), new DsaException("no answer after " + TRANSFER_STEP_TIMEOUT_MS + " ms")));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            from.send(refused(r.requestId(), new DsaException("interrupted")));
        } catch (RuntimeException e) {
            from.send(refused(r.requestId(), e));
        }
    }

    /**
     * Reads elements of an array through the agent of node {@code node} of {@code vm} here (a
     * clone or a node), following the coherence protocol. {@code what}: {@code name\tfrom\tcount}.
     *
     * @return one row per element, its flat index and value
     */
    private List<String> readArray(String vm, int node, String what) {
        HostedJob j = jobs.get(DsaAgent.agentId(vm, node));
        if (j == null || j.agent == null || (j.state != JobState.RUNNING && j.state != JobState.CLONE)) {
            throw new DsaException("host " + address() + " runs no node " + node + " of vm '" + vm + "'; it runs " + agentIds());
        }
        String[] parts = what.split("\t", -1);
        if (parts.length != 3) throw new DsaException("read request '" + what + "' is not name<TAB>from<TAB>count");
        io.dsa.SharedArray a = j.agent.array(parts[0]);
        long length = a.layout().length();
        long from = Long.parseLong(parts[1]);
        long count = Long.parseLong(parts[2]);
        if (from < 0 || from >= length) {
            throw new DsaException("index " + from + " of array '" + parts[0] + "' out of range [0, " + length + ")");
        }
        if (count < 1 || count > MAX_READ || from + count > length) {
            throw new DsaException("count " + count + " out of range [1, " + Math.min(MAX_READ, length - from) + "] for array '"
                    + parts[0] + "' of " + length + " elements from index " + from);
        }
        List<String> rows = new ArrayList<>((int) count);
        for (int i = (int) from; i < from + count; i++) {
            String v;
            if (a instanceof io.dsa.SharedDoubleArray d) v = Double.toString(d.read(i));
            else if (a instanceof io.dsa.SharedFloatArray f) v = Float.toString(f.read(i));
            else if (a instanceof io.dsa.SharedLongArray l) v = Long.toString(l.read(i));
            else if (a instanceof io.dsa.SharedIntArray n) v = Integer.toString(n.read(i));
            else throw new DsaException("array '" + parts[0] + "' has an element type this host cannot print");
            rows.add(i + "\t" + v);
        }
        return rows;
    }

    /** The most elements one read request returns. */
    public static final int MAX_READ = 1 << 16;

    /** A move of node {@code moving} that the agent of another node expects, armed by {@code holder}. */
    private record Expected(java.util.concurrent.CompletableFuture<?> arrived, Connection holder, DsaAgent agent, int moving) {}

    private static String expectKey(String vm, int node, int moving) { return vm + "/" + node + "<-" + moving; }

    /** @return the running agent of node {@code node} of {@code vm} on this host, which takes part in a move */
    private DsaAgent movePart(String vm, int node) {
        HostedJob j = jobs.get(DsaAgent.agentId(vm, node));
        if (j == null || j.agent == null || j.state == JobState.MOVED) {
            throw new DsaException("host " + address() + " does not run node " + node + " of vm '" + vm + "'");
        }
        return j.agent;
    }

    // Node 0's host: hold the next global barrier's release until every worker waits there (the safe point).
    private String holdBarrier(Connection from, HostRequestMessage r) throws InterruptedException {
        String id = DsaAgent.agentId(r.vmName(), r.nodeId());
        DsaAgent monitor = movePart(r.vmName(), r.nodeId());
        java.util.concurrent.CompletableFuture<Long> safe = monitor.holdAtNextGlobalBarrier();
        holds.put(id, from);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TRANSFER_STEP_TIMEOUT_MS);
        while (true) {
            HostedJob j = jobs.get(id);
            if (j == null || j.state != JobState.RUNNING || closed.get()) {
                monitor.releaseHeldBarrier();
                holds.remove(id);
                throw new DsaException("vm '" + r.vmName() + "' reached no safe point: its job ended first");
            }
            try {
                long generation = safe.get(50, TimeUnit.MILLISECONDS);
                return "safe point at global barrier " + generation;
            } catch (TimeoutException e) {
                if (System.nanoTime() > deadline) {
                    monitor.releaseHeldBarrier();
                    holds.remove(id);
                    throw new DsaException("vm '" + r.vmName() + "' reached no safe point in " + TRANSFER_STEP_TIMEOUT_MS + " ms");
                }
            } catch (ExecutionException | java.util.concurrent.CancellationException e) {
                holds.remove(id);
                throw new DsaException("the safe point of vm '" + r.vmName() + "' was cancelled", e);
            }
        }
    }

    private void onTransfer(Connection from, TransferMessage t) {
        try {
            HostReplyMessage reply = switch (t.op()) {
                case TransferMessage.REQUEST_TRANSFER -> ok(t.requestId(), "",
                        RemoteAgentMonitor.rows(acquire(t.agentId(), t.fromMonitor(), hostsOf(t.payload()))), new byte[0]);
                case TransferMessage.REQUEST_CLONE ->
                        ok(t.requestId(), "", RemoteAgentMonitor.rows(cloneHere(t.agentId(), t.fromMonitor(), hostsOf(t.payload()))),
                                new byte[0]);
                case TransferMessage.BEGIN_TRANSFER -> {
                    byte[] job = beginTransfer(t.agentId(), RemoteAgentMonitor.isCloning(t.payload()));
                    outgoing.get(t.agentId()).taker = from;
                    yield ok(t.requestId(), "", List.of(), job);
                }
                case TransferMessage.TRANSFER_AGENT -> ok(t.requestId(), "", List.of(),
                        transferAgent(t.agentId(), RemoteAgentMonitor.cloneId(t.payload())));
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

    private static List<String> hostsOf(byte[] payload) {
        if (payload == null || payload.length == 0) return List.of();
        return List.of(new String(payload, java.nio.charset.StandardCharsets.UTF_8).split(","));
    }

    private static HostReplyMessage ok(long id, String text, List<String> rows, byte[] payload) {
        return new HostReplyMessage(id, true, text, rows, payload);
    }

    private static HostReplyMessage refused(long id, RuntimeException e) {
        return new HostReplyMessage(id, false, e.getMessage() == null ? e.toString() : e.getMessage(), List.of(), new byte[0]);
    }

    // ---- AgentMonitor: the new host's side ----------------------------------------------------------

    /** @return this host's authenticated connection to the host at {@code address}, dialled on first use */
    private Connection peer(String address) {
        HostPort hp = HostPort.parse(address);
        Connection c = peerHosts.get(address);
        if (c != null && c.isOpen()) return c;
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
        return c;
    }

    /** @return the monitor at {@code address}, over this host's authenticated transport */
    AgentMonitor remote(String address) {
        return new RemoteAgentMonitor(address, address(), peer(address), replies, TRANSFER_STEP_TIMEOUT_MS);
    }

    private HostReplyMessage ask(String host, int op, String vm, int node, String target) {
        Connection c = peer(host);
        long id = replies.open(c);
        c.send(new HostRequestMessage(id, op, vm, node, target));
        return replies.await(id, "request " + op + " for node " + node + " of vm '" + vm + "' on host " + host,
                TRANSFER_STEP_TIMEOUT_MS);
    }

    @Override
    public TransferReport requestTransfer(String agentId, String fromMonitor) {
        return acquire(agentId, fromMonitor, List.of());
    }

    @Override
    public TransferReport requestClone(String agentId, String fromMonitor) {
        return cloneHere(agentId, fromMonitor, List.of());
    }

    /**
     * Starts a clone of agent {@code agentId} (served by {@code fromMonitor}) on this host while
     * its job runs: at the VM's next plain global barrier (held at node 0's host) the current
     * host sends a clone's state (the agent's valid partitions as shared copies), every node
     * admits the clone's id, the clone connects to them, and every home registers it as a sharer
     * of the partitions it holds. The clone gets the next free node id ({@code >=} the VM's node
     * count), runs no workers, serves reads ({@link HostRequestMessage#READ_ARRAY}), and stops
     * when its VM's node 0 goes.
     *
     * @param vmHosts hosts where the VM's nodes may be; the job's own list and the source are added
     * @return the clone's id ({@code vm/cloneNode}), the hosts, the time the VM was held, the state's bytes
     */
    TransferReport cloneHere(String agentId, String fromMonitor, List<String> vmHosts) {
        if (closed.get()) throw new DsaException("host " + address() + " is shutting down");
        AgentRef ref = AgentRef.parse(agentId);
        String vm = ref.vm();
        int node = ref.node();
        RemoteAgentMonitor source = (RemoteAgentMonitor) remote(fromMonitor);
        HostJobMessage m;
        try {
            m = JobCodec.decode(source.beginCloning(agentId));
        } catch (RuntimeException e) {
            throw notCloned(agentId, fromMonitor, e);
        }
        boolean held = false;
        DsaAgent clone = null;
        Map<Integer, String> hostOf = Map.of();
        String cloneAgentId = null;
        HostedJob job = null;
        try {
            hostOf = locate(vm, m.nodes(), vmHosts, m, fromMonitor);
            if (!fromMonitor.equals(hostOf.get(node))) {
                throw new DsaException("node " + node + " of vm '" + vm + "' runs on " + hostOf.get(node) + ", not " + fromMonitor);
            }
            if (node >= m.nodes()) throw new DsaException("agent " + agentId + " is a clone; clone node 0 to " + (m.nodes() - 1));
            int cloneId = Math.max(m.nodes(), hostOf.keySet().stream().mapToInt(Integer::intValue).max().orElse(0) + 1);
            cloneAgentId = DsaAgent.agentId(vm, cloneId);
            ask(hostOf.get(0), HostRequestMessage.HOLD_BARRIER, vm, 0, null);
            held = true;
            long pauseStart = System.nanoTime();
            byte[] bytes = source.transferClone(agentId, cloneId);
            AgentState state = AgentState.decode(bytes);
            for (int j = 0; j < m.nodes(); j++) ask(hostOf.get(j), HostRequestMessage.ADMIT_CLONE, vm, j, Integer.toString(cloneId));
            clone = DsaAgent.restoreClone(config(m).nodeId(node).monitorAddress(state.view().get(0)).build(), state);
            clone.connectToPeers().get(TRANSFER_STEP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            String registration = cloneId + "|" + ClonePartitions.encode(DsaAgent.clonePartitions(state));
            for (int j = 0; j < m.nodes(); j++) ask(hostOf.get(j), HostRequestMessage.REGISTER_CLONE, vm, j, registration);
            job = new HostedJob(new HostJobMessage(m.jobId(), vm, cloneId, m.nodes(), m.threadsPerNode(), m.monitorAddress(),
                    m.programClass(), m.args(), m.options(), new byte[0]), null);
            job.agent = clone;
            job.agent.initialize(this);
            job.state = JobState.CLONE;
            if (jobs.putIfAbsent(cloneAgentId, job) != null) throw new DsaException("host " + address() + " already serves agent " + cloneAgentId);
            source.endCloning(agentId);
            ask(hostOf.get(0), HostRequestMessage.RELEASE_BARRIER, vm, 0, null);
            held = false;
            long pause = System.nanoTime() - pauseStart;
            HostedJob running = job;
            String id = cloneAgentId;
            clone.monitorLost().thenRun(() -> control.execute(() -> {
                LOG.info("host {}: clone {} stops: its vm's node 0 left", address(), id);
                finish(id, running, JobState.STOPPED);
                running.ended.countDown();
            }));
            TransferReport report = new TransferReport(cloneAgentId, fromMonitor, address(), pause, bytes.length);
            LOG.info("host {}: {} of {}", address(), report.describe("cloned"), agentId);
            return report;
        } catch (RuntimeException | ExecutionException | TimeoutException | InterruptedException e) {
            if (e instanceof InterruptedException) Thread.currentThread().interrupt();
            if (job != null) jobs.remove(cloneAgentId, job);
            // the homes that registered the clone forget it when its connections close
            if (clone != null) clone.close();
            throw notCloned(agentId, fromMonitor, giveBack(source, agentId, held ? hostOf.get(0) : null, vm, e));
        }
    }

    private DsaException notCloned(String agentId, String fromMonitor, Throwable e) {
        String why = e.getMessage() == null ? e.toString() : e.getMessage();
        return new DsaException("host " + address() + " could not clone agent " + agentId + " from " + fromMonitor + ": " + why, e);
    }

    /**
     * Pulls agent {@code agentId} here from {@code fromMonitor} while its job runs, coordinating
     * the VM's other hosts: node 0's host holds the safe point, every other node's host holds the
     * new agent's connection until the commit.
     *
     * @param vmHosts hosts where the VM's nodes may be (the launcher's list); the job's own list
     *        and the source are added
     */
    TransferReport acquire(String agentId, String fromMonitor, List<String> vmHosts) {
        if (closed.get()) throw new DsaException("host " + address() + " is shutting down");
        if (fromMonitor == null || fromMonitor.equals(address())) {
            throw new DsaException("agent " + agentId + " cannot move from host " + fromMonitor + " to itself");
        }
        if (jobs.containsKey(agentId)) throw new DsaException("host " + address() + " already serves agent " + agentId);
        AgentRef ref = AgentRef.parse(agentId);
        String vm = ref.vm();
        int node = ref.node();
        if (node == 0) {
            throw new DsaException("node 0 of vm '" + vm + "' cannot migrate: it is the monitor (registry, barrier root,"
                    + " lock home and the job's lifecycle); migrate nodes 1 and up");
        }
        AgentMonitor source = remote(fromMonitor);
        HostJobMessage m;
        try {
            m = JobCodec.decode(source.beginTransfer(agentId));   // checks: runs there, resumable
        } catch (RuntimeException e) {
            throw notTaken(agentId, fromMonitor, e);
        }
        HostedJob job = null;
        DsaAgent target = null;
        boolean held = false;
        Map<Integer, String> hostOf = Map.of();
        List<Integer> expecting = new ArrayList<>();
        long pauseStart = 0;
        byte[] bytes;
        try {
            job = new HostedJob(m, peer(fromMonitor));
            DsaProgram program = load(job);   // before the safe point: a class that does not load costs no pause
            hostOf = locate(vm, m.nodes(), vmHosts, m, fromMonitor);
            if (!fromMonitor.equals(hostOf.get(node))) {
                throw new DsaException("node " + node + " of vm '" + vm + "' runs on " + hostOf.get(node) + ", not " + fromMonitor);
            }
            List<Integer> clones = hostOf.keySet().stream().filter(k -> k >= m.nodes()).toList();
            if (!clones.isEmpty()) {
                throw new DsaException("vm '" + vm + "' has clone(s) " + clones + ": a node cannot move while clones share its"
                        + " partitions (they know only its old address); see docs/hosts.md");
            }
            ask(hostOf.get(0), HostRequestMessage.HOLD_BARRIER, vm, 0, null);
            held = true;
            pauseStart = System.nanoTime();
            bytes = source.transferAgent(agentId);
            blockIfTesting("transferAgent");
            AgentState state = AgentState.decode(bytes);
            DsaConfig config = config(m).nodeId(node).monitorAddress(state.view().get(0)).build();
            target = DsaAgent.restore(config, state);
            for (int j = 0; j < m.nodes(); j++) {
                if (j == node) continue;
                ask(hostOf.get(j), HostRequestMessage.EXPECT_MOVE, vm, j, Integer.toString(node));
                expecting.add(j);
            }
            target.connectToPeers().get(TRANSFER_STEP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            for (int j : expecting) ask(hostOf.get(j), HostRequestMessage.AWAIT_MOVE, vm, j, Integer.toString(node));
            // commit: from here the agent here is node `node`
            for (int j : expecting) ask(hostOf.get(j), HostRequestMessage.COMMIT_MOVE, vm, j, node + "@" + target.address());
            expecting.clear();
            job.agent = target;
            job.agent.initialize(this);
            job.state = JobState.RUNNING;
            if (jobs.putIfAbsent(agentId, job) != null) throw new DsaException("host " + address() + " already serves agent " + agentId);
            source.endTransfer(agentId);
            ask(hostOf.get(0), HostRequestMessage.RELEASE_BARRIER, vm, 0, null);
            held = false;
            DsaAgent resumed = target;
            startRunner(agentId, job, () -> resumed.resume(program, m.args()));
            TransferReport report = new TransferReport(agentId, fromMonitor, address(), System.nanoTime() - pauseStart,
                    bytes.length);
            LOG.info("host {}: {}", address(), report.describe("moved"));
            return report;
        } catch (RuntimeException | IOException | ReflectiveOperationException | LinkageError | ExecutionException
                 | TimeoutException | InterruptedException e) {
            if (e instanceof InterruptedException) Thread.currentThread().interrupt();
            for (int j : expecting) {
                try {
                    ask(hostOf.get(j), HostRequestMessage.ABANDON_MOVE, vm, j, Integer.toString(node));
                } catch (RuntimeException x) {
                    e.addSuppressed(x);
                }
            }
            if (target != null) target.close();
            if (job != null) {
                jobs.remove(agentId, job);
                job.agent = null;
                finish(agentId, job, JobState.FAILED);
            }
            throw notTaken(agentId, fromMonitor, giveBack(source, agentId, held ? hostOf.get(0) : null, vm, e));
        }
    }

    /**
     * After a failed move or cloning: the source goes on with its agent ({@code abortTransfer}) and
     * node 0's host releases the held barrier (if {@code holder} is not null); failures of these
     * steps are added to {@code e}.
     *
     * @return the failure to report: the cause of an {@link ExecutionException}, else {@code e}
     */
    private Throwable giveBack(AgentMonitor source, String agentId, String holder, String vm, Throwable e) {
        try {
            source.abortTransfer(agentId);
        } catch (RuntimeException x) {
            e.addSuppressed(x);
        }
        if (holder != null) {
            try {
                ask(holder, HostRequestMessage.RELEASE_BARRIER, vm, 0, null);
            } catch (RuntimeException x) {
                e.addSuppressed(x);
            }
        }
        return e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
    }

    /** An agent id {@code vm/node}, split. */
    private record AgentRef(String vm, int node) {
        static AgentRef parse(String agentId) {
            int slash = agentId.lastIndexOf('/');
            try {
                return new AgentRef(agentId.substring(0, Math.max(0, slash)), Integer.parseInt(agentId.substring(slash + 1)));
            } catch (NumberFormatException e) {
                throw new DsaException("agent id '" + agentId + "' is not vm/node");
            }
        }
    }

    // Which host runs each node of the VM: asks every known host for its agents of the VM.
    private Map<Integer, String> locate(String vm, int nodes, List<String> vmHosts, HostJobMessage m, String source) {
        java.util.Set<String> candidates = new java.util.LinkedHashSet<>(vmHosts);
        candidates.add(source);
        for (String option : m.options()) {
            if (option.startsWith("hosts=")) candidates.addAll(List.of(option.substring(6).split(",")));
        }
        candidates.add(address());
        Map<Integer, String> hostOf = new java.util.TreeMap<>();
        List<String> unreachable = new ArrayList<>();
        for (String h : candidates) {
            if (h.isBlank()) continue;
            List<String> rows;
            try {
                rows = h.equals(address()) ? status(vm) : ask(h, HostRequestMessage.STATUS, vm, -1, null).rows();
            } catch (RuntimeException e) {
                unreachable.add(h + " (" + e.getMessage() + ")");
                continue;
            }
            for (String row : rows) {
                String[] cells = row.split("\t", -1);
                if (cells[4].equals(JobState.RUNNING.name()) || cells[4].equals(JobState.SUSPENDED.name())
                        || cells[4].equals(JobState.CLONE.name())) {
                    hostOf.put(Integer.parseInt(cells[1]), h);
                }
            }
        }
        for (int j = 0; j < nodes; j++) {
            if (!hostOf.containsKey(j)) {
                throw new DsaException("node " + j + " of vm '" + vm + "' runs on none of the hosts " + candidates
                        + (unreachable.isEmpty() ? "" : "; unreachable: " + unreachable) + "; pass the VM's hosts with --hosts");
            }
        }
        return hostOf;
    }

    /**
     * Fault injection for system tests: with {@code -D}{@value #BLOCK_AFTER_PROPERTY}{@code =step},
     * the new host prints {@code blocked after step} and stops there for good, so a test can kill
     * it in the middle of a transfer. Never set in production.
     */
    private void blockIfTesting(String step) throws InterruptedException {
        if (!step.equals(System.getProperty(BLOCK_AFTER_PROPERTY))) return;
        System.out.println("host " + address() + " blocked after " + step);
        System.out.flush();
        new java.util.concurrent.CountDownLatch(1).await();
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
        /** Whether the new host takes a clone (the agent then stays here, running). */
        final boolean clone;
        /** The new host's connection, once it called beginTransfer over the wire. */
        volatile Connection taker;

        Outgoing(HostedJob job, boolean clone) {
            this.job = job;
            this.clone = clone;
        }
    }

    /** Where the events of an agent that moved away come from and go to. */
    private record Moved(long jobId, Connection owner, Connection taker) {}

    @Override
    public byte[] beginTransfer(String agentId) { return beginTransfer(agentId, false); }

    /** {@link #beginTransfer}, for a move or (with {@code clone}) a cloning, which needs no resumable program. */
    byte[] beginTransfer(String agentId, boolean clone) {
        HostedJob job = jobs.get(agentId);
        if (job == null || job.state != JobState.RUNNING) {
            throw new DsaException("host " + address() + " does not run agent " + agentId + "; it runs " + agentIds());
        }
        if (!clone && !job.program.resumable()) {
            throw new DsaException("agent " + agentId + " runs " + job.program.getClass().getName()
                    + ", which is not resumable(): it can move only between runs");
        }
        if (outgoing.putIfAbsent(agentId, new Outgoing(job, clone)) != null) {
            throw new DsaException("agent " + agentId + " is already being transferred");
        }
        return JobCodec.encode(job.job);
    }

    @Override
    public byte[] transferAgent(String agentId) { return transferAgent(agentId, -1); }

    /** {@link #transferAgent}; for a cloning, the clone's state with node id {@code cloneId}. */
    byte[] transferAgent(String agentId, int cloneId) {
        HostedJob job = outgoingJob(agentId);
        if (outgoing.get(agentId).clone) {
            if (cloneId < 0) throw new DsaException("the cloning of agent " + agentId + " names no clone id");
            return job.agent.snapshotForClone(cloneId).encode();   // the agent runs on: nothing to suspend
        }
        job.setState(JobState.SUSPENDED);   // from here its run's outcome waits for the transfer's
        try {
            return job.agent.snapshotForMigration().encode();
        } catch (RuntimeException e) {
            job.setState(JobState.RUNNING);
            throw e;
        }
    }

    @Override
    public void endTransfer(String agentId) {
        Outgoing out = outgoing.get(agentId);
        HostedJob job = outgoingJob(agentId);
        job.setState(JobState.MOVED);   // this copy's run reports nothing
        moved.put(agentId, new Moved(job.job.jobId(), job.owner, out.taker));
        job.agent.retireAfterMigration();   // its run returns null; the runner then closes it
        outgoing.remove(agentId);
        jobs.remove(agentId, job);
        try {
            // as in DsaCluster.migrate: the old agent is closed before the new host releases the barrier
            if (!job.ended.await(TRANSFER_STEP_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                LOG.warn("host {}: the old agent {} did not stop within {} ms", address(), agentId, TRANSFER_STEP_TIMEOUT_MS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOG.info("host {}: agent {} moved away", address(), agentId);
    }

    @Override
    public void endCloning(String agentId) {
        Outgoing out = outgoing.get(agentId);
        if (out == null || !out.clone) throw new DsaException("no cloning of " + agentId + " has begun on host " + address());
        outgoing.remove(agentId, out);
        LOG.info("host {}: agent {} was cloned", address(), agentId);
    }

    @Override
    public void abortTransfer(String agentId) {
        HostedJob job = outgoingJob(agentId);
        if (outgoing.remove(agentId).clone) {
            LOG.warn("host {}: cloning of agent {} aborted", address(), agentId);
            return;
        }
        if (job.state == JobState.SUSPENDED) job.setState(JobState.RUNNING);   // its workers go on when node 0 releases
        LOG.warn("host {}: transfer of agent {} aborted; it stays here", address(), agentId);
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
            replies.failVia(connection, "host " + connection.remoteAddress() + " closed the connection");
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
                for (Map.Entry<String, Connection> h : holds.entrySet()) {
                    if (h.getValue() == connection && holds.remove(h.getKey(), connection)) {
                        HostedJob j = jobs.get(h.getKey());
                        if (j != null && j.agent != null) j.agent.releaseHeldBarrier();
                        LOG.warn("host {}: the host moving a node of {} left; released the held barrier", address(), h.getKey());
                    }
                }
                for (Map.Entry<String, Expected> x : expected.entrySet()) {
                    if (x.getValue().holder() == connection && expected.remove(x.getKey(), x.getValue())) {
                        x.getValue().agent().abandonMovedNode(x.getValue().moving());
                        LOG.warn("host {}: the host moving node {} left before the commit; {} keeps the old agent", address(),
                                x.getValue().moving(), x.getKey());
                    }
                }
                int n = stopVm(null, connection);
                if (n > 0) LOG.warn("host {}: launcher {} left; stopped its {} agent(s)", address(),
                        connection.remoteAddress(), n);
            });
        }
    }
}
