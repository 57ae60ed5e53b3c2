package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.agent.DsaAgent;
import io.dsa.agent.transport.Connection;
import io.dsa.agent.wire.AbandonMoveMessage;
import io.dsa.agent.wire.AdmitCloneMessage;
import io.dsa.agent.wire.AgentControlMessage;
import io.dsa.agent.wire.AwaitMoveMessage;
import io.dsa.agent.wire.CommitMoveMessage;
import io.dsa.agent.wire.ExpectMoveMessage;
import io.dsa.agent.wire.HoldBarrierMessage;
import io.dsa.agent.wire.HostReplyMessage;
import io.dsa.agent.wire.HostRequestMessage;
import io.dsa.agent.wire.ReadArrayMessage;
import io.dsa.agent.wire.RegisterCloneMessage;
import io.dsa.agent.wire.ReleaseBarrierMessage;
import io.dsa.agent.wire.TransferMessage;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A host's answers to {@link HostRequestMessage}s and {@link TransferMessage}s from launchers and
 * other hosts. The steps that concern an agent (a safe point, a move's or a clone's step at
 * another node, a read) go on to the agent's JVM as typed messages; their answers come back as
 * the reply. Runs on the host's control threads.
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

    void onRequest(Connection from, HostRequestMessage r) {
        try {
            HostReplyMessage reply = switch (r.op()) {
                case HostRequestMessage.STATUS -> ok(r.requestId(), "", host.status(r.vmName()));
                case HostRequestMessage.STOP_VM -> ok(r.requestId(), host.stopVmWithToken(r.vmName(), r.target()), List.of());
                case HostRequestMessage.HOLD_BARRIER -> holdBarrier(from, r);
                case HostRequestMessage.RELEASE_BARRIER -> {
                    HostReplyMessage released = ask(r, ReleaseBarrierMessage::new);
                    holds.remove(DsaAgent.agentId(r.vmName(), r.nodeId()));
                    yield released;
                }
                case HostRequestMessage.EXPECT_MOVE -> {
                    int moving = number(r.target(), "moving node");
                    HostedJob j = host.part(r.vmName(), r.nodeId());
                    HostReplyMessage armed = ask(r, id -> new ExpectMoveMessage(id, moving));
                    expected.put(expectKey(r.vmName(), r.nodeId(), moving), new Expected(from, j, moving));
                    yield armed;
                }
                case HostRequestMessage.AWAIT_MOVE -> {
                    int moving = number(r.target(), "moving node");
                    if (!expected.containsKey(expectKey(r.vmName(), r.nodeId(), moving))) {
                        throw new DsaException("node " + r.nodeId() + " expects no move of node " + moving);
                    }
                    yield ask(r, id -> new AwaitMoveMessage(id, moving));
                }
                case HostRequestMessage.COMMIT_MOVE, HostRequestMessage.ABANDON_MOVE -> {
                    Move move = move(r.target(), r.op() == HostRequestMessage.COMMIT_MOVE);
                    expected.remove(expectKey(r.vmName(), r.nodeId(), move.moving()));
                    if (r.op() == HostRequestMessage.ABANDON_MOVE) yield ask(r, id -> new AbandonMoveMessage(id, move.moving()));
                    yield ask(r, id -> new CommitMoveMessage(id, move.moving(), move.address()));
                }
                case HostRequestMessage.ADMIT_CLONE -> {
                    int cloneId = number(r.target(), "clone id");
                    yield ask(r, id -> new AdmitCloneMessage(id, cloneId));
                }
                case HostRequestMessage.REGISTER_CLONE -> {
                    RegisterCloneMessage registration = cloneRegistration(r.target(), 0);
                    yield ask(r, id -> new RegisterCloneMessage(id, registration.cloneId(), registration.partitions()));
                }
                case HostRequestMessage.READ_ARRAY -> {
                    ReadArrayMessage read = read(r.target(), 0);
                    yield ask(r, id -> new ReadArrayMessage(id, read.name(), read.from(), read.count()));
                }
                case HostRequestMessage.WORKERS -> ok(r.requestId(), "", host.workers(r.vmName()));
                case HostRequestMessage.COUNTERS -> ok(r.requestId(), "", host.counters(r.vmName()));
                default -> throw new DsaException("unknown host request op " + r.op() + ", expected 1 to 13");
            };
            from.send(new HostReplyMessage(r.requestId(), true, reply.text(), reply.rows(), reply.payload()));
        } catch (RuntimeException e) {
            from.send(refused(r.requestId(), e));
        }
    }

    // Node 0's host: the agent holds the next global barrier's release and answers at the safe point.
    private HostReplyMessage holdBarrier(Connection from, HostRequestMessage r) {
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
    private HostReplyMessage ask(HostRequestMessage r, LongFunction<AgentControlMessage> step) {
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
            HostReplyMessage reply = switch (t.op()) {
                case TransferMessage.REQUEST_TRANSFER -> ok(t.requestId(), "",
                        RemoteAgentMonitor.rows(host.target.acquire(t.agentId(), t.fromMonitor(), hostsOf(t.payload()))));
                case TransferMessage.REQUEST_CLONE -> ok(t.requestId(), "",
                        RemoteAgentMonitor.rows(host.target.cloneHere(t.agentId(), t.fromMonitor(), hostsOf(t.payload()))));
                case TransferMessage.BEGIN_TRANSFER -> new HostReplyMessage(t.requestId(), true, "", List.of(),
                        host.source.begin(t.agentId(), RemoteAgentMonitor.isCloning(t.payload()), from));
                case TransferMessage.TRANSFER_AGENT -> new HostReplyMessage(t.requestId(), true, "", List.of(),
                        host.source.transfer(t.agentId(), RemoteAgentMonitor.cloneId(t.payload())));
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

    /** A move's target: the moving node, and for a commit its new {@code host:port}. */
    record Move(int moving, String address) {}

    /**
     * @return the target of a COMMIT_MOVE ({@code node@host:port}) or ABANDON_MOVE ({@code node},
     *         anything after an {@code @} ignored)
     * @throws DsaException naming the target when it is not of that form
     */
    static Move move(String target, boolean commit) {
        String[] parts = target == null ? new String[] {null} : target.split("@", 2);
        int moving = number(parts[0], "moving node");
        if (!commit) return new Move(moving, null);
        if (parts.length < 2) throw new DsaException("commit target '" + StatusRow.shown(target) + "' is not node@host:port");
        try {
            StatusRow.address(parts[1], "address");
        } catch (IllegalArgumentException e) {
            throw new DsaException("commit target '" + StatusRow.shown(target) + "': " + e.getMessage());
        }
        return new Move(moving, parts[1]);
    }

    /**
     * @return the clone registration in a REGISTER_CLONE target ({@code cloneId|}{@link ClonePartitions}), as request {@code id}
     * @throws DsaException naming the target when it is not of that form
     */
    static RegisterCloneMessage cloneRegistration(String target, long id) {
        String[] parts = target == null ? new String[] {null} : target.split("\\|", 2);
        int cloneId = number(parts[0], "clone id");
        return new RegisterCloneMessage(id, cloneId, pack(ClonePartitions.decode(parts.length > 1 ? parts[1] : "")));
    }

    /**
     * @return the read in a READ_ARRAY target ({@code name<TAB>from<TAB>count}), as request {@code id}
     * @throws DsaException naming the target when it is not of that form (the agent checks the ranges)
     */
    static ReadArrayMessage read(String target, long id) {
        String[] parts = target == null ? new String[0] : target.split("\t", -1);
        if (parts.length != 3) throw new DsaException("read request '" + StatusRow.shown(String.valueOf(target)) + "' is not name<TAB>from<TAB>count");
        return new ReadArrayMessage(id, parts[0], longNumber(parts[1], "index"), longNumber(parts[2], "count"));
    }

    private static int number(String text, String what) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new DsaException(what + " '" + (text == null ? null : StatusRow.shown(text)) + "' is not a number");
        }
    }

    private static long longNumber(String text, String what) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new DsaException(what + " '" + StatusRow.shown(text) + "' is not a number");
        }
    }

    private static List<String> hostsOf(byte[] payload) {
        if (payload == null || payload.length == 0) return List.of();
        return List.of(new String(payload, java.nio.charset.StandardCharsets.UTF_8).split(","));
    }

    private static HostReplyMessage ok(long id, String text, List<String> rows) {
        return new HostReplyMessage(id, true, text, rows, new byte[0]);
    }

    static HostReplyMessage refused(long id, RuntimeException e) {
        return new HostReplyMessage(id, false, AgentHost.describe(e), List.of(), new byte[0]);
    }
}
