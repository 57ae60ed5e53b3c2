package io.dsa.agent.internal;

import io.dsa.agent.HostPort;
import io.dsa.agent.wire.BarrierArriveMessage;
import io.dsa.agent.wire.BarrierReleaseMessage;
import io.dsa.agent.wire.DefineMessage;
import io.dsa.agent.wire.JoinMessage;
import io.dsa.agent.wire.LockMessage;
import io.dsa.agent.wire.RegisterMessage;
import io.dsa.agent.wire.RegisteredMessage;
import io.dsa.agent.wire.ReportMessage;
import io.dsa.agent.wire.StatusMessage;
import io.dsa.agent.wire.ViewMessage;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Node 0's extra role (the paper's DsaMonitor): membership, the registry of shared objects by
 * name, the root of barriers, the home of locks, and the job's lifecycle. All state is guarded
 * by this object's monitor; handlers never block.
 */
final class MonitorRole {
    private static final Logger LOG = LoggerFactory.getLogger(MonitorRole.class);
    static final int GLOBAL_BARRIER = 0;

    private final PeerNetwork network;
    private final MigrationGate gate;
    private final int nodes;
    private final int threadsPerNode;
    private final String[] addresses;
    private int joined;
    private boolean viewSent;

    private final Map<String, Registration> registry = new HashMap<>();
    private final int[] nextId = new int[5];
    private final Map<Integer, RootBarrier> barriers = new HashMap<>();
    private final Map<Integer, LockState> locks = new HashMap<>();

    private final List<String> lines = new ArrayList<>();
    private final boolean[] done;
    private int doneCount;
    private String firstFailure;

    private record Registration(int kind, int id, int home, String name, long[] params) {}

    private static final class RootBarrier {
        final int parties;
        long generation;
        int arrived;
        /** The global barrier's: which nodes arrived this round, and their collective values. */
        final boolean[] nodeArrived;
        final Contributions values;
        /** The global barrier's: each node's own payload this round (empty if it gave none). */
        final long[][] payloads;

        RootBarrier(int parties, int nodes, int threadsPerNode) {
            this.parties = parties;
            this.nodeArrived = new boolean[nodes];
            this.values = new Contributions(nodes * threadsPerNode, "node");
            this.payloads = new long[nodes][];
            java.util.Arrays.fill(payloads, BarrierArriveMessage.NO_PAYLOAD);
        }

        /**
         * @return the round's node payloads for the release, each as its length and its longs in
         *         node order, or none if no node gave one; forgets them
         */
        long[] takePayloads() {
            long total = 0;
            boolean any = false;
            for (long[] p : payloads) {
                any |= p.length > 0;
                total += 1 + p.length;
            }
            long[] all = BarrierArriveMessage.NO_PAYLOAD;
            if (any) {
                all = new long[Math.toIntExact(total)];
                int at = 0;
                for (long[] p : payloads) {
                    all[at++] = p.length;
                    System.arraycopy(p, 0, all, at, p.length);
                    at += p.length;
                }
                java.util.Arrays.fill(payloads, BarrierArriveMessage.NO_PAYLOAD);
            }
            return all;
        }
    }

    private static final class LockState {
        int holder = -1;
        final ArrayDeque<long[]> waiting = new ArrayDeque<>();
    }

    /** @param gate node 0's gate, which every global release passes (the safe point of a move) */
    MonitorRole(PeerNetwork network, MigrationGate gate, int nodes, int threadsPerNode) {
        this.network = network;
        this.gate = gate;
        this.nodes = nodes;
        this.threadsPerNode = threadsPerNode;
        this.addresses = new String[nodes];
        this.joined = 1;
        this.done = new boolean[nodes];
        barriers.put(GLOBAL_BARRIER, new RootBarrier(nodes, nodes, threadsPerNode));
        Arrays.fill(nextId, 1);
    }

    /** Node 0 listens at {@code selfAddress}: the view's first entry. */
    synchronized void bound(String selfAddress) {
        addresses[0] = selfAddress;
    }

    /** Sends the view once every node has joined (node 0 alone is a complete VM) and node 0 is bound. */
    synchronized void maybeSendView() {
        if (!viewSent && joined == nodes && addresses[0] != null) {
            viewSent = true;
            network.sendToAll(new ViewMessage(threadsPerNode, List.of(addresses)));
        }
    }

    /** @return an error text if the join is refused */
    synchronized String onJoin(int connectionNode, JoinMessage join) {
        String invalid = invalidJoin(join, connectionNode, nodes);
        if (invalid != null) return invalid;
        int k = join.nodeId();
        if (addresses[k] != null) return "node " + k + " joined twice";
        addresses[k] = join.host() + ":" + join.port();
        joined++;
        LOG.debug("node {} joined from {} ({}/{})", k, addresses[k], joined, nodes);
        maybeSendView();
        return null;
    }

    /**
     * Checks a JOIN from the network: a node id in {@code [1, nodes)} that is the connection's, and
     * an address every node can parse from the view it goes into ({@link HostPort#parse}).
     *
     * @return why the join is refused, or null
     */
    static String invalidJoin(JoinMessage join, int connectionNode, int nodes) {
        int k = join.nodeId();
        if (k <= 0 || k >= nodes) return "node id " + k + " out of range [1, " + nodes + ")";
        if (k != connectionNode) return "join as node " + k + " on a connection authenticated as node " + connectionNode;
        try {
            HostPort.parse(join.host() + ":" + join.port());
        } catch (IllegalArgumentException e) {
            return "node " + k + " joined from " + e.getMessage();
        }
        return null;
    }

    void onRegister(int from, RegisterMessage m) {
        String invalid = Specs.invalidRegistration(m.kind(), m.name(), m.params(), nodes * threadsPerNode);
        if (invalid != null) {
            network.send(from, new RegisteredMessage(m.requestId(), -1, -1, invalid));
            return;
        }
        List<Object[]> sends = new ArrayList<>();
        synchronized (this) {
            String key = m.kind() + ":" + m.name();
            Registration r = registry.get(key);
            if (r == null) {
                int id = m.kind() == RegisterMessage.BARRIER ? nextId[m.kind()]++ : nextId[m.kind()]++;
                int home = m.kind() == RegisterMessage.VARIABLE ? id % nodes : 0;
                r = new Registration(m.kind(), id, home, m.name(), m.params().clone());
                registry.put(key, r);
                if (m.kind() == RegisterMessage.BARRIER) {
                    barriers.put(-id, new RootBarrier((int) m.params()[0], nodes, 0));
                }
                if (m.kind() == RegisterMessage.LOCK) locks.put(id, new LockState());
                if (m.kind() == RegisterMessage.ARRAY || m.kind() == RegisterMessage.VARIABLE) {
                    DefineMessage define = new DefineMessage(r.kind, id, home, r.name, r.params);
                    for (int n = 0; n < nodes; n++) sends.add(new Object[] {n, define});
                }
                sends.add(new Object[] {from, new RegisteredMessage(m.requestId(), id, home, "")});
            } else if (!Arrays.equals(r.params, m.params())) {
                sends.add(new Object[] {from, new RegisteredMessage(m.requestId(), -1, -1, mismatch(r, m))});
            } else {
                sends.add(new Object[] {from, new RegisteredMessage(m.requestId(), r.id, r.home, "")});
            }
        }
        for (Object[] s : sends) network.send((Integer) s[0], s[1]);
    }

    private String mismatch(Registration r, RegisterMessage m) {
        switch (m.kind()) {
            case RegisterMessage.ARRAY:
                return "array '" + m.name() + "' already exists as " + Specs.fromParams(m.name(), r.params).shape()
                        + ", requested " + Specs.fromParams(m.name(), m.params()).shape();
            case RegisterMessage.VARIABLE:
                return "shared variable '" + m.name() + "' already exists with type/initial value "
                        + Arrays.toString(r.params) + ", requested " + Arrays.toString(m.params());
            case RegisterMessage.BARRIER:
                return "barrier '" + m.name() + "' already exists with " + r.params[0] + " parties, requested "
                        + m.params()[0];
            default:
                return "'" + m.name() + "' already exists with different parameters";
        }
    }

    void onArrive(int from, BarrierArriveMessage a) {
        BarrierReleaseMessage release = null;
        String error = null;
        synchronized (this) {
            int key = a.barrierId() == GLOBAL_BARRIER ? GLOBAL_BARRIER : -a.barrierId();
            RootBarrier b = barriers.get(key);
            if (b == null) {
                error = "arrival at unknown barrier " + a.barrierId() + " from node " + from;
            } else if (a.generation() != b.generation) {
                error = "node " + from + " arrived at generation " + a.generation() + " of barrier " + a.barrierId()
                        + ", expected " + b.generation;
            } else if (key == GLOBAL_BARRIER) {
                // a node's arrival carries its workers' values, thread-major: threadsPerNode x width
                int node = a.node();
                long[] v = a.values();
                if (node < 0 || node >= nodes || v.length % threadsPerNode != 0) {
                    error = "malformed global barrier arrival from node " + from + ": node " + node + " (valid range [0, "
                            + nodes + ")), " + v.length + " values (a multiple of " + threadsPerNode + " expected)";
                } else if (b.nodeArrived[node]) {
                    error = "node " + node + " arrived twice at global barrier generation " + b.generation;
                } else {
                    b.nodeArrived[node] = true;
                    b.payloads[node] = a.payload();
                    if (b.values.accept(node, v.length / threadsPerNode)) b.values.put(v, 0, node * threadsPerNode, threadsPerNode);
                    if (++b.arrived == nodes) {
                        String mismatch = b.values.mismatch();
                        long[] all = b.values.take();
                        long[] payloads = b.takePayloads();
                        if (mismatch != null) {
                            error = "collective mismatch at global barrier generation " + b.generation + ": " + mismatch;
                        } else {
                            release = new BarrierReleaseMessage(GLOBAL_BARRIER, b.generation, all, payloads);
                        }
                        Arrays.fill(b.nodeArrived, false);
                        b.arrived = 0;
                        b.generation++;
                    }
                }
            } else {
                b.arrived += a.arrivals();
                if (b.arrived > b.parties) {
                    error = "barrier " + a.barrierId() + " got " + b.arrived + " arrivals, it has " + b.parties + " parties";
                } else if (b.arrived == b.parties) {
                    release = new BarrierReleaseMessage(a.barrierId(), b.generation, new long[0]);
                    b.arrived = 0;
                    b.generation++;
                }
            }
        }
        if (error != null) {
            onFailure(error);
        } else if (release != null) {
            BarrierReleaseMessage r = release;
            if (r.barrierId() == GLOBAL_BARRIER) {
                gate.releaseGlobal(r.generation(), r.values().length == 0 && r.payload().length == 0, () -> network.sendToAll(r));
            } else {
                network.sendToAll(r);
            }
        }
    }

    /**
     * The registry, ids and barrier roots at a checkpoint's safe point (every worker waits at a
     * global barrier whose release is held).
     *
     * @throws io.dsa.DsaException if a lock is held or a barrier has arrivals (not a safe point for a checkpoint)
     */
    synchronized MonitorImage image() {
        List<MonitorImage.Entry> entries = new ArrayList<>();
        for (Registration r : registry.values()) entries.add(new MonitorImage.Entry(r.kind, r.id, r.home, r.name, r.params.clone()));
        entries.sort(java.util.Comparator.comparingInt(MonitorImage.Entry::kind).thenComparingInt(MonitorImage.Entry::id));
        List<MonitorImage.Root> roots = new ArrayList<>();
        for (Map.Entry<Integer, RootBarrier> e : new java.util.TreeMap<>(barriers).entrySet()) {
            if (e.getValue().arrived != 0) {
                throw new io.dsa.DsaException("barrier " + e.getKey() + " has " + e.getValue().arrived + " arrivals at the safe point");
            }
            roots.add(new MonitorImage.Root(e.getKey(), e.getValue().parties, e.getValue().generation));
        }
        for (Map.Entry<Integer, LockState> e : locks.entrySet()) {
            if (e.getValue().holder >= 0) {
                throw new io.dsa.DsaException("lock " + e.getKey() + " is held by node " + e.getValue().holder
                        + " across the global barrier");
            }
        }
        return new MonitorImage(nextId.clone(), entries, roots);
    }

    /** A restarted VM's monitor: takes the registry and barrier roots of a checkpoint; before any node registers. */
    synchronized void install(MonitorImage image) {
        if (image.nextId().length != nextId.length) {
            throw new io.dsa.DsaException("monitor image has " + image.nextId().length + " id counters, expected " + nextId.length);
        }
        System.arraycopy(image.nextId(), 0, nextId, 0, nextId.length);
        for (MonitorImage.Entry e : image.registry()) {
            registry.put(e.kind() + ":" + e.name(), new Registration(e.kind(), e.id(), e.home(), e.name(), e.params().clone()));
            if (e.kind() == RegisterMessage.LOCK) locks.put(e.id(), new LockState());
        }
        for (MonitorImage.Root r : image.barriers()) {
            RootBarrier b = r.key() == GLOBAL_BARRIER ? barriers.get(GLOBAL_BARRIER) : new RootBarrier(r.parties(), nodes, 0);
            b.generation = r.generation();
            barriers.put(r.key(), b);
        }
    }

    /** A node moved to {@code address} (live migration): the registry of addresses follows. */
    synchronized void onMoved(int node, String address) {
        addresses[node] = address;
    }

    /** @return the address registry: every node's address by id (null for a node not joined yet) */
    synchronized List<String> addresses() { return Arrays.asList(addresses.clone()); }

    void onLock(int from, LockMessage m) {
        LockMessage grant = null;
        int grantTo = -1;
        String error = null;
        synchronized (this) {
            LockState s = locks.get(m.lockId());
            if (s == null) {
                error = "lock message for unknown lock " + m.lockId() + " from node " + from;
            } else if (m.op() == LockMessage.ACQUIRE) {
                if (s.holder < 0) {
                    s.holder = m.node();
                    grant = new LockMessage(m.lockId(), LockMessage.GRANT, m.node(), m.requestId());
                    grantTo = m.node();
                } else {
                    s.waiting.add(new long[] {m.node(), m.requestId()});
                }
            } else if (m.op() == LockMessage.CANCEL) {
                boolean queued = s.waiting.removeIf(w -> w[0] == m.node() && w[1] == m.requestId());
                if (queued) {
                    grant = new LockMessage(m.lockId(), LockMessage.CANCEL_ACK, m.node(), m.requestId());
                    grantTo = m.node();
                }
                // else the grant was sent before this cancel and answers it (same connection, in order)
            } else if (m.op() == LockMessage.RELEASE) {
                if (s.holder != m.node()) {
                    error = "node " + m.node() + " released lock " + m.lockId() + " held by node " + s.holder;
                } else {
                    long[] next = s.waiting.poll();
                    s.holder = next == null ? -1 : (int) next[0];
                    if (next != null) {
                        grant = new LockMessage(m.lockId(), LockMessage.GRANT, (int) next[0], next[1]);
                        grantTo = (int) next[0];
                    }
                }
            }
        }
        if (error != null) onFailure(error);
        if (grant != null) network.send(grantTo, grant);
    }

    synchronized void onReport(ReportMessage m) {
        lines.add("node " + m.node() + ": " + m.text());
    }

    synchronized List<String> lines() { return new ArrayList<>(lines); }

    void onStatus(int from, StatusMessage m) {
        if (m.code() == StatusMessage.FAILED) {
            onFailure(m.text());
        } else if (m.code() == StatusMessage.DONE) {
            onNodeDone(m.node());
        }
    }

    /**
     * A node is gone: the job cannot finish correctly, unless every node had finished, or the node
     * had finished its own work and homed nothing the others may still read or write
     * ({@link LostNode#stillNeeded}). The failure names the node, where it ran, and what it homed.
     */
    void onNodeLost(int node, String why) {
        String text;
        synchronized (this) {
            if (viewSent && doneCount == nodes) return;
            String homed = homedBy(node);
            if (done[node] && !LostNode.stillNeeded(homed)) {
                LOG.debug("node {} left after it finished its work, homing nothing: {}", node, why);
                return;
            }
            text = LostNode.describe(node, addresses[node], done[node], homed, why);
        }
        onFailure(text);
        onNodeDone(node);
    }

    /** @return what {@code node} homes: the partitions of every registered array, the shared variables ({@link LostNode#homed}) */
    synchronized String homedBy(int node) {
        List<io.dsa.ArrayLayout> arrays = new ArrayList<>();
        List<String> variables = new ArrayList<>();
        for (Registration r : registry.values()) {
            if (r.kind == RegisterMessage.ARRAY) {
                arrays.add(io.dsa.ArrayLayout.of(Specs.fromParams(r.name, r.params), nodes, threadsPerNode));
            } else if (r.kind == RegisterMessage.VARIABLE && r.home == node) {
                variables.add(r.name);
            }
        }
        arrays.sort(java.util.Comparator.comparing(a -> a.spec().name()));
        variables.sort(null);
        return LostNode.homed(node, arrays, variables);
    }

    void onFailure(String text) {
        boolean first;
        synchronized (this) {
            first = firstFailure == null;
            if (first) firstFailure = text;
        }
        if (first) {
            LOG.debug("job failed: {}", text);
            network.sendToAll(new StatusMessage(0, StatusMessage.ABORT, text));
        }
    }

    private void onNodeDone(int node) {
        StatusMessage finished = null;
        synchronized (this) {
            if (done[node]) return;
            done[node] = true;
            if (++doneCount == nodes) {
                finished = new StatusMessage(0, StatusMessage.FINISHED, firstFailure == null ? "" : firstFailure);
            }
        }
        if (finished != null) network.sendToAll(finished);
    }
}
