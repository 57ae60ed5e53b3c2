package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.agent.DsaAgent;
import io.dsa.agent.transport.Connection;
import io.dsa.agent.wire.AbandonMoveMessage;
import io.dsa.agent.wire.AdmitCloneMessage;
import io.dsa.agent.wire.AgentControlMessage;
import io.dsa.agent.wire.AllocateCloneIdMessage;
import io.dsa.agent.wire.AwaitMoveMessage;
import io.dsa.agent.wire.CloneIdMessage;
import io.dsa.agent.wire.CommitMoveMessage;
import io.dsa.agent.wire.CountersQueryMessage;
import io.dsa.agent.wire.ElementsMessage;
import io.dsa.agent.wire.ExpectMoveMessage;
import io.dsa.agent.wire.HoldBarrierMessage;
import io.dsa.agent.wire.HostReplyMessage;
import io.dsa.agent.wire.HostStatusMessage;
import io.dsa.agent.wire.HostStatusQueryMessage;
import io.dsa.agent.wire.JarQueryMessage;
import io.dsa.agent.wire.NodeRequestMessage;
import io.dsa.agent.wire.ReadArrayMessage;
import io.dsa.agent.wire.RegisterCloneMessage;
import io.dsa.agent.wire.ReleaseBarrierMessage;
import io.dsa.agent.wire.StopVmMessage;
import io.dsa.agent.wire.TransferMessage;
import io.dsa.agent.wire.WorkersQueryMessage;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A host's answers to the requests of launchers and other hosts: one handler per request type
 * ({@link HostStatusQueryMessage}, {@link StopVmMessage}, {@link WorkersQueryMessage},
 * {@link CountersQueryMessage}, {@link NodeRequestMessage}, {@link TransferMessage}). The typed steps that concern an agent
 * (a safe point, a move's or a clone's step at another node, a read) go on to the agent's JVM
 * under the host's own request id, one handler per step type; their answers come back as the
 * reply. Runs on the host's control threads.
 */
final class HostRequests {
    private static final Logger LOG = LoggerFactory.getLogger(HostRequests.class);
    /** A step the agent's JVM waits on itself (a safe point) gets this much more for the round trip. */
    private static final long ROUND_TRIP_MS = 5_000;

    private final AgentHost host;
    /** Global barriers held at this host's node 0 agents for a move, by agent id, with who asked. */
    private final Map<String, Connection> holds = new ConcurrentHashMap<>();
    /** Moves that this host's agents expect, armed by a new host. */
    private final Map<String, Expected> expected = new ConcurrentHashMap<>();

    /** A move of node {@code moving} that the agent of another node ({@code job}) expects, armed by {@code holder}. */
    private record Expected(Connection holder, HostedJob job, int moving) {}

    HostRequests(AgentHost host) { this.host = host; }

    /** Lists this host's agents (of one VM, or all). */
    void onStatusQuery(Connection from, HostStatusQueryMessage r) {
        answer(from, r.requestId(), () -> new HostStatusMessage(r.requestId(),
                host.status(r.vmName()).stream().map(StatusRow::toWire).toList()));
    }

    /** Stops this host's agents of a VM, if the token is the VM's. */
    void onStopVm(Connection from, StopVmMessage r) {
        answer(from, r.requestId(), () -> ok(r.requestId(), host.stopVmWithToken(r.vmName(), r.stopToken(), r.keep()), List.of()));
    }

    /** Whether this host keeps a program jar: one byte, 1 or 0 (see {@link JarQueryMessage}). */
    void onJarQuery(Connection from, JarQueryMessage r) {
        answer(from, r.requestId(), () -> {
            if (r.digest() == null || r.digest().length != JarCache.DIGEST_BYTES) {
                throw new IllegalArgumentException("a jar digest of " + (r.digest() == null ? 0 : r.digest().length)
                        + " bytes: SHA-256 has " + JarCache.DIGEST_BYTES);
            }
            return new HostReplyMessage(r.requestId(), true, "", List.of(), new byte[] {(byte) (host.keepsJar(r.digest()) ? 1 : 0)});
        });
    }

    /** Where the workers of this host's agents are: lines for people. */
    void onWorkersQuery(Connection from, WorkersQueryMessage r) {
        answer(from, r.requestId(), () -> ok(r.requestId(), "", host.workers(r.vmName())));
    }

    /** The counts of this host's agents. */
    void onCountersQuery(Connection from, CountersQueryMessage r) {
        answer(from, r.requestId(), () -> ok(r.requestId(), "", host.counters(r.vmName())));
    }

    /** Sends what {@code handler} answers, or a refusal naming why it failed. */
    private static void answer(Connection from, long requestId, java.util.function.Supplier<Object> handler) {
        Object answer;
        try {
            answer = handler.get();
        } catch (RuntimeException e) {
            answer = refused(requestId, e);
        }
        from.send(answer);
    }

    /** A typed step at one of this host's agents: one handler per step type; the answer goes back with the request's id. */
    void onNodeRequest(Connection from, NodeRequestMessage r) {
        try {
            AgentControlMessage step = r.step();
            Object answer;
            if (step instanceof HoldBarrierMessage) answer = holdBarrier(from, r);
            else if (step instanceof ReleaseBarrierMessage) answer = releaseBarrier(r);
            else if (step instanceof ExpectMoveMessage x) answer = expectMove(from, r, x);
            else if (step instanceof AwaitMoveMessage x) answer = awaitMove(r, x);
            else if (step instanceof CommitMoveMessage x) answer = commitMove(r, x);
            else if (step instanceof AbandonMoveMessage x) answer = abandonMove(r, x);
            else if (step instanceof AdmitCloneMessage x) answer = ask(r, id -> new AdmitCloneMessage(id, x.cloneId()));
            else if (step instanceof RegisterCloneMessage x) answer = ask(r, id -> new RegisterCloneMessage(id, x.cloneId(), x.partitions()));
            else if (step instanceof ReadArrayMessage x) answer = read(r, x);
            else if (step instanceof AllocateCloneIdMessage) answer = allocateCloneId(r);
            else throw new DsaException("no host handler for step " + step.getClass().getSimpleName());
            if (answer instanceof HostReplyMessage h) answer = new HostReplyMessage(r.requestId(), true, h.text(), h.rows(), h.payload());
            from.send(answer);
        } catch (RuntimeException e) {
            from.send(refused(r.requestId(), e));
        }
    }

    private HostReplyMessage releaseBarrier(NodeRequestMessage r) {
        HostReplyMessage released = ask(r, ReleaseBarrierMessage::new);
        holds.remove(DsaAgent.agentId(r.vmName(), r.nodeId()));
        return released;
    }

    private HostReplyMessage expectMove(Connection from, NodeRequestMessage r, ExpectMoveMessage x) {
        HostedJob j = host.part(r.vmName(), r.nodeId());
        HostReplyMessage armed = ask(r, id -> new ExpectMoveMessage(id, x.movingNode()));
        expected.put(expectKey(r.vmName(), r.nodeId(), x.movingNode()), new Expected(from, j, x.movingNode()));
        return armed;
    }

    private HostReplyMessage awaitMove(NodeRequestMessage r, AwaitMoveMessage x) {
        if (!expected.containsKey(expectKey(r.vmName(), r.nodeId(), x.movingNode()))) {
            throw new DsaException("node " + r.nodeId() + " expects no move of node " + x.movingNode());
        }
        return ask(r, id -> new AwaitMoveMessage(id, x.movingNode()));
    }

    /**
     * @return the new address of a move's commit, normalised {@code host:port}
     * @throws DsaException naming the moving node and the address when it is absent or not {@code host:port}
     */
    static String commitAddress(CommitMoveMessage x) {
        if (x.address() == null) throw new DsaException("commit of the move of node " + x.movingNode() + " names no address");
        try {
            return StatusRow.address(x.address(), "address");
        } catch (IllegalArgumentException e) {
            throw new DsaException("commit of the move of node " + x.movingNode() + " to '" + StatusRow.shown(x.address()) + "': "
                    + e.getMessage());
        }
    }

    private HostReplyMessage commitMove(NodeRequestMessage r, CommitMoveMessage x) {
        String address = commitAddress(x);
        expected.remove(expectKey(r.vmName(), r.nodeId(), x.movingNode()));
        return ask(r, id -> new CommitMoveMessage(id, x.movingNode(), address));
    }

    private HostReplyMessage abandonMove(NodeRequestMessage r, AbandonMoveMessage x) {
        expected.remove(expectKey(r.vmName(), r.nodeId(), x.movingNode()));
        return ask(r, id -> new AbandonMoveMessage(id, x.movingNode()));
    }

    // The agent's JVM answers with the elements; they go back under the caller's request id.
    private ElementsMessage read(NodeRequestMessage r, ReadArrayMessage x) {
        ElementsMessage m = host.part(r.vmName(), r.nodeId()).process.call(id -> new ReadArrayMessage(id, x.name(), x.from(), x.count()),
                ElementsMessage.class, AgentHost.TRANSFER_STEP_TIMEOUT_MS + ROUND_TRIP_MS);
        return new ElementsMessage(r.requestId(), m.from(), m.elementType(), m.bits());
    }

    // Node 0's host: the agent hands out the id; it goes back under the caller's request id.
    private CloneIdMessage allocateCloneId(NodeRequestMessage r) {
        CloneIdMessage m = host.part(r.vmName(), r.nodeId()).process.call(AllocateCloneIdMessage::new, CloneIdMessage.class,
                AgentHost.TRANSFER_STEP_TIMEOUT_MS + ROUND_TRIP_MS);
        return new CloneIdMessage(r.requestId(), m.cloneId());
    }

    // Node 0's host: the agent holds the next global barrier's release and answers at the safe point.
    private HostReplyMessage holdBarrier(Connection from, NodeRequestMessage r) {
        String id = DsaAgent.agentId(r.vmName(), r.nodeId());
        HostedJob j = host.part(r.vmName(), r.nodeId());
        if (j.state != HostedJob.State.RUNNING) {
            throw new DsaException("vm '" + r.vmName() + "' reached no safe point: its node " + r.nodeId() + " is " + j.state);
        }
        holds.put(id, from);
        try {
            return j.process.call(HoldBarrierMessage::new, HostReplyMessage.class, AgentHost.TRANSFER_STEP_TIMEOUT_MS + ROUND_TRIP_MS);
        } catch (RuntimeException e) {
            holds.remove(id, from);
            throw e;
        }
    }

    /** Sends the step to the JVM of the request's node and returns its answer. */
    private HostReplyMessage ask(NodeRequestMessage r, LongFunction<AgentControlMessage> step) {
        return host.part(r.vmName(), r.nodeId()).process.call(step, HostReplyMessage.class,
                AgentHost.TRANSFER_STEP_TIMEOUT_MS + ROUND_TRIP_MS);
    }

    /** The host moving a node left: release its safe point and drop the connections it armed. */
    void onMoverLeft(Connection connection) {
        for (Map.Entry<String, Connection> h : holds.entrySet()) {
            if (h.getValue() == connection && holds.remove(h.getKey(), connection)) {
                HostedJob j = host.jobs.get(h.getKey());
                try {
                    if (j != null && j.process != null) {
                        j.process.call(ReleaseBarrierMessage::new, HostReplyMessage.class, AgentHost.TRANSFER_STEP_TIMEOUT_MS);
                    }
                    LOG.warn("host {}: the host moving a node of {} left; released the held barrier", host.address(), h.getKey());
                } catch (RuntimeException e) {
                    LOG.warn("host {}: cannot release the barrier held at {}: {}", host.address(), h.getKey(), e.getMessage());
                }
            }
        }
        for (Map.Entry<String, Expected> x : expected.entrySet()) {
            Expected e = x.getValue();
            if (e.holder() == connection && expected.remove(x.getKey(), e)) {
                try {
                    e.job().process.call(id -> new AbandonMoveMessage(id, e.moving()), HostReplyMessage.class,
                            AgentHost.TRANSFER_STEP_TIMEOUT_MS);
                    LOG.warn("host {}: the host moving node {} left before the commit; {} keeps the old agent", host.address(),
                            e.moving(), e.job().id());
                } catch (RuntimeException ex) {
                    LOG.warn("host {}: cannot abandon the move of node {} at {}: {}", host.address(), e.moving(), e.job().id(),
                            ex.getMessage());
                }
            }
        }
    }

    void onTransfer(Connection from, TransferMessage t) {
        try {
            Object reply = switch (t.op()) {
                case TransferMessage.REQUEST_TRANSFER -> RemoteAgentMonitor.toWire(t.requestId(),
                        host.target.acquire(t.agentId(), t.fromMonitor(), t.vmHosts()));
                case TransferMessage.REQUEST_CLONE -> RemoteAgentMonitor.toWire(t.requestId(),
                        host.target.cloneHere(t.agentId(), t.fromMonitor(), t.vmHosts()));
                case TransferMessage.BEGIN_TRANSFER -> new HostReplyMessage(t.requestId(), true, "", List.of(),
                        host.source.begin(t.agentId(), t.cloning(), from));
                case TransferMessage.TRANSFER_AGENT -> new HostReplyMessage(t.requestId(), true, "", List.of(),
                        host.source.transfer(t.agentId(), t.cloneId()));
                case TransferMessage.END_TRANSFER -> {
                    host.source.end(t.agentId());
                    yield ok(t.requestId(), "", List.of());
                }
                case TransferMessage.END_CLONING -> {
                    host.source.endCloning(t.agentId());
                    yield ok(t.requestId(), "", List.of());
                }
                case TransferMessage.ABORT_TRANSFER -> {
                    host.source.abort(t.agentId());
                    yield ok(t.requestId(), "", List.of());
                }
                default -> throw new DsaException("unknown transfer op " + t.op() + ", expected 1 to 7");
            };
            from.send(reply);
        } catch (RuntimeException e) {
            LOG.warn("host {}: {} of {} from {} refused: {}", host.address(), RemoteAgentMonitor.step(t.op()), t.agentId(),
                    from.remoteAddress(), e.getMessage());
            from.send(refused(t.requestId(), e));
        }
    }

    private static String expectKey(String vm, int node, int moving) { return vm + "/" + node + "<-" + moving; }

    /** @return the clone's partitions in {@link RegisterCloneMessage}'s packed form */
    static long[] pack(Map<Integer, int[]> held) {
        int n = held.values().stream().mapToInt(p -> p.length).sum();
        long[] packed = new long[n];
        int i = 0;
        for (Map.Entry<Integer, int[]> a : held.entrySet()) {
            for (int p : a.getValue()) packed[i++] = RegisterCloneMessage.pack(a.getKey(), p);
        }
        return packed;
    }

    private static HostReplyMessage ok(long id, String text, List<String> rows) {
        return new HostReplyMessage(id, true, text, rows, new byte[0]);
    }

    static HostReplyMessage refused(long id, RuntimeException e) {
        return new HostReplyMessage(id, false, AgentHost.describe(e), List.of(), new byte[0]);
    }
}
