package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.agent.AgentMonitor;
import io.dsa.agent.AgentState;
import io.dsa.agent.DsaAgent;
import io.dsa.agent.HostPort;
import io.dsa.agent.TransferReport;
import io.dsa.agent.transport.Connection;
import io.dsa.agent.wire.AgentLaunchMessage;
import io.dsa.agent.wire.AgentRestoreMessage;
import io.dsa.agent.wire.AgentResumeMessage;
import io.dsa.agent.wire.AgentStartedMessage;
import io.dsa.agent.wire.ConnectPeersMessage;
import io.dsa.agent.wire.HostJobMessage;
import io.dsa.agent.wire.HostReplyMessage;
import io.dsa.agent.wire.HostStatusQueryMessage;
import io.dsa.agent.wire.AbandonMoveMessage;
import io.dsa.agent.wire.AdmitCloneMessage;
import io.dsa.agent.wire.AgentControlMessage;
import io.dsa.agent.wire.AwaitMoveMessage;
import io.dsa.agent.wire.CommitMoveMessage;
import io.dsa.agent.wire.ExpectMoveMessage;
import io.dsa.agent.wire.HoldBarrierMessage;
import io.dsa.agent.wire.HostStatusMessage;
import io.dsa.agent.wire.NodeRequestMessage;
import io.dsa.agent.wire.ReadArrayMessage;
import io.dsa.agent.wire.RegisterCloneMessage;
import io.dsa.agent.wire.ReleaseBarrierMessage;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.function.LongFunction;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The new host's side of a move or a clone (the paper's pull protocol, Sec. 3.3): it asks the
 * current host for the job, starts the agent's JVM here before the safe point (a program that does
 * not load costs no pause), coordinates the VM's other hosts through the steps of docs/hosts.md,
 * and on any failure gives everything back. Holds this host's connections to other hosts.
 */
final class TransferTarget {
    private static final Logger LOG = LoggerFactory.getLogger(TransferTarget.class);
    private static final long TIMEOUT_MS = AgentHost.TRANSFER_STEP_TIMEOUT_MS;

    private final AgentHost host;
    /** Authenticated connections this host dialled to other hosts, by address. */
    private final Map<String, Connection> peerHosts = new ConcurrentHashMap<>();

    TransferTarget(AgentHost host) { this.host = host; }

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

    /**
     * Pulls agent {@code agentId} here from {@code fromMonitor} while its job runs, coordinating
     * the VM's other hosts: node 0's host holds the safe point, every other node's host holds the
     * new agent's connection until the commit.
     *
     * @param vmHosts hosts where the VM's nodes may be (the launcher's list); the job's own list
     *        and the source are added
     */
    TransferReport acquire(String agentId, String fromMonitor, List<String> vmHosts) {
        if (host.closed.get()) throw new DsaException("host " + host.address() + " is shutting down");
        if (fromMonitor == null || fromMonitor.equals(host.address())) {
            throw new DsaException("agent " + agentId + " cannot move from host " + fromMonitor + " to itself");
        }
        if (host.jobs.containsKey(agentId)) throw new DsaException("host " + host.address() + " already serves agent " + agentId);
        AgentRef ref = AgentRef.parse(agentId);
        String vm = ref.vm();
        int node = ref.node();
        if (node == 0) {
            throw new DsaException("node 0 of vm '" + vm + "' cannot migrate: it is the monitor (registry, barrier root,"
                    + " lock home and the job's lifecycle); migrate nodes 1 and up");
        }
        AgentMonitor source = remote(fromMonitor);
        JobCodec.Job described;
        try {
            described = JobCodec.decode(source.beginTransfer(agentId));   // checks: runs there, resumable
        } catch (RuntimeException e) {
            throw notTaken(agentId, fromMonitor, e);
        }
        HostJobMessage m = described.message();
        HostedJob job = null;
        boolean held = false;
        Map<Integer, String> hostOf = Map.of();
        List<Integer> expecting = new ArrayList<>();
        try {
            job = new HostedJob(m, peer(fromMonitor), described.stopToken());
            host.launch(job, AgentLaunchMessage.MOVE_TARGET, node, limits -> { });   // before the safe point
            hostOf = locate(vm, m.nodes(), vmHosts, m, fromMonitor);
            if (!fromMonitor.equals(hostOf.get(node))) {
                throw new DsaException("node " + node + " of vm '" + vm + "' runs on " + hostOf.get(node) + ", not " + fromMonitor);
            }
            List<Integer> clones = hostOf.keySet().stream().filter(k -> k >= m.nodes()).toList();
            if (!clones.isEmpty()) {
                throw new DsaException("vm '" + vm + "' has clone(s) " + clones + ": a node cannot move while clones share its"
                        + " partitions (they know only its old address); see docs/hosts.md");
            }
            ask(hostOf.get(0), vm, 0, HoldBarrierMessage::new);
            held = true;
            long pauseStart = System.nanoTime();
            // the other nodes first, one after the other: each answers once none of its coherence requests is under
            // way, so that the old agent answers none after its snapshot (docs/runtime.md, "The safe point")
            for (int j = 0; j < m.nodes(); j++) {
                if (j == node) continue;
                expecting.add(j);
                ask(hostOf.get(j), vm, j, id -> new ExpectMoveMessage(id, node));
            }
            byte[] bytes = source.transferAgent(agentId);
            blockIfTesting("transferAgent");
            AgentStartedMessage restored = job.process.call(id -> new AgentRestoreMessage(id, -1, bytes), AgentStartedMessage.class,
                    TIMEOUT_MS);
            job.agentAddress = restored.address();
            job.process.call(ConnectPeersMessage::new, HostReplyMessage.class, TIMEOUT_MS);
            for (int j : expecting) ask(hostOf.get(j), vm, j, id -> new AwaitMoveMessage(id, node));
            // commit: from here the agent here is node `node`
            String newAddress = job.agentAddress;
            for (int j : expecting) ask(hostOf.get(j), vm, j, id -> new CommitMoveMessage(id, node, newAddress));
            expecting.clear();
            job.setState(HostedJob.State.RUNNING);
            if (host.jobs.putIfAbsent(agentId, job) != null) {
                throw new DsaException("host " + host.address() + " already serves agent " + agentId);
            }
            source.endTransfer(agentId);
            ask(hostOf.get(0), vm, 0, ReleaseBarrierMessage::new);
            held = false;
            job.process.call(AgentResumeMessage::new, HostReplyMessage.class, TIMEOUT_MS);
            TransferReport report = new TransferReport(agentId, fromMonitor, host.address(), System.nanoTime() - pauseStart,
                    bytes.length);
            LOG.info("host {}: {}", host.address(), report.describe("moved"));
            return report;
        } catch (RuntimeException | InterruptedException e) {
            if (e instanceof InterruptedException) Thread.currentThread().interrupt();
            for (int j : expecting) {
                try {
                    ask(hostOf.get(j), vm, j, id -> new AbandonMoveMessage(id, node));
                } catch (RuntimeException x) {
                    e.addSuppressed(x);
                }
            }
            if (job != null) host.finish(job, HostedJob.State.FAILED);
            throw notTaken(agentId, fromMonitor, giveBack(source, agentId, held ? hostOf.get(0) : null, vm, e));
        }
    }

    /**
     * Starts a clone of agent {@code agentId} (served by {@code fromMonitor}) on this host while
     * its job runs: at the VM's next plain global barrier (held at node 0's host) the current
     * host sends a clone's state (the agent's valid partitions as shared copies), every node
     * admits the clone's id, the clone connects to them, and every home registers it as a sharer
     * of the partitions it holds. The clone gets the next free node id ({@code >=} the VM's node
     * count), runs no workers, serves reads ({@link ReadArrayMessage}), and stops
     * when its VM's node 0 goes.
     *
     * @param vmHosts hosts where the VM's nodes may be; the job's own list and the source are added
     * @return the clone's id ({@code vm/cloneNode}), the hosts, the time the VM was held, the state's bytes
     */
    TransferReport cloneHere(String agentId, String fromMonitor, List<String> vmHosts) {
        if (host.closed.get()) throw new DsaException("host " + host.address() + " is shutting down");
        AgentRef ref = AgentRef.parse(agentId);
        String vm = ref.vm();
        int node = ref.node();
        RemoteAgentMonitor source = (RemoteAgentMonitor) remote(fromMonitor);
        JobCodec.Job described;
        try {
            described = JobCodec.decode(source.beginCloning(agentId));
        } catch (RuntimeException e) {
            throw notCloned(agentId, fromMonitor, e);
        }
        HostJobMessage m = described.message();
        boolean held = false;
        Map<Integer, String> hostOf = Map.of();
        HostedJob job = null;
        try {
            hostOf = locate(vm, m.nodes(), vmHosts, m, fromMonitor);
            if (!fromMonitor.equals(hostOf.get(node))) {
                throw new DsaException("node " + node + " of vm '" + vm + "' runs on " + hostOf.get(node) + ", not " + fromMonitor);
            }
            if (node >= m.nodes()) throw new DsaException("agent " + agentId + " is a clone; clone node 0 to " + (m.nodes() - 1));
            int cloneId = Math.max(m.nodes(), hostOf.keySet().stream().mapToInt(Integer::intValue).max().orElse(0) + 1);
            String cloneAgentId = DsaAgent.agentId(vm, cloneId);
            job = new HostedJob(new HostJobMessage(m.jobId(), vm, cloneId, m.nodes(), m.threadsPerNode(), m.monitorAddress(),
                    m.programClass(), m.args(), m.options(), new byte[0], m.heapBytes(), m.cpus()), null, described.stopToken());
            host.launch(job, AgentLaunchMessage.CLONE_TARGET, node, limits -> { });   // the JVM starts before the safe point
            ask(hostOf.get(0), vm, 0, HoldBarrierMessage::new);
            held = true;
            long pauseStart = System.nanoTime();
            byte[] bytes = source.transferClone(agentId, cloneId);
            AgentState state = AgentState.decode(bytes);
            for (int j = 0; j < m.nodes(); j++) ask(hostOf.get(j), vm, j, id -> new AdmitCloneMessage(id, cloneId));
            job.agentAddress = job.process.call(id -> new AgentRestoreMessage(id, cloneId, bytes), AgentStartedMessage.class,
                    TIMEOUT_MS).address();
            job.process.call(ConnectPeersMessage::new, HostReplyMessage.class, TIMEOUT_MS);
            long[] holds = HostRequests.pack(DsaAgent.clonePartitions(state));
            for (int j = 0; j < m.nodes(); j++) ask(hostOf.get(j), vm, j, id -> new RegisterCloneMessage(id, cloneId, holds));
            job.setState(HostedJob.State.CLONE);
            if (host.jobs.putIfAbsent(cloneAgentId, job) != null) {
                throw new DsaException("host " + host.address() + " already serves agent " + cloneAgentId);
            }
            source.endCloning(agentId);
            ask(hostOf.get(0), vm, 0, ReleaseBarrierMessage::new);
            held = false;
            TransferReport report = new TransferReport(cloneAgentId, fromMonitor, host.address(), System.nanoTime() - pauseStart,
                    bytes.length);
            LOG.info("host {}: {} of {}", host.address(), report.describe("cloned"), agentId);
            return report;
        } catch (RuntimeException e) {
            // the homes that registered the clone forget it when its connections close
            if (job != null) host.finish(job, HostedJob.State.FAILED);
            throw notCloned(agentId, fromMonitor, giveBack(source, agentId, held ? hostOf.get(0) : null, vm, e));
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
                ask(holder, vm, 0, ReleaseBarrierMessage::new);
            } catch (RuntimeException x) {
                e.addSuppressed(x);
            }
        }
        return e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
    }

    // Which host runs each node of the VM: asks every known host for its agents of the VM.
    private Map<Integer, String> locate(String vm, int nodes, List<String> vmHosts, HostJobMessage m, String source) {
        Set<String> candidates = new LinkedHashSet<>(vmHosts);
        candidates.add(source);
        for (String option : m.options()) {
            if (option.startsWith("hosts=")) candidates.addAll(List.of(option.substring(6).split(",")));
        }
        candidates.add(host.address());
        Map<Integer, String> hostOf = new TreeMap<>();
        List<String> unreachable = new ArrayList<>();
        for (String h : candidates) {
            if (h.isBlank()) continue;
            List<StatusRow> rows;
            try {
                rows = h.equals(host.address()) ? host.status(vm) : status(h, vm);
            } catch (RuntimeException e) {
                unreachable.add(h + " (" + e.getMessage() + ")");
                continue;
            }
            for (StatusRow r : rows) {
                if (r.serving()) hostOf.put(r.node(), h);
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
     * Fault injection for system tests: with {@code -D}{@value AgentHost#BLOCK_AFTER_PROPERTY}{@code =step},
     * the new host prints {@code blocked after step} and stops there for good, so a test can kill
     * it in the middle of a transfer. Never set in production.
     */
    private void blockIfTesting(String step) throws InterruptedException {
        if (!step.equals(System.getProperty(AgentHost.BLOCK_AFTER_PROPERTY))) return;
        System.out.println("host " + host.address() + " blocked after " + step);
        System.out.flush();
        new CountDownLatch(1).await();
    }

    private DsaException notTaken(String agentId, String fromMonitor, Throwable e) {
        return new DsaException("host " + host.address() + " could not take agent " + agentId + " from " + fromMonitor
                + " (it stays there): " + AgentHost.describe(e), e);
    }

    private DsaException notCloned(String agentId, String fromMonitor, Throwable e) {
        return new DsaException("host " + host.address() + " could not clone agent " + agentId + " from " + fromMonitor + ": "
                + AgentHost.describe(e), e);
    }

    // ---- connections to other hosts -------------------------------------------------------------

    /** @return this host's authenticated connection to the host at {@code address}, dialled on first use */
    Connection peer(String address) {
        HostPort hp = HostPort.parse(address);
        Connection c = peerHosts.get(address);
        if (c != null && c.isOpen()) return c;
        try {
            c = host.transport().connect(hp.host(), hp.port()).get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new DsaException("host " + address + ": " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new DsaException("host " + address + ": no connection after " + TIMEOUT_MS + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DsaException("host " + address + ": interrupted");
        }
        peerHosts.put(address, c);
        return c;
    }

    /** A connection closed: it is no longer a peer. */
    void forget(Connection connection) { peerHosts.values().remove(connection); }

    /** @return the monitor at {@code address}, over this host's authenticated transport */
    AgentMonitor remote(String address) {
        return new RemoteAgentMonitor(address, host.address(), peer(address), host.replies, TIMEOUT_MS);
    }

    /** Sends {@code step} for node {@code node} of {@code vm} to the host at {@code to} and waits for its answer. */
    private HostReplyMessage ask(String to, String vm, int node, LongFunction<AgentControlMessage> step) {
        Connection c = peer(to);
        long id = host.replies.open(c);
        AgentControlMessage m = step.apply(id);
        c.send(new NodeRequestMessage(vm, node, m));
        return host.replies.await(id, m.getClass().getSimpleName().replace("Message", "") + " for node " + node + " of vm '" + vm
                + "' on host " + to, TIMEOUT_MS + 10_000);
    }

    /** @return the host at {@code to}'s agents of {@code vm}, checked */
    private List<StatusRow> status(String to, String vm) {
        Connection c = peer(to);
        long id = host.replies.open(c);
        c.send(new HostStatusQueryMessage(id, vm));
        return StatusRow.checkAll(host.replies.await(id, "status of vm '" + vm + "' on host " + to, TIMEOUT_MS + 10_000,
                HostStatusMessage.class).rows());
    }
}
