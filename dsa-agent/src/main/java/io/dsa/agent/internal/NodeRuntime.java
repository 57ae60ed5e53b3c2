package io.dsa.agent.internal;

import io.dsa.ArraySpec;
import io.dsa.DsaException;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.HostPort;
import io.dsa.agent.transport.Connection;
import io.dsa.agent.transport.InboundHandler;
import io.dsa.agent.transport.Transport;
import io.dsa.agent.transport.TransportConfig;
import io.dsa.agent.wire.BarrierArriveMessage;
import io.dsa.agent.wire.BarrierReleaseMessage;
import io.dsa.agent.wire.DefineMessage;
import io.dsa.agent.wire.JoinMessage;
import io.dsa.agent.wire.LockMessage;
import io.dsa.agent.wire.RegisterMessage;
import io.dsa.agent.wire.RegisteredMessage;
import io.dsa.agent.wire.ReportMessage;
import io.dsa.agent.wire.StatusMessage;
import io.dsa.agent.wire.VarOpMessage;
import io.dsa.agent.wire.VarResultMessage;
import io.dsa.agent.wire.ViewMessage;
import io.dsa.coherence.Access;
import io.dsa.coherence.CoherenceEngine;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.PartitionStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runtime of one node: its transport and peers, the coherence engine with the node's
 * partition slots, shared variables homed here, barrier and lock clients, and (on node 0) the
 * monitor role. Inbound messages are handled on transport threads and never block.
 */
public final class NodeRuntime implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NodeRuntime.class);
    /** How often blocked workers re-check for a failed job. */
    static final long POLL_MS = 50;

    final DsaConfig config;
    final int nodeId;

    /** @return this node's id */
    public int nodeId() { return nodeId; }
    final int nodes;
    final int threadsPerNode;
    private final long startNanos = System.nanoTime();
    private final Transport transport;
    private final Peers peers;
    private final MonitorRole monitor;

    /** Serialises every call into the coherence engine. */
    final Object engineLock = new Object();
    final CoherenceEngine engine;
    private final Map<Integer, ArrayState> arrays = new ConcurrentHashMap<>();
    private final Map<Integer, List<CoherenceMessage>> earlyCoherence = new HashMap<>();

    private final Map<Integer, AtomicLong> homedVariables = new ConcurrentHashMap<>();
    private final Map<Integer, List<Object[]>> earlyVarOps = new HashMap<>();

    private final Map<Long, CompletableFuture<Object>> calls = new ConcurrentHashMap<>();
    private final AtomicLong nextRequestId = new AtomicLong(1);

    final BarrierClient barriers;
    private final CompletableFuture<ViewMessage> view = new CompletableFuture<>();
    private volatile long viewNanos;
    private final CompletableFuture<String> finished = new CompletableFuture<>();
    /** A clone's: completed when its connection to node 0 closes (its VM ended). */
    private final CompletableFuture<String> monitorLost = new CompletableFuture<>();
    private volatile String failure;
    private volatile boolean closed;

    // mobility: see the section "mobility" below
    private volatile boolean movedAway;
    private final java.util.Set<Connection> retired = ConcurrentHashMap.newKeySet();
    private final Map<Integer, CompletableFuture<Connection>> incomingMoves = new ConcurrentHashMap<>();
    private final Object gateLock = new Object();
    private CompletableFuture<Long> gate;
    private long gateMinEpoch;
    private Runnable heldRelease;
    private final java.util.List<WorkerImpl> workers = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile String[] addresses = new String[0];

    private NodeRuntime(DsaConfig config) {
        this(config, config.nodeId(), config.nodes());
    }

    /**
     * @param nodeId this agent's node id; a clone's is {@code >= config.nodes()}
     * @param capacity node ids this agent accepts, {@code [0, capacity)} (grows as clones join)
     */
    private NodeRuntime(DsaConfig config, int nodeId, int capacity) {
        if (!config.hasSecret()) {
            throw new DsaException("node " + config.nodeId() + " has no cluster secret: give a secret file or set "
                    + DsaConfig.SECRET_ENV);
        }
        this.config = config;
        this.nodeId = nodeId;
        this.nodes = config.nodes();
        this.threadsPerNode = config.threadsPerNode();
        this.peers = new Peers(nodeId, capacity, this::dispatch, this::sendFailed);
        this.engine = new CoherenceEngine(nodeId, capacity, (a, p) -> array(a).layout.homeOf(p), new SlotStore(),
                m -> peers.send(m.destination(), m));
        this.barriers = new BarrierClient(this);
        TransportConfig tc = TransportConfig.builder()
                .bindHost(config.bindHost())
                .port(config.port())
                .secret(config.secret())
                .vmName(config.vmName())
                .nodeId(nodeId)
                .maxFrameBytes(config.maxFrameBytes())
                .ioThreads(1) // a node has at most N-1 connections; one I/O thread keeps ordering cheap
                .build();
        this.transport = Transport.start(tc, new Inbound());
        String self = config.bindHost() + ":" + transport.boundAddress().getPort();
        this.monitor = nodeId == 0 ? new MonitorRole(this, nodes, threadsPerNode, self) : null;
    }

    /** Starts the node: binds and, unless node 0, joins the monitor. */
    public static NodeRuntime start(DsaConfig config) {
        NodeRuntime rt = new NodeRuntime(config);
        try {
            if (rt.monitor != null) {
                rt.monitor.maybeSendView();
            } else {
                HostPort m = HostPort.parse(config.monitorAddress());
                Connection c = rt.transport.connect(m.host(), m.port())
                        .get(config.startupTimeoutMs(), TimeUnit.MILLISECONDS);
                if (c.peerNodeId() != 0) {
                    throw new DsaException("monitor address " + m + " is node " + c.peerNodeId() + ", expected node 0");
                }
                rt.peers.attach(0, c);
                c.send(new JoinMessage(rt.nodeId, config.bindHost(), rt.transport.boundAddress().getPort()));
            }
            return rt;
        } catch (ExecutionException e) {
            rt.close();
            throw new DsaException("node " + config.nodeId() + " cannot join the monitor at " + config.monitorAddress()
                    + ": " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            rt.close();
            throw new DsaException("node " + config.nodeId() + " timed out after " + config.startupTimeoutMs()
                    + " ms joining the monitor at " + config.monitorAddress());
        } catch (InterruptedException e) {
            rt.close();
            Thread.currentThread().interrupt();
            throw new DsaException("interrupted while joining the monitor");
        } catch (RuntimeException e) {
            rt.close();
            throw e;
        }
    }

    /** @return {@code host:port} this node listens on */
    public String address() { return config.bindHost() + ":" + transport.boundAddress().getPort(); }

    Peers peers() { return peers; }

    /** Waits for the membership view. */
    ViewMessage awaitView() {
        try {
            return view.get(config.startupTimeoutMs(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new DsaException("the virtual machine did not form within " + config.startupTimeoutMs()
                    + " ms (node " + nodeId + " waited for the view of " + nodes + " nodes)");
        } catch (ExecutionException e) {
            throw new DsaException(e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DsaException("interrupted while waiting for the view");
        }
    }

    long startupNanos() { return viewNanos - startNanos; }

    // ---- failures ------------------------------------------------------------------------------

    /** @throws DsaException if the job has failed */
    void checkFailed() {
        if (movedAway) throw new MovedAway(nodeId);
        String f = failure;
        if (f != null) throw new DsaException("job failed: " + f);
    }

    boolean failed() { return failure != null; }

    /**
     * Failure texts longer than this are cut when reported: the report travels in one frame, which
     * may be as small as {@link DsaConfig#MIN_MAX_FRAME_BYTES} (UTF-8 takes at most 3 bytes a char).
     */
    static final int MAX_FAILURE_CHARS = 1000;

    /** Reports a local failure to the monitor, which aborts the job everywhere. */
    void reportFailure(String text) {
        String cut = text.length() <= MAX_FAILURE_CHARS ? text
                : text.substring(0, MAX_FAILURE_CHARS) + "... (" + (text.length() - MAX_FAILURE_CHARS) + " more characters)";
        peers.send(0, new StatusMessage(nodeId, StatusMessage.FAILED, cut));
    }

    /**
     * A message that could not be sent fails the job with the reason: whatever waits for it (a
     * reply, a barrier release, a partition) would otherwise wait until the job's timeout.
     */
    private void sendFailed(int node, Object message, DsaException cause) {
        String text = "node " + nodeId + " " + cause.getMessage();
        LOG.error(text);
        if (message instanceof StatusMessage) {
            abort(text);   // the failure report itself: fail here at least
        } else {
            reportFailure(text);
        }
    }

    private void abort(String text) {
        if (failure == null) failure = text;
        for (CompletableFuture<Object> f : calls.values()) f.completeExceptionally(new DsaException("job failed: " + text));
        for (ArrayState a : arrays.values()) for (Slot s : a.slots) s.wakeAll();
        barriers.wakeAll();
    }

    // ---- requests with replies -------------------------------------------------------------------

    long newRequest(CompletableFuture<Object> future) {
        long id = nextRequestId.getAndIncrement();
        calls.put(id, future);
        if (failure != null) future.completeExceptionally(new DsaException("job failed: " + failure));
        return id;
    }

    /** Waits for {@code future}, waking up to notice a failed job. */
    <T> T await(CompletableFuture<T> future, String what) {
        while (true) {
            checkFailed();
            try {
                return future.get(POLL_MS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                // poll again
            } catch (ExecutionException e) {
                Throwable c = e.getCause();
                if (c instanceof DsaException) throw new DsaException(c.getMessage(), c);
                throw new DsaException(what + " failed: " + c, c);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new DsaException("interrupted while waiting for " + what);
            }
        }
    }

    // ---- registry --------------------------------------------------------------------------------

    RegisteredMessage register(int kind, String name, long[] params) {
        CompletableFuture<Object> f = new CompletableFuture<>();
        long id = newRequest(f);
        peers.send(0, new RegisterMessage(id, kind, name, params));
        RegisteredMessage r = (RegisteredMessage) await(f, "registering '" + name + "'");
        if (!r.error().isEmpty()) throw new DsaException(r.error());
        return r;
    }

    ArrayState registerArray(ArraySpec spec) {
        long[] params = Specs.toParams(spec);
        RegisteredMessage r = register(RegisterMessage.ARRAY, spec.name(), params);
        // the monitor's definition may still be on its way (another thread of the monitor may be
        // sending it); the registration proved the spec, so define it here, idempotently
        onDefine(new DefineMessage(RegisterMessage.ARRAY, r.objectId(), r.home(), spec.name(), params));
        return array(r.objectId());
    }

    ArrayState array(int id) {
        ArrayState a = arrays.get(id);
        if (a == null) throw new IllegalStateException("unknown array id " + id + " at node " + nodeId);
        return a;
    }

    private void onDefine(DefineMessage d) {
        if (d.kind() == RegisterMessage.ARRAY) {
            List<CoherenceMessage> early;
            synchronized (engineLock) {
                if (arrays.containsKey(d.objectId())) return;
                arrays.put(d.objectId(), new ArrayState(d.objectId(), Specs.fromParams(d.name(), d.params()), nodes,
                        threadsPerNode, nodeId));
                early = earlyCoherence.remove(d.objectId());
                if (early != null) for (CoherenceMessage m : early) engine.onMessage(m);
            }
        } else if (d.kind() == RegisterMessage.VARIABLE && d.home() == nodeId) {
            List<Object[]> early;
            synchronized (homedVariables) {
                if (homedVariables.containsKey(d.objectId())) return;
                homedVariables.put(d.objectId(), new AtomicLong(d.params()[1]));
                early = earlyVarOps.remove(d.objectId());
            }
            if (early != null) for (Object[] op : early) onVarOp((Integer) op[0], (VarOpMessage) op[1]);
        }
    }

    private void onCoherence(CoherenceMessage m) {
        synchronized (engineLock) {
            if (!arrays.containsKey(m.arrayId())) {
                // the monitor's definition is on its way on another connection
                earlyCoherence.computeIfAbsent(m.arrayId(), k -> new ArrayList<>()).add(m);
                return;
            }
            engine.onMessage(m);
        }
    }

    // ---- shared variables --------------------------------------------------------------------------

    /** Executes a variable operation at its home, here or remote. */
    VarResultMessage varOp(int varId, int home, int op, long a, long b) {
        CompletableFuture<Object> f = new CompletableFuture<>();
        long id = newRequest(f);
        peers.send(home, new VarOpMessage(id, varId, op, a, b));
        return (VarResultMessage) await(f, "shared variable operation");
    }

    private void onVarOp(int from, VarOpMessage m) {
        AtomicLong v;
        synchronized (homedVariables) {
            v = homedVariables.get(m.varId());
            if (v == null) {
                earlyVarOps.computeIfAbsent(m.varId(), k -> new ArrayList<>()).add(new Object[] {from, m});
                return;
            }
        }
        peers.send(from, VariableOps.execute(v, m));
    }

    // ---- locks ---------------------------------------------------------------------------------------

    void lockAcquire(int lockId) {
        CompletableFuture<Object> f = new CompletableFuture<>();
        long id = newRequest(f);
        peers.send(0, new LockMessage(lockId, LockMessage.ACQUIRE, nodeId, id));
        await(f, "lock");
    }

    /**
     * Asks the home for the lock and waits until {@code deadlineNs} ({@link System#nanoTime()}).
     * On time-out withdraws the request; a grant that raced the withdrawal is kept (and reported).
     *
     * @return whether this node now holds the lock
     */
    boolean lockTryAcquire(int lockId, long deadlineNs) {
        CompletableFuture<Object> f = new CompletableFuture<>();
        long id = newRequest(f);
        peers.send(0, new LockMessage(lockId, LockMessage.ACQUIRE, nodeId, id));
        while (true) {
            checkFailed();
            long leftNs = deadlineNs - System.nanoTime();
            if (leftNs <= 0) break;
            try {
                f.get(Math.min(leftNs, TimeUnit.MILLISECONDS.toNanos(POLL_MS)), TimeUnit.NANOSECONDS);
                return true;
            } catch (TimeoutException e) {
                // poll again
            } catch (ExecutionException e) {
                throw new DsaException("lock failed: " + e.getCause().getMessage(), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new DsaException("interrupted while waiting for a lock");
            }
        }
        peers.send(0, new LockMessage(lockId, LockMessage.CANCEL, nodeId, id));
        // the home answers with CANCEL_ACK, or the grant it sent before it saw the cancel: then the
        // lock was granted before the withdrawal took effect, and this node keeps it
        LockMessage answer = (LockMessage) await(f, "lock cancel");
        return answer.op() == LockMessage.GRANT;
    }

    void lockRelease(int lockId) {
        peers.send(0, new LockMessage(lockId, LockMessage.RELEASE, nodeId, 0));
    }

    // ---- job lifecycle -------------------------------------------------------------------------------

    void report(String line) {
        peers.send(0, new ReportMessage(nodeId, line));
    }

    void reportDone() {
        peers.send(0, new StatusMessage(nodeId, StatusMessage.DONE, ""));
    }

    /** Waits until every node is done. @return the first failure, or empty */
    String awaitFinished() {
        while (true) {
            try {
                return finished.get(POLL_MS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                // keep waiting: other nodes may still be working
            } catch (ExecutionException e) {
                return e.getCause().getMessage();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new DsaException("interrupted while waiting for the job to finish");
            }
        }
    }

    List<String> reportLines() { return monitor == null ? List.of() : monitor.lines(); }

    // ---- dispatch --------------------------------------------------------------------------------------

    private void dispatch(int from, Object m) {
        if (m instanceof CoherenceMessage) {
            onCoherence((CoherenceMessage) m);
        } else if (m instanceof BarrierReleaseMessage) {
            barriers.onRelease((BarrierReleaseMessage) m);
        } else if (m instanceof RegisteredMessage) {
            complete(((RegisteredMessage) m).requestId(), m);
        } else if (m instanceof VarResultMessage) {
            complete(((VarResultMessage) m).requestId(), m);
        } else if (m instanceof VarOpMessage) {
            onVarOp(from, (VarOpMessage) m);
        } else if (m instanceof DefineMessage) {
            onDefine((DefineMessage) m);
        } else if (m instanceof LockMessage && (((LockMessage) m).op() == LockMessage.GRANT
                || ((LockMessage) m).op() == LockMessage.CANCEL_ACK)) {
            complete(((LockMessage) m).requestId(), m);
        } else if (m instanceof BarrierArriveMessage && barriers.handlesArrive((BarrierArriveMessage) m)) {
            barriers.onArrive(from, (BarrierArriveMessage) m);
        } else if (m instanceof ViewMessage) {
            onView((ViewMessage) m);
        } else if (m instanceof StatusMessage && isNodeStatus((StatusMessage) m)) {
            onJobStatus((StatusMessage) m);
        } else if (monitor != null) {
            dispatchToMonitor(from, m);
        } else {
            LOG.warn("node {} ignored unexpected {} from node {}", nodeId, m.getClass().getSimpleName(), from);
        }
    }

    private static boolean isNodeStatus(StatusMessage s) {
        return s.code() == StatusMessage.ABORT || s.code() == StatusMessage.FINISHED;
    }

    private void dispatchToMonitor(int from, Object m) {
        if (m instanceof RegisterMessage) {
            monitor.onRegister(from, (RegisterMessage) m);
        } else if (m instanceof BarrierArriveMessage) {
            monitor.onArrive(from, (BarrierArriveMessage) m);
        } else if (m instanceof LockMessage) {
            monitor.onLock(from, (LockMessage) m);
        } else if (m instanceof ReportMessage) {
            monitor.onReport((ReportMessage) m);
        } else if (m instanceof StatusMessage) {
            monitor.onStatus(from, (StatusMessage) m);
        } else {
            LOG.warn("monitor ignored unexpected {} from node {}", m.getClass().getSimpleName(), from);
        }
    }

    private void complete(long requestId, Object value) {
        CompletableFuture<Object> f = calls.remove(requestId);
        if (f != null) f.complete(value);
    }

    private void onView(ViewMessage v) {
        if (v.addresses().size() != nodes || v.threadsPerNode() != threadsPerNode) {
            abort("view of " + v.addresses().size() + " nodes x " + v.threadsPerNode() + " threads does not match node "
                    + nodeId + "'s configuration of " + nodes + " x " + threadsPerNode);
            view.completeExceptionally(new DsaException(failure));
            return;
        }
        // the higher id dials the lower; node 0's connection exists since the join
        for (int j = 1; j < nodeId; j++) {
            int peer = j;
            HostPort hp = HostPort.parse(v.addresses().get(j));
            transport.connect(hp.host(), hp.port()).whenComplete((c, e) -> {
                if (e != null) {
                    reportFailure("node " + nodeId + " cannot connect to node " + peer + " at " + hp + ": " + e.getMessage());
                } else if (c.peerNodeId() != peer || !peers.attach(peer, c)) {
                    c.close();
                    reportFailure("node " + nodeId + " reached node " + c.peerNodeId() + " at " + hp + ", expected node " + peer);
                }
            });
        }
        addresses = v.addresses().toArray(new String[0]);
        viewNanos = System.nanoTime();
        view.complete(v);
    }

    private void onJobStatus(StatusMessage s) {
        if (s.code() == StatusMessage.ABORT) {
            abort(s.text());
        } else {
            if (!s.text().isEmpty()) abort(s.text());
            finished.complete(s.text());
        }
    }

    private final class Inbound implements InboundHandler {
        @Override
        public void onConnected(Connection c) {
            int peer = c.peerNodeId();
            CompletableFuture<Connection> move = incomingMoves.get(peer);
            if (move != null && move.complete(c)) {
                return; // the moved node's new agent: attached when the move commits
            }
            // nodes dial the monitor and lower nodes; node 0's connections are attached at join
            if (peer <= nodeId && !(nodeId == 0)) {
                return; // a connection we dialled: attached by the dialler's code
            }
            if (!peers.attach(peer, c)) {
                LOG.warn("node {} refused a second connection from node {} ({})", nodeId, peer, c.remoteAddress());
                c.close();
            }
        }

        @Override
        public void onMessage(Connection c, Object m) {
            // a moved node's old connection, replaced at the commit: what its old agent still sends (e.g. that it
            // lost a peer which had already switched to the new agent) is not the node's any more
            if (!retired.isEmpty() && retired.contains(c)) return;
            int from = c.peerNodeId();
            try {
                if (monitor != null && m instanceof JoinMessage) {
                    String error = monitor.onJoin(from, (JoinMessage) m);
                    if (error != null) {
                        LOG.warn("monitor refused join from {}: {}", c.remoteAddress(), error);
                        c.close();
                    }
                    return;
                }
                dispatch(from, m);
            } catch (RuntimeException e) {
                LOG.warn("node {} failed handling {} from node {}", nodeId, m, from, e);
                reportFailure("node " + nodeId + " failed handling " + m.getClass().getSimpleName() + " from node " + from
                        + ": " + e);
            }
        }

        @Override
        public void onDisconnected(Connection c, Throwable cause) {
            if (closed) return;
            if (nodeId >= nodes) {   // a clone: it lives as long as its VM's monitor
                if (c.peerNodeId() == 0) monitorLost.complete(cause == null ? "connection closed" : cause.toString());
                return;
            }
            if (c.peerNodeId() >= nodes) {   // a clone is no member of the job
                if (peers.holds(c.peerNodeId(), c)) forgetClone(c.peerNodeId(), cause);
                return;
            }
            if (movedAway || finished.isDone() || retired.remove(c)) return;
            // a stray connection (an abandoned move's) while the peer's current one is up
            if (peers.connected(c.peerNodeId()) && !peers.holds(c.peerNodeId(), c)) return;
            int peer = c.peerNodeId();
            String why = cause == null ? "connection closed" : cause.toString();
            if (monitor != null) {
                monitor.onNodeLost(peer, why);
            } else if (peer == 0) {
                String text = "lost the monitor (node 0): " + why;
                abort(text);
                finished.complete(text);
            } else {
                reportFailure("node " + nodeId + " lost node " + peer + ": " + why);
            }
        }
    }

    // ---- mobility ------------------------------------------------------------------------------------

    /** Thrown in the workers of an agent whose node moved to another agent; ends them quietly. */
    static final class MovedAway extends DsaException {
        MovedAway(int node) { super("node " + node + " moved to another agent; this agent's workers stop here"); }
    }

    /** @return whether this agent's node moved away (its workers unwound) */
    boolean movedAway() { return movedAway; }

    void addWorker(WorkerImpl w) { workers.add(w); }

    /** @return the address of every node, by id, as this node knows them */
    public List<String> view() { return List.of(addresses); }

    /**
     * Global barrier releases pass here (at node 0, every barrier kind). A plain release (no
     * collective values) is held when a migration armed the gate: the VM is then at a safe point.
     */
    void releaseGlobal(long generation, boolean plain, Runnable send) {
        CompletableFuture<Long> reached = null;
        synchronized (gateLock) {
            if (plain && gate != null && heldRelease == null && generation + 1 >= gateMinEpoch) {
                heldRelease = send;
                reached = gate;
            }
        }
        if (reached != null) {
            reached.complete(generation);
        } else {
            send.run();
        }
    }

    /**
     * Node 0: holds the release of the next plain global barrier. The future completes with the
     * barrier's generation when every worker of the VM waits there (the safe point).
     */
    public CompletableFuture<Long> holdNextGlobalRelease() {
        return holdGlobalRelease(0);
    }

    /**
     * Node 0: as {@link #holdNextGlobalRelease()}, but holds the first plain global barrier whose
     * release brings the workers to epoch {@code minEpoch} or later.
     */
    public CompletableFuture<Long> holdGlobalRelease(long minEpoch) {
        if (nodeId != 0) throw new DsaException("only node 0 (the barrier root) can hold a global barrier, not node " + nodeId);
        synchronized (gateLock) {
            if (gate != null) throw new DsaException("a migration is already under way (the gate at node 0 is armed)");
            gate = new CompletableFuture<>();
            gateMinEpoch = minEpoch;
            return gate;
        }
    }

    /** Node 0: sends the held release (if any) and disarms the gate. Idempotent. */
    public void releaseHeldGlobal() {
        release(null, 0);
    }

    /** Node 0: sends the held release and arms the gate again for epoch {@code minEpoch}, atomically. */
    public CompletableFuture<Long> releaseHeldGlobalAndHold(long minEpoch) {
        CompletableFuture<Long> next = new CompletableFuture<>();
        release(next, minEpoch);
        return next;
    }

    // Sends the held release (if any) and leaves the gate armed with `next` for `minEpoch`, or disarmed if null.
    private void release(CompletableFuture<Long> next, long minEpoch) {
        Runnable send;
        synchronized (gateLock) {
            send = heldRelease;
            heldRelease = null;
            if (gate != null) gate.cancel(false);
            gate = next;
            gateMinEpoch = minEpoch;
        }
        if (send != null) send.run();
    }

    /**
     * The node's state at a safe point: directory entries and home copies, cached copies, shared
     * variables homed here, barrier counters and the view. The workers resume at the returned
     * state's epoch.
     *
     * @throws DsaException if the node is not at a safe point (a coherence transaction is under way,
     *         or the workers are not all waiting at the same global barrier)
     */
    public io.dsa.agent.AgentState snapshot() {
        return snapshotState(true);
    }

    private io.dsa.agent.AgentState snapshotState(boolean withWorkers) {
        awaitView(); // the view travels in the state: a VM still forming has none yet
        long epoch = -1;
        for (WorkerImpl w : workers) {
            if (epoch == -1) epoch = w.epoch();
            if (w.epoch() != epoch) {
                throw new DsaException("node " + nodeId + " is not at a safe point: its workers are at epochs " + epoch + " and "
                        + w.epoch());
            }
        }
        if (!withWorkers) {
            epoch = Math.max(epoch, 0);
        } else if (workers.size() != threadsPerNode) {
            throw new DsaException("node " + nodeId + " is not at a safe point: " + workers.size() + " of " + threadsPerNode
                    + " workers started");
        }
        List<io.dsa.agent.AgentState.ArrayImage> images = new ArrayList<>();
        synchronized (engineLock) {
            if (!engine.quiescent()) {
                throw new DsaException("node " + nodeId + " is not at a safe point: a coherence transaction is under way");
            }
            Map<Integer, Map<Integer, io.dsa.agent.AgentState.PartitionImage>> parts = new java.util.TreeMap<>();
            engine.forEachHomeEntry((a, p, state, sharers, owner) -> parts.computeIfAbsent(a, k -> new java.util.TreeMap<>())
                    .put(p, new io.dsa.agent.AgentState.PartitionImage(p, io.dsa.agent.AgentState.ROLE_HOME, state.ordinal(), owner,
                            sharers, slotData(a, p))));
            engine.forEachCacheEntry((a, p, state) -> parts.computeIfAbsent(a, k -> new java.util.TreeMap<>())
                    .put(p, new io.dsa.agent.AgentState.PartitionImage(p, io.dsa.agent.AgentState.ROLE_CACHE, state.ordinal(), -1,
                            new int[0], state == io.dsa.CacheState.INVALID ? null : slotData(a, p))));
            for (ArrayState a : new java.util.TreeMap<>(arrays).values()) {
                Map<Integer, io.dsa.agent.AgentState.PartitionImage> mine = parts.computeIfAbsent(a.id, k -> new java.util.TreeMap<>());
                // untouched home partitions: state HOME, the data written by the home's own workers
                for (int p = 0; p < a.slots.length; p++) {
                    if (a.layout.homeOf(p) == nodeId && !mine.containsKey(p)) {
                        mine.put(p, new io.dsa.agent.AgentState.PartitionImage(p, io.dsa.agent.AgentState.ROLE_HOME,
                                io.dsa.coherence.DirectoryState.HOME.ordinal(), -1, new int[0], slotData(a.id, p)));
                    }
                }
                images.add(new io.dsa.agent.AgentState.ArrayImage(a.id, a.spec.name(), Specs.toParams(a.spec),
                        new ArrayList<>(mine.values())));
            }
        }
        List<io.dsa.agent.AgentState.VariableImage> vars = new ArrayList<>();
        synchronized (homedVariables) {
            for (Map.Entry<Integer, AtomicLong> v : new java.util.TreeMap<>(homedVariables).entrySet()) {
                vars.add(new io.dsa.agent.AgentState.VariableImage(v.getKey(), v.getValue().get()));
            }
        }
        return new io.dsa.agent.AgentState(nodeId, config.vmName(), epoch + 1, nodes, threadsPerNode, List.of(addresses), images,
                vars, barriers.snapshot());
    }

    private byte[] slotData(int arrayId, int partition) {
        ArrayState a = array(arrayId);
        return a.slots[partition].snapshot(a.layout.partitionBytes(partition));
    }

    /**
     * Starts a new agent for {@code state.nodeId()} from a moved state: binds, installs the state,
     * and takes the view; it joins nobody (the other nodes attach it when the move commits, see
     * {@link #connectMoved()}). {@code config} gives the node id, bind host and port.
     *
     * @param beforeConnect run after the state is installed (a test hook for failed restores)
     */
    public static NodeRuntime restore(DsaConfig config, io.dsa.agent.AgentState state, Runnable beforeConnect) {
        if (state.nodeId() >= config.nodes()) {
            throw new DsaException("agent state of node " + state.nodeId() + " is a clone's (ids >= " + config.nodes()
                    + "): restore it with restoreClone");
        }
        if (state.nodeId() != config.nodeId() || state.nodes() != config.nodes() || state.threadsPerNode() != config.threadsPerNode()) {
            throw new DsaException("agent state of node " + state.nodeId() + " (" + state.nodes() + " nodes x " + state.threadsPerNode()
                    + " threads) does not fit the agent of node " + config.nodeId() + " (" + config.nodes() + " x "
                    + config.threadsPerNode() + ")");
        }
        NodeRuntime rt = new NodeRuntime(config);
        try {
            rt.install(state);
            beforeConnect.run();
            return rt;
        } catch (RuntimeException e) {
            rt.close();
            throw e;
        }
    }

    private void install(io.dsa.agent.AgentState state) {
        synchronized (engineLock) {
            for (io.dsa.agent.AgentState.ArrayImage ai : state.arrays()) {
                ArrayState a = new ArrayState(ai.id(), Specs.fromParams(ai.name(), ai.params()), nodes, threadsPerNode, nodeId);
                arrays.put(ai.id(), a);
                for (io.dsa.agent.AgentState.PartitionImage p : ai.partitions()) {
                    if (p.partition() < 0 || p.partition() >= a.slots.length) {
                        throw new DsaException("agent state: partition " + p.partition() + " of array '" + ai.name()
                                + "' out of range [0, " + a.slots.length + ")");
                    }
                    Access access;
                    if (p.role() == io.dsa.agent.AgentState.ROLE_HOME) {
                        io.dsa.coherence.DirectoryState ds = io.dsa.coherence.DirectoryState.values()[p.state()];
                        engine.restoreHome(ai.id(), p.partition(), ds, p.sharers(), p.owner());
                        access = switch (ds) {
                            case HOME -> Access.READ_WRITE;
                            case SHARED -> Access.READ;
                            case EXCLUSIVE -> Access.NONE;
                        };
                    } else {
                        io.dsa.CacheState cs = io.dsa.CacheState.values()[p.state()];
                        engine.restoreCache(ai.id(), p.partition(), cs);
                        access = switch (cs) {
                            case INVALID -> Access.NONE;
                            case SHARED -> Access.READ;
                            case EXCLUSIVE -> Access.READ_WRITE;
                        };
                    }
                    int expected = a.layout.partitionBytes(p.partition());
                    if (p.data() != null && p.data().length != expected) {
                        throw new DsaException("agent state: partition " + p.partition() + " of array '" + ai.name() + "' has "
                                + p.data().length + " bytes, expected " + expected);
                    }
                    if (p.data() == null && access != Access.NONE) {
                        throw new DsaException("agent state: partition " + p.partition() + " of array '" + ai.name()
                                + "' is valid (" + access + ") but carries no data");
                    }
                    a.slots[p.partition()].install(p.data() == null ? new byte[expected] : p.data(), access);
                }
            }
        }
        synchronized (homedVariables) {
            for (io.dsa.agent.AgentState.VariableImage v : state.variables()) homedVariables.put(v.id(), new AtomicLong(v.bits()));
        }
        barriers.restore(state.barriers());
        List<String> addrs = new ArrayList<>(state.view());
        if (nodeId < addrs.size()) addrs.set(nodeId, address());
        addresses = addrs.toArray(new String[0]);
        viewNanos = System.nanoTime();
        view.complete(new ViewMessage(threadsPerNode, List.copyOf(addrs)));
    }

    /**
     * The restored agent dials every other node of its view.
     *
     * @return completes when every connection is authenticated and attached here
     */
    public CompletableFuture<Void> connectMoved() {
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (int j = 0; j < nodes; j++) {
            if (j == nodeId) continue;
            int peer = j;
            HostPort hp = HostPort.parse(addresses[j]);
            all.add(transport.connect(hp.host(), hp.port()).thenAccept(c -> {
                // onConnected attached it already when the peer's id is higher (it takes it for an inbound one)
                if (c.peerNodeId() != peer || !peers.attach(peer, c) && !peers.holds(peer, c)) {
                    c.close();
                    throw new DsaException("node " + nodeId + " reached node " + c.peerNodeId() + " at " + hp + ", expected node " + peer);
                }
            }));
        }
        return CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0]));
    }

    /** Another node is moving: its new agent's connection is held until {@link #commitMove}. */
    public CompletableFuture<Connection> expectMove(int node) {
        return incomingMoves.computeIfAbsent(node, k -> new CompletableFuture<>());
    }

    /** The move of {@code node} failed: drops the held connection; the old agent stays. */
    public void abandonMove(int node) {
        CompletableFuture<Connection> f = incomingMoves.remove(node);
        if (f != null && !f.complete(null)) {
            Connection c = f.getNow(null);
            if (c != null) {
                retired.add(c);
                c.close();
            }
        }
    }

    /** Commits the move of {@code node} to {@code address}: the held connection replaces the old one. */
    public void commitMove(int node, String address) {
        CompletableFuture<Connection> f = incomingMoves.remove(node);
        Connection c = f == null ? null : f.getNow(null);
        if (c == null) throw new DsaException("node " + nodeId + " has no connection from the new agent of node " + node);
        Connection old = peers.replace(node, c);
        if (old != null) {
            retired.add(old);
            old.close();
        }
        String[] a = addresses.clone();
        a[node] = address;
        addresses = a;
        if (monitor != null) monitor.onMoved(node, address);
    }

    /**
     * A clone's state taken from this node at a safe point: every partition this node holds a
     * valid copy of without being its exclusive owner (its homed partitions in state HOME or
     * SHARED, its SHARED cached copies), all as SHARED copies of the clone {@code cloneId}.
     */
    public io.dsa.agent.AgentState snapshotForClone(int cloneId) {
        if (cloneId < nodes) throw new DsaException("clone id " + cloneId + " out of range [" + nodes + ", ...): ids below are the VM's nodes");
        io.dsa.agent.AgentState own = snapshotState(false);
        List<io.dsa.agent.AgentState.ArrayImage> images = new ArrayList<>();
        for (io.dsa.agent.AgentState.ArrayImage a : own.arrays()) {
            List<io.dsa.agent.AgentState.PartitionImage> copies = new ArrayList<>();
            for (io.dsa.agent.AgentState.PartitionImage p : a.partitions()) {
                boolean valid = p.role() == io.dsa.agent.AgentState.ROLE_HOME
                        ? p.state() != io.dsa.coherence.DirectoryState.EXCLUSIVE.ordinal()
                        : p.state() == io.dsa.CacheState.SHARED.ordinal();
                if (valid) {
                    copies.add(new io.dsa.agent.AgentState.PartitionImage(p.partition(), io.dsa.agent.AgentState.ROLE_CACHE,
                            io.dsa.CacheState.SHARED.ordinal(), -1, new int[0], p.data()));
                }
            }
            images.add(new io.dsa.agent.AgentState.ArrayImage(a.id(), a.name(), a.params(), copies));
        }
        return new io.dsa.agent.AgentState(cloneId, own.vmName(), own.epoch(), nodes, threadsPerNode, own.view(), images, List.of(),
                new io.dsa.agent.AgentState.BarrierImage(0, 0, 0, 0, 0, Map.of()));
    }

    /** Starts a clone's agent from {@code state} (its id {@code >= config.nodes()}); then {@link #connectMoved()}. */
    public static NodeRuntime restoreClone(DsaConfig config, io.dsa.agent.AgentState state) {
        if (state.nodeId() < config.nodes() || state.nodes() != config.nodes() || state.threadsPerNode() != config.threadsPerNode()) {
            throw new DsaException("agent state of node " + state.nodeId() + " (" + state.nodes() + " nodes x " + state.threadsPerNode()
                    + " threads) is not a clone of this VM of " + config.nodes() + " x " + config.threadsPerNode());
        }
        NodeRuntime rt = new NodeRuntime(config, state.nodeId(), state.nodeId() + 1);
        try {
            rt.install(state);
            return rt;
        } catch (RuntimeException e) {
            rt.close();
            throw e;
        }
    }

    // A clone left (stopped, or its host went): the homes here stop waiting for it and stop listing it.
    private void forgetClone(int clone, Throwable cause) {
        synchronized (engineLock) {
            engine.forgetNode(clone);
        }
        LOG.info("node {}: clone {} left ({}); no longer a sharer here", nodeId, clone, cause == null ? "connection closed" : cause.toString());
    }

    /** Accepts node ids up to {@code cloneId} (a clone joins): its connection and messages. */
    public void admitClone(int cloneId) {
        peers.grow(cloneId + 1);
        synchronized (engineLock) {
            engine.admitNodes(Math.max(cloneId + 1, 1));
        }
    }

    /**
     * Registers the clone of {@code cloneState} as a sharer of every partition it holds that is
     * homed here, so that later writes invalidate its copy. Only at a safe point.
     *
     * @throws DsaException if an entry cannot take a sharer (exclusive elsewhere or busy)
     */
    public void registerCloneSharers(io.dsa.agent.AgentState cloneState) {
        registerCloneSharers(cloneState.nodeId(), clonePartitions(cloneState));
    }

    /** @return the partitions a clone's state holds: array id to partition numbers */
    public static Map<Integer, int[]> clonePartitions(io.dsa.agent.AgentState cloneState) {
        Map<Integer, int[]> held = new java.util.TreeMap<>();
        for (io.dsa.agent.AgentState.ArrayImage a : cloneState.arrays()) {
            held.put(a.id(), a.partitions().stream().mapToInt(io.dsa.agent.AgentState.PartitionImage::partition).toArray());
        }
        return held;
    }

    /**
     * Registers clone {@code cloneId} as a sharer of those of {@code held} (array id to
     * partitions) that are homed here. Only at a safe point.
     *
     * @throws DsaException if an entry cannot take a sharer (exclusive elsewhere or busy)
     */
    public void registerCloneSharers(int cloneId, Map<Integer, int[]> held) {
        synchronized (engineLock) {
            for (Map.Entry<Integer, int[]> a : held.entrySet()) {
                ArrayState known = arrays.get(a.getKey());
                if (known == null) continue;
                for (int p : a.getValue()) {
                    if (known.layout.homeOf(p) != nodeId) continue;
                    if (!engine.addSharer(a.getKey(), p, cloneId)) {
                        throw new DsaException("node " + nodeId + " cannot register clone " + cloneId + " as a sharer of "
                                + "partition " + p + " of array '" + known.spec.name() + "': " + engine.describe(a.getKey(), p));
                    }
                }
            }
        }
    }

    /**
     * The array {@code name} as this agent holds it, for library-style access outside a job (a
     * clone serving reads). Accesses follow the coherence protocol like a worker's.
     *
     * @throws DsaException if this agent does not know the array
     */
    public io.dsa.SharedArray localArray(String name, java.util.concurrent.Executor async) {
        for (ArrayState a : arrays.values()) if (a.spec.name().equals(name)) return NodeContext.wrap(this, a, async);
        throw new DsaException("node " + nodeId + " knows no array named '" + name + "'");
    }

    /** @return for a clone, completed with the reason once its connection to node 0 closed (the VM ended) */
    public CompletableFuture<String> monitorLost() { return monitorLost; }

    /** This agent's node moved: its workers unwind at their barrier, it reports nothing more. */
    public void retireAfterMove() {
        movedAway = true;
        barriers.wakeAll();
    }

    // ---- partition store -----------------------------------------------------------------------------

    /** The engine's view of this node's slots; called with {@link #engineLock} held. */
    private final class SlotStore implements PartitionStore {
        @Override
        public void setAccess(int arrayId, int partition, Access access) {
            ArrayState a = array(arrayId);
            a.slots[partition].setAccess(access, a.layout.partitionBytes(partition));
        }

        @Override
        public byte[] snapshot(int arrayId, int partition) {
            // lent, not copied: the engine passes it straight to a send, which encodes it before returning (Peers
            // copies a message it must queue); the local access was lowered first, so no hit writes it meanwhile
            // except a racing writer, which re-checks the stamp and redoes its write through the protocol
            ArrayState a = array(arrayId);
            return a.slots[partition].lend(a.layout.partitionBytes(partition));
        }

        @Override
        public void install(int arrayId, int partition, byte[] data, Access access) {
            ArrayState a = array(arrayId);
            int expected = a.layout.partitionBytes(partition);
            if (data.length != expected) {
                throw new IllegalStateException("partition " + partition + " of array '" + a.spec.name() + "' arrived with "
                        + data.length + " bytes, expected " + expected);
            }
            a.slots[partition].install(data, access);
        }
    }

    /** @return whether {@link #close()} was called */
    public boolean isClosed() { return closed; }

    /** @return the VM's name */
    public String vmName() { return config.vmName(); }

    /**
     * @return {@code {homed, cached}}: partitions of all arrays homed at this node, and partitions
     *         homed elsewhere of which this node holds a readable copy
     */
    public int[] partitionCounts() {
        int homed = 0;
        int cached = 0;
        for (ArrayState a : arrays.values()) {
            for (int p = 0; p < a.slots.length; p++) {
                if (a.layout.homeOf(p) == nodeId) homed++;
                else if (Slot.readable(a.slots[p].stamp)) cached++;
            }
        }
        return new int[] {homed, cached};
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        abort("node " + nodeId + " closed");
        peers.close();
        transport.close();
    }
}
