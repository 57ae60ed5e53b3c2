package io.dsa.agent.internal;

import io.dsa.DsaException;
import io.dsa.agent.wire.BarrierArriveMessage;
import io.dsa.agent.wire.BarrierReleaseMessage;
import java.util.HashMap;
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

    BarrierClient(NodeRuntime rt) {
        this.rt = rt;
        this.global = new Global(rt.threadsPerNode);
        this.local = new Local(rt.threadsPerNode);
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
     */
    long[] global(int localThread, long value) {
        rt.checkFailed();
        Global g = global;
        long gen;
        long[] send = null;
        synchronized (g) {
            gen = g.generation;
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
        if (send != null) {
            rt.peers().send(0, new BarrierArriveMessage(MonitorRole.GLOBAL_BARRIER, gen, rt.nodeId, g.parties, send));
        }
        synchronized (g) {
            while (g.completed <= gen) {
                rt.checkFailed();
                waitOn(g);
            }
            return g.released;
        }
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
        if (m.barrierId() == MonitorRole.GLOBAL_BARRIER) {
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
