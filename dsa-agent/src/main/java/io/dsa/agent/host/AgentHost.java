package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.agent.AgentMonitor;
import io.dsa.agent.DsaAgent;
import io.dsa.agent.TransferReport;
import io.dsa.agent.mobility.MoveChoreography;
import io.dsa.agent.transport.Connection;
import io.dsa.agent.transport.InboundHandler;
import io.dsa.agent.transport.Transport;
import io.dsa.agent.transport.TransportConfig;
import io.dsa.agent.transport.TransportSecurity;
import io.dsa.agent.wire.AgentLaunchMessage;
import io.dsa.agent.wire.AgentStartedMessage;
import io.dsa.agent.wire.HostJobEventMessage;
import io.dsa.agent.wire.HostJobMessage;
import io.dsa.agent.wire.HostReplyMessage;
import io.dsa.agent.wire.HostStatusMessage;
import io.dsa.agent.wire.TransferReportMessage;
import io.dsa.agent.wire.NodeRequestMessage;
import io.dsa.agent.wire.HostStatusQueryMessage;
import io.dsa.agent.wire.JarQueryMessage;
import io.dsa.agent.wire.StopVmMessage;
import io.dsa.agent.wire.WorkersQueryMessage;
import io.dsa.agent.wire.CountersQueryMessage;
import io.dsa.agent.wire.TransferMessage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code dsa host} daemon: one {@link AgentMonitor} per host. Launchers holding the cluster
 * secret submit jobs to it ({@code dsa run --hosts}); it runs each job's {@link DsaAgent} in a JVM
 * of its own ({@link AgentProcess}: the host's runtime and class path, the job's heap and
 * processor limits, the shipped jar loaded there), supervises it over an authenticated loopback
 * connection, relays every control operation to it as a typed message, and reports back. A job
 * that exits, runs out of memory or crashes fails alone: the host and its other agents go on.
 * It serves agents of any number of VMs at once, one per {@code (vm, node)}.
 *
 * <p>Every connection to the host's port runs the transport's authenticated handshake with the
 * cluster secret (on the reserved VM name {@value #HOST_VM}); a peer without it is refused
 * before any request is decoded. Stopping a VM needs the stop token its launcher received with
 * {@link HostJobEventMessage#ACCEPTED}. When the launcher's connection closes, the host stops the
 * agents it submitted. Moves and clones: {@link TransferSource} (this host gives an agent away)
 * and {@link TransferTarget} (it takes one); requests of other hosts: {@link HostRequests}.
 */
public final class AgentHost implements AgentMonitor, AutoCloseable {
    /** The VM name of the host control channel's handshake. */
    public static final String HOST_VM = "dsa-host";
    /** Node id a host presents in its handshake. */
    static final int HOST_ID = 0;
    /** Node id a launcher presents in its handshake. */
    static final int CLIENT_ID = 1;
    /**
     * Columns of a status row, tab-separated, as {@code dsa status} prints them. A row has one
     * cell more, at {@link #STATUS_NODES_CELL}: how many nodes the VM has, so that a client can
     * tell a VM whose launcher is still submitting nodes from one that runs all of them.
     */
    public static final List<String> STATUS_COLUMNS =
            List.of("VM", "NODE", "HOST", "AGENT", "STATE", "PROGRAM", "HOMED", "CACHED");
    /** Index of a status row's cell after {@link #STATUS_COLUMNS}: the number of nodes of the row's VM. */
    public static final int STATUS_NODES_CELL = 8;
    /** The most elements one read request returns. */
    public static final int MAX_READ = 1 << 16;
    /** How long one transfer step may take. */
    static final long TRANSFER_STEP_TIMEOUT_MS = 60_000;
    /** How long a status request waits for one agent's JVM. */
    static final long STATUS_TIMEOUT_MS = 5_000;
    /** Random bytes of a stop token. */
    static final int STOP_TOKEN_BYTES = 16;

    private static final Logger LOG = LoggerFactory.getLogger(AgentHost.class);

    private final HostConfig config;
    private final byte[] secret;
    private final WorkDir workDir;
    /** The program jars jobs shipped, kept for the next jobs of the same program (in {@link #workDir}). */
    private final JarCache jars;
    private final Transport transport;
    /** The jobs' JVMs: a spare one started ahead with the default limits, new ones for other limits. */
    private final SpareJvms spares;
    private final SecureRandom random = new SecureRandom();
    /** The agents this host serves, by id {@code vm/node}. */
    final Map<String, HostedJob> jobs = new ConcurrentHashMap<>();
    /** Nodes that ended here, for a while: status tells a finished VM from an unknown one. */
    final FinishedJobs finished = new FinishedJobs(System::currentTimeMillis);
    private final HostStatus statusQueries = new HostStatus(this);
    /** Runs whatever blocks (starting a JVM, a transfer step): never the I/O threads. */
    final ExecutorService control = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "dsa-host-control");
        t.setDaemon(true);
        return t;
    });
    final AtomicBoolean closed = new AtomicBoolean();
    /** Requests this host sent to other hosts (transfer steps). */
    final Replies replies = new Replies();
    final TransferSource source = new TransferSource(this);
    final TransferTarget target;
    final HostRequests requests = new HostRequests(this);

    private AgentHost(HostConfig config, UnaryOperator<MoveChoreography.Port> movePorts) {
        this.config = config;
        this.target = new TransferTarget(this, movePorts);
        this.secret = config.secret();
        this.workDir = WorkDir.create(config.workDir());
        this.jars = new JarCache(workDir.path());
        try {
            this.transport = Transport.start(TransportConfig.builder().vmName(HOST_VM).nodeId(HOST_ID).secret(secret)
                    .security(config.security()).bindHost(config.bindHost()).port(config.port())
                    .failureTimeoutMs(config.failureTimeoutMs()).build(), new Inbound());
        } catch (RuntimeException e) {
            workDir.close();
            throw e;
        }
        this.spares = new SpareJvms(JobLimits.resolve(0, 0, config), secret, config.security(), control, address());
    }

    /**
     * Starts a host daemon listening on {@code bindHost:port}, with the default limits and work directory.
     *
     * @see #start(HostConfig)
     */
    public static AgentHost start(String bindHost, int port, byte[] secret) {
        return start(HostConfig.builder().bindHost(bindHost).port(port).secret(secret).build());
    }

    /**
     * Starts a host daemon as {@link #start(String, int, byte[])} does, whose connections (to
     * launchers, other hosts, its job JVMs, and between its agents and theirs) are protected with
     * {@code security}; peers must use the same.
     */
    public static AgentHost start(String bindHost, int port, byte[] secret, TransportSecurity security) {
        return start(HostConfig.builder().bindHost(bindHost).port(port).secret(secret).security(security).build());
    }

    /**
     * Starts a host daemon: removes the work directories of hosts that were killed, makes its own,
     * and listens on {@code config.bindHost():config.port()}; its agents listen on the bind host
     * too, on free ports, so it must be an address the other hosts can reach.
     *
     * @throws DsaException when the port cannot be bound or the work directory cannot be made private
     */
    public static AgentHost start(HostConfig config) {
        return start(config, UnaryOperator.identity());
    }

    /**
     * {@link #start(HostConfig)} whose moves run their steps through {@code movePorts.apply(port)}:
     * a system test's host that fails or stops at a chosen step wraps the port here.
     */
    static AgentHost start(HostConfig config, UnaryOperator<MoveChoreography.Port> movePorts) {
        AgentHost host = new AgentHost(config, movePorts);
        host.spares.prepare();
        return host;
    }

    @Override
    public String address() { return config.bindHost() + ":" + transport.boundAddress().getPort(); }

    /** @return this host's private work directory (shipped jars of running jobs) */
    public Path workDirectory() { return workDir.path(); }

    /** @return the ids ({@code vm/node}) of the agents this host serves now */
    public List<String> agentIds() { return List.copyOf(jobs.keySet()); }

    /**
     * @return one row per agent this host serves (columns {@link #STATUS_COLUMNS}),
     *         of {@code vmName} or all if null; each agent's JVM is asked for its partition counts.
     *         Then the nodes that ended here in the last {@link FinishedJobs#KEEP_MS} ms, in state
     *         DONE, FAILED or STOPPED, with {@code -} for the address and the counts.
     */
    public List<StatusRow> status(String vmName) { return statusQueries.status(vmName); }

    /**
     * @return where the workers of this host's agents of {@code vmName} are, node by node: each
     *         agent's JVM is asked for its lines ({@code DsaAgent.workerLines()}); an agent that is
     *         not running or does not answer within {@link #STATUS_TIMEOUT_MS} gets a line that says so
     */
    public List<String> workers(String vmName) { return statusQueries.workers(vmName); }

    /** @return the counts of this host's running agents (of {@code vmName}, or all if null), as {@code CountsRows} */
    public List<String> counters(String vmName) { return statusQueries.counters(vmName); }

    /** @return the ids of the agents that moved away from this host and whose events it relays */
    List<String> movedAway() { return source.movedAway(); }

    // ---- jobs ------------------------------------------------------------------------------------

    private void startJob(Connection owner, HostJobMessage shipped) {
        HostJobMessage m;
        try {
            m = jars.withKeptJar(shipped);
        } catch (RuntimeException e) {
            owner.send(event(shipped, HostJobEventMessage.FAILED, "node " + shipped.nodeId() + " cannot start on host " + address()
                    + ": " + describe(e)));
            return;
        }
        if (closed.get()) {
            owner.send(event(m, HostJobEventMessage.FAILED, "host " + address() + " is shutting down"));
            return;
        }
        String invalid = HostedJob.invalid(m);
        if (invalid != null) {
            owner.send(event(m, HostJobEventMessage.FAILED, "host " + address() + " refused the job: " + invalid));
            return;
        }
        HostedJob job = new HostedJob(m, owner, stopToken(m.vmName(), owner));
        if (jobs.putIfAbsent(job.id(), job) != null) {
            owner.send(event(m, HostJobEventMessage.FAILED, "host " + address() + " already serves node " + m.nodeId()
                    + " of vm '" + m.vmName() + "'; stop that vm or choose another name with --vm"));
            return;
        }
        try {
            java.util.function.Consumer<JobLimits> accepted = limits -> owner.send(new HostJobEventMessage(m.jobId(), m.nodeId(),
                    HostJobEventMessage.ACCEPTED, job.stopToken, limits.notes(), new long[0]));
            int clone = HostedJob.promotedClone(m);
            if (clone < 0) launch(job, AgentLaunchMessage.RUN, m.nodeId(), accepted);
            else promote(job, clone, accepted);
        } catch (RuntimeException e) {
            finish(job, HostedJob.State.FAILED);
            job.announced.complete(null);
            owner.send(event(m, HostJobEventMessage.FAILED, "node " + m.nodeId() + " cannot start on host " + address()
                    + ": " + describe(e)));
            return;
        }
        if (job.state == HostedJob.State.STARTING) job.setState(HostedJob.State.RUNNING);
        LOG.info("host {}: node {} of vm '{}' runs {} at {} (pid {})", address(), m.nodeId(), m.vmName(), m.programClass(),
                job.agentAddress, job.process.pid());
        owner.send(event(m, HostJobEventMessage.STARTED, job.agentAddress));
        job.announced.complete(null);
    }

    /** @return whether this host keeps the program jar whose SHA-256 is {@code digest} */
    boolean keepsJar(byte[] digest) { return jars.has(digest); }

    /**
     * Starts the JVM of {@code job} and hands it the job: writes the shipped jar to the work
     * directory (if any), applies the limits (capped by this host), and waits for the JVM's
     * answer. For {@link AgentLaunchMessage#RUN} the agent runs when this returns.
     *
     * @param configNode the node id of the agent's config (a clone's is the node it copies)
     * @param accepted told the limits once they are known, before the JVM starts
     * @throws DsaException when the JVM cannot start or refuses the job (with the reason)
     */
    void launch(HostedJob job, int mode, int configNode, java.util.function.Consumer<JobLimits> accepted) {
        try {
            startProcess(job, mode, configNode, accepted);
        } finally {
            if (mode != AgentLaunchMessage.RUN) job.announced.complete(null);   // no STARTED goes out for a target
        }
    }

    private void startProcess(HostedJob job, int mode, int configNode, java.util.function.Consumer<JobLimits> accepted) {
        HostJobMessage m = job.job;
        JobLimits limits = JobLimits.resolve(m.heapBytes(), m.cpus(), config);
        accepted.accept(limits);
        if (m.jar().length > 0) job.jarFile = workDir.writeJar(m.vmName(), m.nodeId(), m.jar());
        AgentProcess p = spares.take(limits);
        p.assign(m.vmName(), m.nodeId(), e -> onOutcome(job, e));
        job.process = p;
        p.ended().thenAccept(how -> control.execute(() -> onEnded(job, how)));
        if (closed.get() || job.state == HostedJob.State.STOPPED) throw new DsaException("the job was stopped while it started");
        call(job, mode, configNode, p);
    }

    /**
     * A restart's node {@code job} starts in the JVM of clone {@code cloneId} of its VM, which keeps
     * a copy of the node's checkpoint in memory (docs/failures.md, "Clone promotion"): the clone's
     * JVM is taken from the clone's entry (which ends without stopping it), the job's jar is written,
     * and the JVM is told to launch the node; it closes the clone's agent and restarts the node from
     * its copy. Like {@link #launch}, the agent runs when this returns.
     *
     * @throws DsaException when this host runs no such clone, or the JVM refuses (with its reason)
     */
    private void promote(HostedJob job, int cloneId, java.util.function.Consumer<JobLimits> accepted) {
        HostJobMessage m = job.job;
        HostedJob clone = jobs.get(DsaAgent.agentId(m.vmName(), cloneId));
        AgentProcess p = clone == null ? null : clone.process;
        if (clone == null || clone.state != HostedJob.State.CLONE || p == null || !p.usable()) {
            throw new DsaException("host " + address() + " runs no clone " + cloneId + " of vm '" + m.vmName() + "' to promote to node "
                    + m.nodeId());
        }
        accepted.accept(JobLimits.resolve(m.heapBytes(), m.cpus(), config));
        synchronized (clone) {
            clone.setState(HostedJob.State.MOVED);   // its JVM goes on as node k: the clone's entry ends without ending it
            clone.process = null;
        }
        jobs.remove(clone.id(), clone);
        if (m.jar().length > 0) job.jarFile = workDir.writeJar(m.vmName(), m.nodeId(), m.jar());
        p.assign(m.vmName(), m.nodeId(), e -> onOutcome(job, e));
        job.process = p;
        p.ended().thenAccept(how -> control.execute(() -> onEnded(job, how)));
        if (closed.get() || job.state == HostedJob.State.STOPPED) throw new DsaException("the job was stopped while it started");
        call(job, AgentLaunchMessage.RUN, m.nodeId(), p);
        LOG.info("host {}: clone {} of vm '{}' promoted to node {}", address(), cloneId, m.vmName(), m.nodeId());
    }

    // Tells the job's JVM to launch its agent, and records the answer.
    private void call(HostedJob job, int mode, int configNode, AgentProcess p) {
        HostJobMessage m = job.job;
        List<String> options = new ArrayList<>(m.options());
        options.add(ChildAgent.HOST_ADDRESS + "=" + address());
        AgentStartedMessage started = p.call(id -> new AgentLaunchMessage(id, mode, m.vmName(), configNode, m.nodes(),
                m.threadsPerNode(), m.monitorAddress(), config.bindHost(), m.programClass(), m.args(), options,
                job.jarFile == null ? "" : job.jarFile.toString()), AgentStartedMessage.class, AgentProcess.START_TIMEOUT_MS);
        job.agentAddress = started.address();
        job.resumable = started.resumable();
    }

    // On the I/O thread: recorded at once, so that the JVM's exit, handled later, sees it.
    private void onOutcome(HostedJob job, HostJobEventMessage e) {
        if (e.event() == HostJobEventMessage.PROGRESS) {
            if (job.owner != null && job.progressDue(System.nanoTime())) {
                String line = e.text().length() > HostJobEventMessage.MAX_PROGRESS_CHARS
                        ? e.text().substring(0, HostJobEventMessage.MAX_PROGRESS_CHARS) : e.text();
                job.owner.send(new HostJobEventMessage(job.job.jobId(), job.job.nodeId(), HostJobEventMessage.PROGRESS, line, List.of(),
                        new long[0]));
            }
            return;
        }
        if (e.event() == HostJobEventMessage.CHECKPOINTED || e.event() == HostJobEventMessage.RESUMED) {   // not an outcome
            if (job.owner != null) job.owner.send(new HostJobEventMessage(job.job.jobId(), job.job.nodeId(), e.event(), e.text(), e.lines(), e.timings()));
            return;
        }
        if (job.outcome != null) {   // one outcome per job; a JVM that sends more is not believed twice
            LOG.warn("host {}: the JVM of {} sent a second outcome; dropped", address(), job.id());
            return;
        }
        job.outcome = e;
        control.execute(() -> report(job, e));
    }

    private void report(HostedJob job, HostJobEventMessage e) {
        job.announced.completeOnTimeout(null, TRANSFER_STEP_TIMEOUT_MS, TimeUnit.MILLISECONDS).join();
        // A node in a transfer loses its old connections at the commit, before endTransfer tells
        // this host: its outcome counts only if the transfer was aborted.
        job.awaitNotSuspended(TRANSFER_STEP_TIMEOUT_MS);
        if (job.state == HostedJob.State.MOVED) return;   // the node's new host reports its outcome
        boolean done = e.event() == HostJobEventMessage.DONE;
        HostJobMessage m = job.job;
        if (job.owner != null) {
            job.owner.send(new HostJobEventMessage(m.jobId(), m.nodeId(), done ? HostJobEventMessage.DONE : HostJobEventMessage.FAILED,
                    e.text(), e.lines(), e.timings()));
        }
        finish(job, done ? HostedJob.State.DONE : HostedJob.State.FAILED);
    }

    // The job's JVM has exited: without an outcome it failed, with how it ended; its files go.
    private void onEnded(HostedJob job, String how) {
        job.announced.completeOnTimeout(null, TRANSFER_STEP_TIMEOUT_MS, TimeUnit.MILLISECONDS).join();   // a start that failed said why
        if (job.outcome == null) {
            job.awaitNotSuspended(TRANSFER_STEP_TIMEOUT_MS);
            switch (job.state) {
                case MOVED, STOPPED, DONE, FAILED -> { }
                case CLONE -> LOG.info("host {}: clone {} stopped: {}", address(), job.id(), how);
                default -> {
                    LOG.warn("host {}: {}", address(), how);
                    if (job.owner != null) job.owner.send(event(job.job, HostJobEventMessage.EXITED, how));
                }
            }
        }
        finish(job, job.state == HostedJob.State.CLONE ? HostedJob.State.STOPPED : HostedJob.State.FAILED);
        if (job.jarFile != null) workDir.delete(job.jarFile);
        job.ended.countDown();
    }

    /**
     * Takes the job off this host: its state becomes {@code state} (unless it moved away or ended;
     * a stopped node that had sent its outcome ends with it: {@link HostedJob#end}), it leaves the
     * status, and its JVM is ended (it closes its agent and exits; killed if it lingers).
     */
    void finish(HostedJob job, HostedJob.State state) {
        HostedJob.State ended = job.end(state);
        if (jobs.remove(job.id(), job) && ended != HostedJob.State.MOVED) {
            finished.add(job.job.vmName(), job.job.nodeId(), job.job.nodes(), address(), ended.name(), job.job.programClass(),
                    job.stopToken);
        }
        AgentProcess p = job.process;
        if (p != null) {
            p.end();
        } else if (job.ended.getCount() > 0) {
            if (job.jarFile != null) workDir.delete(job.jarFile);
            job.ended.countDown();
        }
    }

    /** @return the stop token of {@code vm}'s jobs from {@code owner} on this host, or a fresh one */
    private String stopToken(String vm, Connection owner) {
        for (HostedJob j : jobs.values()) {
            if (j.owner == owner && j.job.vmName().equals(vm)) return j.stopToken;
        }
        byte[] token = new byte[STOP_TOKEN_BYTES];
        random.nextBytes(token);
        return HexFormat.of().formatHex(token);
    }

    /** Stops the agents of {@code vmName} (all if null) submitted over {@code owner} (any if null). @return how many */
    int stopVm(String vmName, Connection owner) {
        int stopped = 0;
        for (HostedJob j : jobs.values()) {
            if ((vmName == null || vmName.equals(j.job.vmName())) && (owner == null || owner == j.owner)) {
                finish(j, HostedJob.State.STOPPED);
                stopped++;
            }
        }
        return stopped;
    }

    /**
     * Stops the agents of {@code vmName} whose stop token is {@code token}, but the clones whose ids
     * are in {@code keep} (a launcher restarting the VM promotes them; docs/failures.md, "Clone promotion").
     *
     * @return a summary
     * @throws DsaException when the VM runs here and the token is missing or matches none of its agents,
     *         running or ended within {@link FinishedJobs#KEEP_MS}
     */
    String stopVmWithToken(String vmName, String token, long[] keep) {
        List<HostedJob> ofVm = jobs.values().stream().filter(j -> j.job.vmName().equals(vmName)).toList();
        if (ofVm.isEmpty()) return "stopped 0 agent(s) of vm '" + vmName + "'";
        if (token == null || token.isBlank()) {
            throw new DsaException("stopping vm '" + vmName + "' on host " + address() + " needs the stop token its launcher"
                    + " received when it submitted the job; none was given");
        }
        byte[] given = token.getBytes(StandardCharsets.US_ASCII);
        int stopped = 0;
        int kept = 0;
        for (HostedJob j : ofVm) {
            if (MessageDigest.isEqual(given, j.stopToken.getBytes(StandardCharsets.US_ASCII))) {
                if (j.state == HostedJob.State.CLONE && java.util.Arrays.stream(keep).anyMatch(id -> id == j.job.nodeId())) {
                    kept++;
                    continue;
                }
                finish(j, HostedJob.State.STOPPED);
                stopped++;
            }
        }
        if (kept > 0) {
            LOG.info("host {}: kept {} clone(s) of vm '{}' for a promotion", address(), kept, vmName);
            return "stopped " + stopped + " agent(s) of vm '" + vmName + "', kept " + kept + " clone(s) to promote";
        }
        if (stopped == 0 && finished.endedWithToken(vmName, given)) {
            // its launcher's nodes here ended on their own first (a node lost fails the job everywhere): nothing to stop,
            // and the token is right; other agents of the VM (a clone under another node's token) are not its to stop
            LOG.info("host {}: the agents of vm '{}' with the stop token given had ended", address(), vmName);
            return "stopped 0 agent(s) of vm '" + vmName + "': those of this stop token had ended";
        }
        if (stopped == 0) {
            throw new DsaException("wrong stop token for vm '" + vmName + "' on host " + address()
                    + ": only the launcher that submitted it can stop it");
        }
        LOG.info("host {}: stopped {} agent(s) of vm '{}' at its launcher's request", address(), stopped, vmName);
        return "stopped " + stopped + " agent(s) of vm '" + vmName + "'";
    }

    static HostJobEventMessage event(HostJobMessage m, int event, String text) {
        return new HostJobEventMessage(m.jobId(), m.nodeId(), event, text, List.of(), new long[0]);
    }

    static String describe(Throwable e) {
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }

    /** @return the running job of node {@code node} of {@code vm} on this host, which takes part in a move or a read */
    HostedJob part(String vm, int node) {
        HostedJob j = jobs.get(DsaAgent.agentId(vm, node));
        if (j == null || j.process == null || j.agentAddress == null || j.state == HostedJob.State.MOVED) {
            throw new DsaException("host " + address() + " does not run node " + node + " of vm '" + vm + "'");
        }
        return j;
    }

    // ---- AgentMonitor ----------------------------------------------------------------------------

    @Override
    public TransferReport requestTransfer(String agentId, String fromMonitor) {
        return target.acquire(agentId, fromMonitor, List.of());
    }

    @Override
    public TransferReport requestClone(String agentId, String fromMonitor) {
        return target.cloneHere(agentId, fromMonitor, List.of());
    }

    @Override
    public byte[] beginTransfer(String agentId) { return source.begin(agentId, false, null); }

    @Override
    public byte[] transferAgent(String agentId) { return source.transfer(agentId, -1); }

    @Override
    public void endTransfer(String agentId) { source.end(agentId); }

    @Override
    public void endCloning(String agentId) { source.endCloning(agentId); }

    @Override
    public void abortTransfer(String agentId) { source.abort(agentId); }

    /** @return the monitor at {@code address}, over this host's authenticated transport */
    AgentMonitor remote(String address) { return target.remote(address); }

    /** @return this host's transport (to dial other hosts) */
    Transport transport() { return transport; }

    /**
     * Stops every agent this host serves (their JVMs end; those that linger are killed), deletes
     * its work directory and closes its port. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        spares.close();
        source.abortAll();
        List<HostedJob> all = List.copyOf(jobs.values());
        int stopped = stopVm(null, null);
        for (HostedJob j : all) {
            try {
                if (!j.ended.await(AgentProcess.GRACE_MS + STATUS_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                    LOG.warn("host {}: the JVM of {} did not end in time", address(), j.id());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        LOG.info("host {} stopping: {} agent(s) stopped", address(), stopped);
        workDir.close();
        transport.close();
        replies.failAll("host " + address() + " stopped");
        control.shutdownNow();
    }

    private final class Inbound implements InboundHandler {
        @Override
        public void onMessage(Connection connection, Object message) {
            // Starting an agent and running a transfer block: never on the I/O thread.
            if (message instanceof HostJobMessage m) control.execute(() -> startJob(connection, m));
            else if (message instanceof HostStatusQueryMessage r) control.execute(() -> requests.onStatusQuery(connection, r));
            else if (message instanceof StopVmMessage r) control.execute(() -> requests.onStopVm(connection, r));
            else if (message instanceof JarQueryMessage r) control.execute(() -> requests.onJarQuery(connection, r));
            else if (message instanceof WorkersQueryMessage r) control.execute(() -> requests.onWorkersQuery(connection, r));
            else if (message instanceof CountersQueryMessage r) control.execute(() -> requests.onCountersQuery(connection, r));
            else if (message instanceof TransferMessage t) control.execute(() -> requests.onTransfer(connection, t));
            else if (message instanceof NodeRequestMessage r) control.execute(() -> requests.onNodeRequest(connection, r));
            else if (message instanceof HostReplyMessage r) replies.onReply(r);
            else if (message instanceof HostStatusMessage r) replies.onAnswer(r.requestId(), r);
            else if (message instanceof TransferReportMessage r) replies.onAnswer(r.requestId(), r);
            else if (message instanceof io.dsa.agent.wire.CloneIdMessage r) replies.onAnswer(r.requestId(), r);
            else if (message instanceof HostJobEventMessage e) source.relay(connection, e);
            else {
                LOG.warn("host {}: unexpected {} from {}; closing that connection", address(),
                        message.getClass().getSimpleName(), connection.remoteAddress());
                connection.close();
            }
        }

        @Override
        public void onDisconnected(Connection connection, Throwable cause) {
            if (closed.get()) return;
            target.forget(connection);
            replies.failVia(connection, "host " + connection.remoteAddress() + " closed the connection");
            control.execute(() -> {
                source.onTakerLeft(connection);
                requests.onMoverLeft(connection);
                int n = stopVm(null, connection);
                if (n > 0) LOG.warn("host {}: launcher {} left; stopped its {} agent(s)", address(), connection.remoteAddress(), n);
            });
        }
    }
}
