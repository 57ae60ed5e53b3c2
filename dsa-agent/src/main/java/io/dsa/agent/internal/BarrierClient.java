package io.dsa.agent.internal;

import io.dsa.DsaException;
import io.dsa.agent.wire.BarrierArriveMessage;
import io.dsa.agent.wire.BarrierReleaseMessage;
import io.dsa.agent.BarrierKind;
import io.dsa.agent.ProxyMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.Map;

/**
 * The node side of barriers. The global barrier is the paper's two-level tree: workers arrive at
 * a local counter; the last local arrival is the node's proxy and reports to the monitor, with
 * the node's collective contributions; the release carries every contribution back. Group
 * barriers report each arrival to the monitor, which counts the parties.
 */
final class BarrierClient {
    private static final long[] NONE = new long[0];

    private final NodeRuntime rt;
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
    private final LinkedBlockingQueue<Runnable> comm;
    private final Thread commThread;

    BarrierClient(NodeRuntime rt) {
        this.rt = rt;
        this.global = new Global(rt.threadsPerNode);
        this.local = new Local(rt.threadsPerNode);
        this.kind = rt.config.barrier();
        this.fanout = rt.config.barrierFanout();
        this.tree = new Tree();
        this.tree.subtreeNodes = subtreeSize(rt.nodeId);
        this.central = new Central(rt.nodeId == 0 ? rt.nodes * rt.threadsPerNode : 0);
        if (rt.config.proxy() == ProxyMode.FIXED && kind != BarrierKind.CENTRAL) {
            this.comm = new LinkedBlockingQueue<>();
            this.commThread = new Thread(this::commLoop, "dsa-barrier-proxy-" + rt.nodeId);
            this.commThread.setDaemon(true);
            this.commThread.start();
        } else {
            this.comm = null;
            this.commThread = null;
        }
    }

    /** FIXED proxy: the node's communication thread sends its arrivals; workers only count in. */
    private void commLoop() {
        try {
            while (true) {
                comm.take().run();
            }
        } catch (InterruptedException e) {
            // closed
        } catch (RuntimeException e) {
            rt.reportFailure("barrier proxy of node " + rt.nodeId + " failed: " + e);
        }
    }

    private static final class Tree {
        int subtreeNodes;
        int arrivedNodes;
        int withValues;
        long generation;
        final List<long[]> blocks = new ArrayList<>();
    }

    private static final class Central {
        final long[] values;
        int arrived;
        int withValues;
        long generation;

        Central(int parties) { this.values = new long[parties]; }
    }

    private final class Global {
        final int parties;
        final long[] values;
        int arrived;
        int withValues;
        long generation;
        long completed;
        long[] released = NONE;

        Global(int parties) {
            this.parties = parties;
            this.values = new long[parties];
        }
    }

    private static final class Group {
        long completed;
    }

    private final class Local {
        final int parties;
        int arrived;
        long generation;

        Local(int parties) { this.parties = parties; }
    }

    /**
     * Arrives at the global barrier. With {@code localThread >= 0} contributes {@code value} to a
     * collective; returns every worker's contribution in thread-id order (empty for plain barriers).
     * How arrivals travel depends on {@link DsaConfig#barrier()} and {@link DsaConfig#proxy()};
     * every kind delivers the same values in the same order, so collectives stay bit-identical.
     */
    long[] global(int localThread, long value) {
        rt.checkFailed();
        Global g = global;
        long gen;
        long[] send = null;
        synchronized (g) {
            gen = g.generation;
            if (kind == BarrierKind.CENTRAL) {
                // every worker reports itself; the count is only kept to advance the generation
                if (++g.arrived == g.parties) {
                    g.arrived = 0;
                    g.generation++;
                }
            } else {
                if (localThread >= 0) {
                    g.values[localThread] = value;
                    g.withValues++;
                }
                if (++g.arrived == g.parties) {
                    if (g.withValues != 0 && g.withValues != g.parties) {
                        String text = "collective mismatch at node " + rt.nodeId + ": " + g.withValues + " of " + g.parties
                                + " workers called a collective, the others a plain barrier";
                        rt.reportFailure(text);
                    }
                    send = g.withValues == g.parties ? g.values.clone() : NONE;
                    g.arrived = 0;
                    g.withValues = 0;
                    g.generation++;
                }
            }
        }
        if (kind == BarrierKind.CENTRAL) {
            // plain arrivals carry one value, collective ones two: {localThread, value}
            BarrierArriveMessage m = new BarrierArriveMessage(CENTRAL_GLOBAL, gen, rt.nodeId, 1,
                    localThread >= 0 ? new long[] {localThread, value} : new long[] {0});
            rt.peers().send(0, m);
        } else if (send != null) {
            long[] nodeValues = send;
            long nodeGen = gen;
            if (comm != null) {
                comm.add(() -> nodeComplete(nodeGen, nodeValues));
            } else {
                nodeComplete(nodeGen, nodeValues);
            }
        }
        synchronized (g) {
            while (g.completed <= gen) {
                rt.checkFailed();
                waitOn(g);
            }
            return g.released;
        }
    }

    /** This node's workers all arrived at generation {@code gen}; called by the proxy. */
    private void nodeComplete(long gen, long[] values) {
        if (kind == BarrierKind.TREE) {
            rt.peers().send(0, new BarrierArriveMessage(MonitorRole.GLOBAL_BARRIER, gen, rt.nodeId, global.parties, values));
            return;
        }
        long[] block = NONE;
        if (values.length > 0) {
            block = new long[values.length + 1];
            block[0] = rt.nodeId;
            System.arraycopy(values, 0, block, 1, values.length);
        }
        combine(gen, 1, block, values.length > 0);
    }

    /** @return whether this node's barrier client handles {@code m} (rather than the monitor) */
    boolean handlesArrive(BarrierArriveMessage m) {
        return m.barrierId() == KARY_GLOBAL || m.barrierId() == CENTRAL_GLOBAL;
    }

    /** A child's combined arrival (KARY) or a worker's own arrival (CENTRAL, at node 0). */
    void onArrive(int from, BarrierArriveMessage m) {
        if (m.barrierId() == KARY_GLOBAL) {
            combine(m.generation(), m.arrivals(), m.values(), m.values().length > 0);
            return;
        }
        long[] release = null;
        String error = null;
        synchronized (central) {
            if (m.generation() != central.generation) {
                error = "node " + from + " arrived at generation " + m.generation() + " of the central barrier, expected "
                        + central.generation;
            } else {
                central.arrived++;
                if (m.values().length == 2) {
                    central.withValues++;
                    central.values[m.node() * rt.threadsPerNode + (int) m.values()[0]] = m.values()[1];
                }
                if (central.arrived == central.values.length) {
                    if (central.withValues != 0 && central.withValues != central.arrived) {
                        error = "collective mismatch at global barrier generation " + central.generation + ": "
                                + central.withValues + " of " + central.arrived
                                + " workers called a collective, the others a plain barrier";
                    }
                    release = central.withValues == 0 ? NONE : central.values.clone();
                    central.arrived = 0;
                    central.withValues = 0;
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
     * KARY: merges {@code nodes} nodes' arrivals (own or a child's subtree) into generation
     * {@code gen}; the last one sends the subtree's arrival to the parent, or at the root, the release.
     * Values travel as blocks {@code [node, v0 .. v(threadsPerNode-1)]}.
     */
    private void combine(long gen, int nodes, long[] blocks, boolean withValues) {
        BarrierArriveMessage up = null;
        long[] release = null;
        String error = null;
        synchronized (tree) {
            if (gen != tree.generation) {
                error = "k-ary barrier at node " + rt.nodeId + " got an arrival for generation " + gen + ", expected "
                        + tree.generation;
            } else {
                tree.arrivedNodes += nodes;
                if (withValues) tree.withValues += nodes;
                tree.blocks.add(blocks);
                if (tree.arrivedNodes == tree.subtreeNodes) {
                    if (tree.withValues != 0 && tree.withValues != tree.subtreeNodes) {
                        error = "collective mismatch at k-ary barrier generation " + gen
                                + ": some nodes contributed values, others called a plain barrier";
                    }
                    boolean values = tree.withValues != 0;
                    if (rt.nodeId == 0) {
                        release = values ? new long[rt.nodes * rt.threadsPerNode] : NONE;
                        if (values) {
                            for (long[] b : tree.blocks) {
                                for (int i = 0; i < b.length; i += rt.threadsPerNode + 1) {
                                    System.arraycopy(b, i + 1, release, (int) b[i] * rt.threadsPerNode, rt.threadsPerNode);
                                }
                            }
                        }
                    } else {
                        long[] all = NONE;
                        if (values) {
                            int n = 0;
                            for (long[] b : tree.blocks) n += b.length;
                            all = new long[n];
                            n = 0;
                            for (long[] b : tree.blocks) {
                                System.arraycopy(b, 0, all, n, b.length);
                                n += b.length;
                            }
                        }
                        up = new BarrierArriveMessage(KARY_GLOBAL, gen, rt.nodeId, tree.subtreeNodes, all);
                    }
                    tree.blocks.clear();
                    tree.arrivedNodes = 0;
                    tree.withValues = 0;
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

    /** Stops the communication thread of a FIXED proxy. */
    void close() {
        if (commThread != null) commThread.interrupt();
    }

    /** Arrives at group barrier {@code id}. */
    void group(int id) {
        rt.checkFailed();
        Group b;
        synchronized (groups) {
            b = groups.computeIfAbsent(id, k -> new Group());
        }
        long gen;
        synchronized (b) {
            gen = b.completed;
        }
        rt.peers().send(0, new BarrierArriveMessage(id, gen, rt.nodeId, 1, NONE));
        synchronized (b) {
            while (b.completed <= gen) {
                rt.checkFailed();
                waitOn(b);
            }
        }
    }

    /** The barrier of this node's workers. */
    void local() {
        rt.checkFailed();
        Local l = local;
        synchronized (l) {
            long gen = l.generation;
            if (++l.arrived == l.parties) {
                l.arrived = 0;
                l.generation++;
                l.notifyAll();
                return;
            }
            while (l.generation == gen) {
                rt.checkFailed();
                waitOn(l);
            }
        }
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
                g.completed = m.generation() + 1;
                g.notifyAll();
            }
            return;
        }
        Group b;
        synchronized (groups) {
            b = groups.computeIfAbsent(m.barrierId(), k -> new Group());
        }
        synchronized (b) {
            b.completed = m.generation() + 1;
            b.notifyAll();
        }
    }

    void wakeAll() {
        synchronized (global) { global.notifyAll(); }
        synchronized (local) { local.notifyAll(); }
        Group[] all;
        synchronized (groups) { all = groups.values().toArray(new Group[0]); }
        for (Group b : all) synchronized (b) { b.notifyAll(); }
    }

    private static void waitOn(Object monitor) {
        try {
            monitor.wait(NodeRuntime.POLL_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DsaException("interrupted while waiting at a barrier");
        }
    }
}
