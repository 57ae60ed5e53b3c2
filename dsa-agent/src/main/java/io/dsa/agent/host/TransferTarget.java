package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.agent.AgentMonitor;
import io.dsa.agent.HostPort;
import io.dsa.agent.TransferReport;
import io.dsa.agent.mobility.CloneChoreography;
import io.dsa.agent.mobility.MoveChoreography;
import io.dsa.agent.transport.Connection;
import io.dsa.agent.wire.AgentControlMessage;
import io.dsa.agent.wire.HostJobMessage;
import io.dsa.agent.wire.HostReplyMessage;
import io.dsa.agent.wire.HostStatusMessage;
import io.dsa.agent.wire.HostStatusQueryMessage;
import io.dsa.agent.wire.NodeRequestMessage;
import io.dsa.agent.wire.ReadArrayMessage;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongFunction;
import java.util.function.UnaryOperator;
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

    /** Wraps each move's port: the identity, except in a system test's host that fails a step on purpose. */
    private final UnaryOperator<MoveChoreography.Port> movePorts;

    TransferTarget(AgentHost host, UnaryOperator<MoveChoreography.Port> movePorts) {
        this.host = host;
        this.movePorts = movePorts;
    }

    /** An agent id {@code vm/node}, split. */
    record AgentRef(String vm, int node) {
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
     * the VM's other hosts ({@link HostMove}, driven by {@link MoveChoreography}): node 0's host
     * holds the safe point, every other node's host holds the new agent's connection until the commit.
     *
     * @param vmHosts hosts where the VM's nodes may be (the launcher's list); the job's own list
     *        and the source are added
     */
    TransferReport acquire(String agentId, String fromMonitor, List<String> vmHosts) {
        HostMove move = new HostMove(this, host, agentId, fromMonitor, vmHosts);
        MoveChoreography.create("move of " + agentId + " from " + fromMonitor + " to " + host.address(), movePorts.apply(move),
                move::failure).run();
        TransferReport report = move.report();
        LOG.info("host {}: {}", host.address(), report.describe("moved"));
        return report;
    }

    /**
     * Starts a clone of agent {@code agentId} (served by {@code fromMonitor}) on this host while
     * its job runs ({@link HostClone}, driven by {@link CloneChoreography}): at the VM's next plain
     * global barrier (held at node 0's host) the current host sends a clone's state (the agent's
     * valid partitions as shared copies), every node admits the clone's id, the clone connects to
     * them, and every home registers it as a sharer of the partitions it holds. The clone gets the
     * next free node id ({@code >=} the VM's node count), runs no workers, serves reads
     * ({@link ReadArrayMessage}), and stops when its VM's node 0 goes.
     *
     * @param vmHosts hosts where the VM's nodes may be; the job's own list and the source are added
     * @return the clone's id ({@code vm/cloneNode}), the hosts, the time the VM was held, the state's bytes
     */
    TransferReport cloneHere(String agentId, String fromMonitor, List<String> vmHosts) {
        HostClone clone = new HostClone(this, host, agentId, fromMonitor, vmHosts);
        CloneChoreography.create("clone of " + agentId + " from " + fromMonitor + " to " + host.address(), clone, clone::failure)
                .run();
        TransferReport report = clone.report();
        LOG.info("host {}: {} of {}", host.address(), report.describe("cloned"), agentId);
        return report;
    }

    // Which host runs each node of the VM: asks every known host for its agents of the VM.
    Map<Integer, String> locate(String vm, int nodes, List<String> vmHosts, HostJobMessage m, String source) {
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

    DsaException notTaken(String agentId, String fromMonitor, Throwable e) {
        return new DsaException("host " + host.address() + " could not take agent " + agentId + " from " + fromMonitor
                + " (it stays there): " + AgentHost.describe(e), e);
    }

    DsaException notCloned(String agentId, String fromMonitor, Throwable e) {
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
    HostReplyMessage ask(String to, String vm, int node, LongFunction<AgentControlMessage> step) {
        return ask(to, vm, node, step, HostReplyMessage.class);
    }

    /** As {@link #ask(String, String, int, LongFunction)}, for a step answered with an {@code answer} (or refused). */
    <T> T ask(String to, String vm, int node, LongFunction<AgentControlMessage> step, Class<T> answer) {
        Connection c = peer(to);
        long id = host.replies.open(c);
        AgentControlMessage m = step.apply(id);
        c.send(new NodeRequestMessage(vm, node, m));
        return host.replies.await(id, m.getClass().getSimpleName().replace("Message", "") + " for node " + node + " of vm '" + vm
                + "' on host " + to, TIMEOUT_MS + 10_000, answer);
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
