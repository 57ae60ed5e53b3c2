package io.dsa.agent.internal;

import io.dsa.agent.wire.BarrierArriveMessage;
import io.dsa.agent.wire.BarrierReleaseMessage;
import io.dsa.agent.BarrierKind;
import io.dsa.agent.ProxyMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node side of barriers. The global barrier is the paper's two-level tree: workers arrive at
 * a local counter; the last local arrival is the node's proxy and reports to the monitor, with
 * the node's collective contributions; the release carries every contribution back. Group
 * barriers report each arrival to the monitor, which counts the parties.
 *
 * <p>Proxy models: with {@link ProxyMode#FLOAT} the last local arrival sends the node's arrival
 * itself; with {@link ProxyMode#FIXED} it hands the node's arrival to the node's dedicated
 * communication thread, which is the transport's I/O thread: the arrival is then written to the
 * socket by the thread that owns it, so the fixed proxy costs one thread hand-off, like the
 * floating one, instead of two (worker to a separate proxy thread to the I/O thread).
 */
final class BarrierClient {
    private static final Logger LOG = LoggerFactory.getLogger(BarrierClient.class);
    private static final long[] NONE = Contributions.NONE;

    private final NodeRuntime rt;
    private final Waiting waiting;
    private final Global global;
    private final Map<Integer, Group> groups = new HashMap<>();
    private final Local local;
    /** Barrier ids of the global barrier's k-ary and central forms; group ids are positive. */
    static final int KARY_GLOBAL = Integer.MIN_VALUE;
    static final int CENTRAL_GLOBAL = Integer.MIN_VALUE + 1;
    private final BarrierKind kind;
    private final int fanout;
    private final Tree tree;
    private final Central central;
    /** FIXED proxy: the node's arrival is sent from the I/O thread. */
    private final boolean fixedProxy;

    BarrierClient(NodeRuntime rt) {
        this.rt = rt;
        this.waiting = rt.waiting;
        this.global = new Global(rt.threadsPerNode);
        this.local = new Local(rt.threadsPerNode);
        this.kind = rt.config.barrier();
        this.fanout = rt.config.barrierFanout();
        this.tree = new Tree();
        this.tree.subtreeNodes = subtreeSize(rt.nodeId);
        this.central = new Central(rt.nodeId == 0 ? rt.nodes * rt.threadsPerNode : 0);
        this.tree.values = new Contributions(rt.nodes * rt.threadsPerNode, "node");
        this.fixedProxy = rt.config.proxy() == ProxyMode.FIXED && kind != BarrierKind.CENTRAL;
        // the benchmark checks this line to know each configuration ran what it claims
        LOG.debug("node {} runs the {} barrier with the {} proxy, waiting by {} (fanout {}, barrier lanes {})", rt.nodeId, kind,
                rt.config.proxy(), rt.config.waitStrategy(), fanout, rt.lanes.enabled() ? "on" : "off");
    }

    private static final class Tree {
        int subtreeNodes;
        int arrivedNodes;
        long generation;
        /** Checks the widths of the subtree's arrivals; gathers the values at the root. */
        Contributions values;
        final List<long[]> blocks = new ArrayList<>();
    }

    private static final class Central {
        final int parties;
        final Contributions values;
        int arrived;
        long generation;

        Central(int parties) {
            this.parties = parties;
            this.values = new Contributions(parties, "thread");
        }
    }

    /** Counted under its monitor; waited for through {@link #completed}, written (then woken) by the release. */
    private static final class Global extends WaitPoint {
        final int parties;
        final Contributions values;
        int arrived;
        long generation;
        /** Generations released; written after {@link #released}. */
        volatile long completed;
        long[] released = NONE;
        /** The node's own payload for its next TREE arrival ({@link #stashNodePayload}), or none. */
        long[] payload = NONE;
        /** The last release's node payloads ({@link BarrierReleaseMessage#payload}); written with {@link #released}. */
        long[] releasedPayloads = NONE;

        Global(int parties) {
            this.parties = parties;
            this.values = new Contributions(parties, "thread");
        }

        @Override long version() { return completed; }
    }

    private static final class Group extends WaitPoint {
        volatile long completed;

        @Override long version() { return completed; }
    }

    private static final class Local extends WaitPoint {
        final int parties;
        int arrived;
        volatile long generation;

        Local(int parties) { this.parties = parties; }

        @Override long version() { return generation; }
    }

    /**
     * Arrives at the global barrier. {@code values} is the caller's contribution to a collective
     * ({@link #NONE} for a plain barrier; {@code localThread} is then ignored and may be -1);
     * every worker of the VM must pass as many values as the others, or the job fails naming both
     * counts. Returns every worker's values in thread-id order, thread-major ({@code values.length}
     * per thread; empty for a plain barrier), the same array for all workers of this node (read only).
     * How arrivals travel depends on {@link DsaConfig#barrier()} and {@link DsaConfig#proxy()};
     * every kind delivers the same values in the same order, so collectives stay bit-identical.
     * The caller's array is copied on arrival.
     */
    long[] global(int localThread, long[] values) {
        IoThread io = rt.io();
        io.waitBegins();   // SPIN: the arrival this thread posts is sent by it, in its wait, without waking the I/O thread
        try {
            return arriveGlobal(localThread, values);
        } finally {
            io.waitEnds();
        }
    }

    private long[] arriveGlobal(int localThread, long[] values) {
        rt.checkFailed();
        Global g = global;
        long gen;
        long[] send = null;
        long[] payload = NONE;
        String mismatch = null;
        synchronized (g) {
            gen = g.generation;
            if (kind == BarrierKind.CENTRAL) {
                // every worker reports itself; the count is only kept to advance the generation
                if (++g.arrived == g.parties) {
                    g.arrived = 0;
                    g.generation++;
                }
            } else {
                if (g.values.accept(rt.nodeId * rt.threadsPerNode + localThread, values.length)) {
                    g.values.put(values, 0, localThread, 1);
                }
                if (++g.arrived == g.parties) {
                    mismatch = g.values.mismatch();
                    send = g.values.take();
                    payload = g.payload;
                    g.payload = NONE;
                    g.arrived = 0;
                    g.generation++;
                }
            }
        }
        if (mismatch != null) {
            // nothing is sent: the failure aborts the job, which releases every waiting worker
            rt.reportFailure("collective mismatch at node " + rt.nodeId + ": " + mismatch);
        } else if (kind == BarrierKind.CENTRAL) {
            // {localThread, v0 .. v(width-1)}: a plain arrival carries the thread alone
            long[] own = new long[values.length + 1];
            own[0] = Math.max(localThread, 0);
            System.arraycopy(values, 0, own, 1, values.length);
            rt.peers().send(0, new BarrierArriveMessage(CENTRAL_GLOBAL, gen, rt.nodeId, 1, own));
        } else if (send != null) {
            long[] nodeValues = send;
            long[] nodePayload = payload;
            long nodeGen = gen;
            // copies rewritten epoch after epoch are dropped (marked now: a safe point after this round runs the marked
            // drops before it waits for quiescence) and partitions go to their returning readers, on the thread that owns
            // the engine, before the arrival: the pushes and the drops' PUT_S are under way before any release or safe
            // point, and on the connection the arrival takes where it takes one (docs/runtime.md, "Self-invalidation")
            boolean drops = rt.arrays.dropsPending();
            if (drops) rt.arrays.markDropRound();
            if (drops || rt.arrays.pushesPending()) {
                rt.peers().executeOnIoThread(() -> {
                    rt.arrays.pushRound();
                    rt.arrays.runDropRound();
                    nodeComplete(nodeGen, nodeValues, nodePayload);
                });
            } else if (fixedProxy) {
                rt.peers().executeOnIoThread(() -> nodeComplete(nodeGen, nodeValues, nodePayload));
            } else {
                nodeComplete(nodeGen, nodeValues, nodePayload);
            }
        }
        awaitPast(g, gen, WorkerThread.GLOBAL_BARRIER, null);
        return g.released; // written before completed, which awaitPast read
    }

    /** @return whether the global barrier carries node payloads ({@link #stashNodePayload}): only the TREE kind does */
    boolean carriesNodePayloads() { return kind == BarrierKind.TREE; }

    /**
     * Gives this node's next global round a payload of its own (any length), which the root hands to
     * every node with the release ({@link #releasedPayloads}). Call it before the calling worker
     * arrives at that round, so the node's last arrival, which sends the node's arrival, carries it.
     *
     * @throws IllegalStateException if the barrier kind carries no payloads ({@link #carriesNodePayloads})
     */
    void stashNodePayload(long[] payload) {
        if (!carriesNodePayloads()) throw new IllegalStateException("the " + kind + " global barrier carries no node payloads");
        Global g = global;
        synchronized (g) {
            g.payload = payload;
        }
    }

    /**
     * @return the node payloads of the last global release, each as its length and its longs in
     *         node order, or empty if no node gave one; read by a worker that passed that round,
     *         before it (or any worker of its node) arrives at the next
     */
    long[] releasedPayloads() {
        Global g = global;
        synchronized (g) {
            return g.releasedPayloads;
        }
    }

    /** @return the global rounds (barriers and collectives) released at this node so far; any thread */
    long globalRounds() { return global.completed; }

    /**
     * Waits until {@code p}'s version is past {@code gen}: the release of generation {@code gen}
     * came. A worker's record says it waits in barrier {@code kind} ({@code name}, for a group) at
     * {@code gen}; the wait counts in the node's barrier waits.
     */
    private void awaitPast(WaitPoint p, long gen, int kind, String name) {
        long startNs = System.nanoTime();
        WorkerThread w = WorkerThread.waitFor(kind, name, gen);
        try {
            // one waiting worker polls the barrier lanes (if any) and returns once released
            if (p == global && rt.lanes.awaitGlobal(p, gen)) return;
            while (true) {
                long now = p.version();
                if (now > gen) return;
                rt.checkFailed();
                waiting.await(p, now);
            }
        } finally {
            WorkerThread.resume(w);
            rt.counters.barrierWait(System.nanoTime() - startNs);
        }
    }

    /** This node's workers all arrived at generation {@code gen}; called by the proxy. */
    private void nodeComplete(long gen, long[] values, long[] payload) {
        if (kind == BarrierKind.TREE) {
            rt.peers().send(0, new BarrierArriveMessage(MonitorRole.GLOBAL_BARRIER, gen, rt.nodeId, global.parties, values, payload));
            return;
        }
        long[] block = NONE;
        if (values.length > 0) {
            block = new long[values.length + 1];
            block[0] = rt.nodeId;
            System.arraycopy(values, 0, block, 1, values.length);
        }
        combine(gen, rt.nodeId, 1, block);
    }

    /** @return whether this node's barrier client handles {@code m} (rather than the monitor) */
    boolean handlesArrive(BarrierArriveMessage m) {
        return m.barrierId() == KARY_GLOBAL || m.barrierId() == CENTRAL_GLOBAL;
    }

    /** A child's combined arrival (KARY) or a worker's own arrival (CENTRAL, at node 0). */
    void onArrive(int from, BarrierArriveMessage m) {
        if (m.barrierId() == KARY_GLOBAL) {
            combine(m.generation(), from, m.arrivals(), m.values());
            return;
        }
        long[] release = null;
        String error = null;
        long[] v = m.values();
        synchronized (central) {
            if (m.generation() != central.generation) {
                error = "node " + from + " arrived at generation " + m.generation() + " of the central barrier, expected "
                        + central.generation;
            } else if (v.length == 0 || v[0] < 0 || v[0] >= rt.threadsPerNode || m.node() != from) {
                error = "malformed central barrier arrival from node " + from + ": thread "
                        + (v.length == 0 ? "missing" : v[0] + " (valid range [0, " + rt.threadsPerNode + "))");
            } else {
                int thread = from * rt.threadsPerNode + (int) v[0];
                if (central.values.accept(thread, v.length - 1)) central.values.put(v, 1, thread, 1);
                if (++central.arrived == central.parties) {
                    String mismatch = central.values.mismatch();
                    if (mismatch != null) {
                        error = "collective mismatch at global barrier generation " + central.generation + ": " + mismatch;
                    }
                    release = central.values.take();
                    central.arrived = 0;
                    central.generation++;
                }
            }
        }
        if (error != null) {
            rt.reportFailure(error);
        } else if (release != null) {
            BarrierReleaseMessage r = new BarrierReleaseMessage(CENTRAL_GLOBAL, m.generation(), release);
            rt.releaseGlobal(r.generation(), release.length == 0, () -> rt.peers().sendToAll(r));
        }
    }

    /**
     * KARY: merges {@code nodes} nodes' arrivals (own, or the subtree of child {@code source}) into
     * generation {@code gen}; the last one sends the subtree's arrival to the parent, or at the root,
     * the release. Values travel as blocks {@code [node, v0 .. v(threadsPerNode * width - 1)]},
     * one per node of the subtree, all of one width (checked at every level); a plain arrival is empty.
     */
    private void combine(long gen, int source, int nodes, long[] blocks) {
        BarrierArriveMessage up = null;
        long[] release = null;
        String error = null;
        int stride = nodes > 0 ? blocks.length / nodes : 0;
        int width = stride > 0 ? (stride - 1) / rt.threadsPerNode : 0;
        synchronized (tree) {
            if (gen != tree.generation) {
                error = "k-ary barrier at node " + rt.nodeId + " got an arrival for generation " + gen + ", expected "
                        + tree.generation;
            } else if (nodes <= 0 || blocks.length != nodes * (blocks.length == 0 ? 0 : 1 + rt.threadsPerNode * width)) {
                error = "malformed k-ary barrier arrival from node " + source + ": " + blocks.length + " values for "
                        + nodes + " nodes of " + rt.threadsPerNode + " threads";
            } else if (tree.arrivedNodes + nodes > tree.subtreeNodes) {
                error = "k-ary barrier at node " + rt.nodeId + " got " + (tree.arrivedNodes + nodes)
                        + " node arrivals, its subtree has " + tree.subtreeNodes;
            } else {
                tree.arrivedNodes += nodes;
                if (tree.values.accept(source, width)) tree.blocks.add(blocks);
                if (tree.arrivedNodes == tree.subtreeNodes) {
                    String mismatch = tree.values.mismatch();
                    if (mismatch != null) {
                        error = "collective mismatch at k-ary barrier generation " + gen + ": " + mismatch;
                    } else if (rt.nodeId == 0) {
                        for (long[] b : tree.blocks) {
                            for (int i = 0; i < b.length && error == null; i += 1 + rt.threadsPerNode * width) {
                                if (b[i] < 0 || b[i] >= rt.nodes) {
                                    error = "k-ary barrier arrival names node " + b[i] + ", valid range [0, " + rt.nodes + ")";
                                } else {
                                    tree.values.put(b, i + 1, (int) b[i] * rt.threadsPerNode, rt.threadsPerNode);
                                }
                            }
                        }
                    } else {
                        long[] all = NONE;
                        if (width > 0) {
                            all = new long[subtreeLength(width)];
                            int n = 0;
                            for (long[] b : tree.blocks) {
                                System.arraycopy(b, 0, all, n, b.length);
                                n += b.length;
                            }
                        }
                        up = new BarrierArriveMessage(KARY_GLOBAL, gen, rt.nodeId, tree.subtreeNodes, all);
                    }
                    long[] gathered = tree.values.take();
                    if (rt.nodeId == 0 && error == null) release = gathered;
                    tree.blocks.clear();
                    tree.arrivedNodes = 0;
                    tree.generation++;
                }
            }
        }
        if (error != null) {
            rt.reportFailure(error);
        } else if (up != null) {
            rt.peers().send(parent(rt.nodeId), up);
        } else if (release != null) {
            BarrierReleaseMessage r = new BarrierReleaseMessage(KARY_GLOBAL, gen, release);
            rt.releaseGlobal(gen, release.length == 0, () -> onRelease(r));
        }
    }

    private int subtreeLength(int width) { return tree.subtreeNodes * (1 + rt.threadsPerNode * width); }

    private int parent(int node) { return (node - 1) / fanout; }

    private int subtreeSize(int node) {
        int size = 1;
        for (int c = node * fanout + 1; c <= node * fanout + fanout && c < rt.nodes; c++) size += subtreeSize(c);
        return size;
    }

    /**
     * The counters at a safe point (every local worker waiting at the global barrier, whose
     * release is held at the root). Group barriers are listed with the releases seen.
     */
    io.dsa.agent.AgentState.BarrierImage snapshot() {
        Map<Integer, Long> groupsCompleted = new java.util.TreeMap<>();
        synchronized (groups) {
            for (Map.Entry<Integer, Group> e : groups.entrySet()) {
                synchronized (e.getValue()) { groupsCompleted.put(e.getKey(), e.getValue().completed); }
            }
        }
        long gg;
        long gc;
        synchronized (global) {
            gg = global.generation;
            gc = global.completed;
        }
        long tg;
        synchronized (tree) { tg = tree.generation; }
        long cg;
        synchronized (central) { cg = central.generation; }
        long lg;
        synchronized (local) { lg = local.generation; }
        return new io.dsa.agent.AgentState.BarrierImage(gg, gc, tg, cg, lg, groupsCompleted);
    }

    /** Installs counters moved from another agent of this node id; before any worker runs here. */
    void restore(io.dsa.agent.AgentState.BarrierImage image) {
        synchronized (global) {
            global.generation = image.globalGeneration();
            global.completed = Math.max(global.completed, image.globalCompleted());
        }
        synchronized (tree) { tree.generation = image.treeGeneration(); }
        synchronized (central) { central.generation = image.centralGeneration(); }
        synchronized (local) { local.generation = image.localGeneration(); }
        synchronized (groups) {
            for (Map.Entry<Integer, Long> e : image.groupsCompleted().entrySet()) {
                groups.computeIfAbsent(e.getKey(), k -> new Group()).completed = e.getValue();
            }
        }
    }

    /** Arrives at group barrier {@code id}, named {@code name}. */
    void group(int id, String name) {
        rt.checkFailed();
        Group b;
        synchronized (groups) {
            b = groups.computeIfAbsent(id, k -> new Group());
        }
        long gen = b.completed;
        rt.peers().send(0, new BarrierArriveMessage(id, gen, rt.nodeId, 1, NONE));
        awaitPast(b, gen, WorkerThread.GROUP_BARRIER, name);
    }

    /** The barrier of this node's workers. */
    void local() {
        rt.checkFailed();
        Local l = local;
        long gen;
        synchronized (l) {
            gen = l.generation;
            if (++l.arrived == l.parties) {
                l.arrived = 0;
                l.generation = gen + 1;
            }
        }
        if (l.generation > gen) {
            l.wake();
            rt.counters.barrierWait(0);
            return;
        }
        awaitPast(l, gen, WorkerThread.LOCAL_BARRIER, null);
    }

    void onRelease(BarrierReleaseMessage m) {
        if (m.barrierId() == KARY_GLOBAL) {
            // release flows down the tree: pass it to the children first
            for (int c = rt.nodeId * fanout + 1; c <= rt.nodeId * fanout + fanout && c < rt.nodes; c++) {
                rt.peers().send(c, m);
            }
        }
        if (m.barrierId() == MonitorRole.GLOBAL_BARRIER || m.barrierId() == KARY_GLOBAL
                || m.barrierId() == CENTRAL_GLOBAL) {
            Global g = global;
            synchronized (g) {
                g.released = m.values();
                g.releasedPayloads = m.payload();
                g.completed = m.generation() + 1;
            }
            g.wake();
            rt.lanes.wakeup();
            return;
        }
        Group b;
        synchronized (groups) {
            b = groups.computeIfAbsent(m.barrierId(), k -> new Group());
        }
        synchronized (b) {
            b.completed = m.generation() + 1;
        }
        b.wake();
    }

    void wakeAll() {
        global.wake();
        rt.lanes.wakeup();
        local.wake();
        Group[] all;
        synchronized (groups) { all = groups.values().toArray(new Group[0]); }
        for (Group b : all) b.wake();
    }
}
