package io.dsa.agent.internal;

import io.dsa.DsaException;
import io.dsa.SharedArray;
import io.dsa.agent.AgentState;
import io.dsa.agent.BarrierKind;
import io.dsa.agent.ProxyMode;
import io.dsa.agent.WaitStrategy;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.HostPort;
import io.dsa.agent.transport.Connection;
import io.dsa.agent.wire.JoinMessage;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The runtime of one node, assembled from pieces with one job each (docs/runtime.md, "One node"):
 * the {@link PeerNetwork} they send through, the {@link MessageRouter} that hands them inbound
 * messages, the {@link JobLifecycle}, {@link PendingCalls}, {@link ArrayDirectory} (the arrays,
 * their slots and the coherence engine), {@link VariableHomes}, {@link LockClient},
 * {@link RegistryClient}, {@link BarrierClient}, {@link Membership}, {@link MigrationGate},
 * {@link NodeSnapshots}, {@link MoveSwitch}, {@link Cloning}, {@link ConnectionEvents}, and on
 * node 0 the {@link MonitorRole}. Inbound messages are handled on the transport's I/O thread and
 * never block; {@link NodeRoutes} says which piece handles which. The transport comes from a {@link NodeTransport.Factory}: Netty for real agents,
 * an in-memory one in tests.
 */
public final class NodeRuntime implements AutoCloseable {
    /** How often blocked workers re-check for a failed job. */
    static final long POLL_MS = 50;

    final DsaConfig config;
    final int nodeId;

    /** @return this node's id */
    public int nodeId() { return nodeId; }

    /** @return the node's I/O thread (whose work a waiting thread runs under SPIN: {@link IoThread#waitBegins}) */
    IoThread io() { return io; }
    final int nodes;
    final int threadsPerNode;

    private final Peers peers;
    private final MessageRouter router;
    final JobLifecycle job;
    private final PendingCalls calls;
    final ArrayDirectory arrays;
    final VariableHomes variables;
    final Scopes scopes;
    final Accumulator accumulator;
    final Diffs diffs;
    final LockClient locks;
    final Waiting waiting;
    final RegistryClient registry;
    final BarrierClient barriers;
    final Lanes lanes;
    final Membership membership;
    private final MigrationGate gate;
    final NodeSnapshots snapshots;
    private final MoveSwitch moves;
    private final Cloning cloning;
    private final MonitorRole monitor;
    /** Null unless the config asks for checkpoints. */
    final Checkpoints checkpoints;
    /** A clone's copies of its node's checkpoints; null on a node of the VM. */
    final CloneCopies cloneCopies;
    final WorkerReports workers;
    final NodeCounters counters;
    private final NodeTransport transport;
    private final IoThread io;
    private volatile boolean closed;

    /**
     * @param nodeId this agent's node id; a clone's is {@code >= config.nodes()}
     * @param capacity node ids this agent accepts, {@code [0, capacity)} (grows as clones join)
     */
    NodeRuntime(DsaConfig config, int nodeId, int capacity, NodeTransport.Factory transports) {
        if (!config.hasSecret()) {
            throw new DsaException("node " + config.nodeId() + " has no cluster secret: give a secret file or set "
                    + DsaConfig.SECRET_ENV);
        }
        this.config = config;
        this.nodeId = nodeId;
        this.nodes = config.nodes();
        this.threadsPerNode = config.threadsPerNode();
        Waiting.nodeStarted(threadsPerNode + 1);
        // the I/O thread comes first: it owns the coherence engine from the start, before any connection
        this.transport = transports.create(config, nodeId);
        this.io = transport.ioThread();
        if (config.bindCores()) io.execute(() -> CoreBinding.bindCurrentThread(config.coreShare(), config.coreShares()));   // once, before any connection
        this.counters = new NodeCounters(config.vmName(), nodeId, transport::bytesIn, transport::bytesOut, config.hitCounts());
        this.router = new MessageRouter(nodeId);
        this.peers = new Peers(nodeId, capacity, router::route, io, this::sendFailed);
        this.job = new JobLifecycle(nodeId, peers, this::wakeAll, config.waitStrategy(), config.machineThreads(), io);
        this.waiting = new Waiting(config.waitStrategy(), config.machineThreads(), job, io);
        this.calls = new PendingCalls(peers, job);
        this.arrays = new ArrayDirectory(nodeId, capacity, nodes, threadsPerNode, peers, io, waiting);
        if (config.readerPushes()) arrays.enableReaderPushes();
        if (config.selfInvalidation()) arrays.enableSelfDrops();
        this.variables = new VariableHomes(peers, calls);
        this.accumulator = new Accumulator(nodeId, arrays, peers, calls, job, io);
        this.diffs = new Diffs(nodeId, arrays, peers, calls, job, io);
        this.locks = new LockClient(nodeId, peers, calls, job);
        this.registry = new RegistryClient(nodeId, calls, arrays, variables);
        this.scopes = new Scopes(this, new ComputedPushes(nodeId, arrays, peers, calls));
        this.gate = new MigrationGate(nodeId, counters, scopes::open);
        // POLL: no lanes; every message reaches the node through its I/O thread, awake while a thread waits
        boolean polls = config.waitStrategy() == WaitStrategy.POLL && Waiting.pollersFit(config.machineThreads(), nodes, threadsPerNode);
        this.lanes = new Lanes(transport.barrierLanes() && config.barrierLanes() && !polls
                && config.barrier() == BarrierKind.TREE
                && config.proxy() == ProxyMode.FLOAT, nodeId, nodes, capacity, peers, router::route, job,
                () -> Waiting.laneSpinNs(config.waitStrategy(), config.machineThreads(), threadsPerNode), io);
        peers.useLanes(lanes);
        if (polls) transport.pollWhile(waiting::anyParked);   // docs/runtime.md, "POLL"
        this.barriers = new BarrierClient(this);
        this.membership = new Membership(nodeId, nodes, threadsPerNode, config.startupTimeoutMs(), peers, job);
        this.snapshots = new NodeSnapshots(nodeId, nodes, threadsPerNode, config.vmName(), membership, arrays, variables, barriers);
        this.monitor = nodeId == 0 ? new MonitorRole(peers, gate, nodes, threadsPerNode) : null;
        this.moves = new MoveSwitch(nodeId, nodes, peers, membership, monitor);
        this.cloning = new Cloning(nodeId, nodes, threadsPerNode, peers, arrays, snapshots);
        this.workers = new WorkerReports(this);
        this.checkpoints = config.checkpointEvery() > 0 && nodeId < nodes
                ? new Checkpoints(this, config.checkpointDir(), config.checkpointEvery()) : null;
        if (checkpoints != null && monitor != null) gate.takeCheckpoints(checkpoints);
        this.cloneCopies = nodeId >= nodes ? new CloneCopies(this, config.nodeId()) : null;
        NodeRoutes.register(this, router, calls, transport, monitor);
        try {
            transport.listen(new ConnectionEvents(nodeId, nodes, peers, router, job, moves, cloning, monitor, this::isClosed,
                    arrays::receiveBuffer, this::viewAddress, node -> LostNode.homedClause(arrays.homedBy(node))));
        } catch (RuntimeException e) {
            lanes.close();
            transport.close();
            Waiting.nodeClosed(threadsPerNode + 1);
            throw e;
        }
        if (monitor != null) monitor.bound(address());
    }

    // A message that could not be sent fails the job (the job lifecycle exists by the time anything is sent).
    private void sendFailed(int node, Object message, DsaException cause) {
        job.sendFailed(node, message, cause);
    }

    // The job failed: every blocked worker wakes and sees it.
    private void wakeAll(String failure) {
        calls.failAll(failure);
        arrays.fail(failure);
        barriers.wakeAll();
        if (checkpoints != null) checkpoints.fail(failure);
    }

    /** Starts the node: binds and, unless node 0, joins the monitor. */
    public static NodeRuntime start(DsaConfig config) {
        return start(config, NodeTransport.NETTY);
    }

    static NodeRuntime start(DsaConfig config, NodeTransport.Factory transports) {
        return start(config, transports, null, null);
    }

    /**
     * Starts the node of a VM restarted from a checkpoint (docs/failures.md, "Restart"): binds,
     * installs the node's state (partitions, directory entries, variables, barrier counters; on
     * node 0 also the monitor's registry and barrier roots), then joins the new VM as
     * {@link #start} does; the view is the new one, not the state's.
     *
     * @param monitorImage node 0's {@code monitor.snap} payload; null on other nodes
     * @throws DsaException if the state does not fit {@code config}
     */
    public static NodeRuntime startFromCheckpoint(DsaConfig config, AgentState state, byte[] monitorImage) {
        if (state.nodeId() != config.nodeId() || state.nodes() != config.nodes() || state.threadsPerNode() != config.threadsPerNode()) {
            throw new DsaException("checkpoint of node " + state.nodeId() + " (" + state.nodes() + " nodes x " + state.threadsPerNode()
                    + " threads) does not fit node " + config.nodeId() + " (" + config.nodes() + " x " + config.threadsPerNode() + ")");
        }
        if ((config.nodeId() == 0) != (monitorImage != null)) {
            throw new DsaException("node " + config.nodeId() + (monitorImage == null ? " needs" : " takes no") + " the monitor's image");
        }
        return start(config, NodeTransport.NETTY, state, monitorImage == null ? null : MonitorImage.decode(monitorImage));
    }

    private static NodeRuntime start(DsaConfig config, NodeTransport.Factory transports, AgentState state, MonitorImage monitorImage) {
        NodeRuntime rt = new NodeRuntime(config, config.nodeId(), config.nodes(), transports);
        try {
            if (state != null) {
                // before anyone can reach this node: the joins and the view come after
                rt.arrays.install(Cloning.withoutClones(state.arrays(), config.nodes()));
                rt.variables.install(state.variables());
                rt.barriers.restore(state.barriers());
                if (rt.monitor != null) rt.monitor.install(monitorImage);
            }
            if (rt.monitor != null) {
                rt.monitor.maybeSendView();
            } else {
                HostPort m = HostPort.parse(config.monitorAddress());
                Connection c = rt.transport.connect(m.host(), m.port()).get(config.startupTimeoutMs(), TimeUnit.MILLISECONDS);
                if (c.peerNodeId() != 0) {
                    throw new DsaException("monitor address " + m + " is node " + c.peerNodeId() + ", expected node 0");
                }
                rt.peers.attach(0, c);
                c.send(new JoinMessage(rt.nodeId, config.bindHost(), rt.transport.port()));
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

    /**
     * Starts a new agent for {@code state.nodeId()} from a moved state: binds, installs the state,
     * and takes the view; it joins nobody (the other nodes attach it when the move commits, see
     * {@link #connectMoved()}). {@code config} gives the node id, bind host and port.
     *
     */
    public static NodeRuntime restore(DsaConfig config, AgentState state) {
        return restore(config, state, NodeTransport.NETTY);
    }

    static NodeRuntime restore(DsaConfig config, AgentState state, NodeTransport.Factory transports) {
        if (state.nodeId() >= config.nodes()) {
            throw new DsaException("agent state of node " + state.nodeId() + " is a clone's (ids >= " + config.nodes()
                    + "): restore it with restoreClone");
        }
        if (state.nodeId() != config.nodeId() || state.nodes() != config.nodes() || state.threadsPerNode() != config.threadsPerNode()) {
            throw new DsaException("agent state of node " + state.nodeId() + " (" + state.nodes() + " nodes x " + state.threadsPerNode()
                    + " threads) does not fit the agent of node " + config.nodeId() + " (" + config.nodes() + " x "
                    + config.threadsPerNode() + ")");
        }
        return installed(new NodeRuntime(config, config.nodeId(), config.nodes(), transports), state);
    }

    /** Starts a clone's agent from {@code state} (its id {@code >= config.nodes()}); then {@link #connectMoved()}. */
    public static NodeRuntime restoreClone(DsaConfig config, AgentState state) {
        return restoreClone(config, state, NodeTransport.NETTY);
    }

    static NodeRuntime restoreClone(DsaConfig config, AgentState state, NodeTransport.Factory transports) {
        if (state.nodeId() < config.nodes() || state.nodes() != config.nodes() || state.threadsPerNode() != config.threadsPerNode()) {
            throw new DsaException("agent state of node " + state.nodeId() + " (" + state.nodes() + " nodes x " + state.threadsPerNode()
                    + " threads) is not a clone of this VM of " + config.nodes() + " x " + config.threadsPerNode());
        }
        return installed(new NodeRuntime(config, state.nodeId(), state.nodeId() + 1, transports), state);
    }

    private static NodeRuntime installed(NodeRuntime rt, AgentState state) {
        try {
            rt.snapshots.install(state, rt.address());
            return rt;
        } catch (RuntimeException e) {
            rt.close();
            throw e;
        }
    }

    /** @return completes when the VM has formed (this node has the view) */
    public CompletableFuture<Void> formed() { return membership.formed(); }

    /**
     * Node 0 at a checkpoint's safe point: the monitor's registry and barrier roots.
     *
     * @throws DsaException on another node, or if a lock is held across the barrier
     */
    MonitorImage monitorImage() {
        if (monitor == null) throw new DsaException("node " + nodeId + " is not the monitor");
        return monitor.image();
    }

    /** @return {@code host:port} this node listens on */
    public String address() { return config.bindHost() + ":" + transport.port(); }

    /** @return the VM's name */
    public String vmName() { return config.vmName(); }

    /** @return the address of every node, by id, as this node knows them */
    public List<String> view() { return membership.addresses(); }

    /** @return node {@code node}'s address in the view, or null before the view */
    private String viewAddress(int node) {
        List<String> view = membership.addresses();
        return node < view.size() ? view.get(node) : null;
    }

    // ---- what the barrier client, workers and the job runner use ----------------------------------

    PeerNetwork peers() { return peers; }

    /** @throws DsaException if the job has failed (or {@link JobLifecycle.MovedAway} if this node moved) */
    void checkFailed() { job.checkFailed(); }

    /** Reports a local failure to the monitor, which aborts the job everywhere. */
    void reportFailure(String text) { job.reportFailure(text); }

    /** Fails the job everywhere with {@code text} (e.g. its launcher's timeout): fails here at once, and through the monitor everywhere. */
    public void failJob(String text) {
        job.abort(text);
        job.reportFailure(text);
    }

    /** At node 0, every global barrier release passes here: see {@link MigrationGate#releaseGlobal}. */
    void releaseGlobal(long generation, boolean plain, Runnable send) { gate.releaseGlobal(generation, plain, send); }

    /** @return node 0's report lines (empty on other nodes) */
    List<String> reportLines() { return monitor == null ? List.of() : monitor.lines(); }

    // ---- mobility: live migration ----------------------------------------------------------------------

    /**
     * Node 0: holds the release of the next plain global barrier. The future completes with the
     * barrier's generation when every worker of the VM waits there (the safe point).
     */
    public CompletableFuture<Long> holdNextGlobalRelease() { return gate.hold(0); }

    /**
     * Node 0: as {@link #holdNextGlobalRelease()}, but holds the first plain global barrier whose
     * release brings the workers to epoch {@code minEpoch} or later.
     */
    public CompletableFuture<Long> holdGlobalRelease(long minEpoch) { return gate.hold(minEpoch); }

    /** Node 0: sends the held release (if any) and disarms the gate. Idempotent. */
    public void releaseHeldGlobal() { gate.release(); }

    /** Node 0: sends the held release and arms the gate again for epoch {@code minEpoch}, atomically. */
    public CompletableFuture<Long> releaseHeldGlobalAndHold(long minEpoch) { return gate.releaseAndHold(minEpoch); }

    /**
     * The node's state at a safe point: directory entries and home copies, cached copies, shared
     * variables homed here, barrier counters and the view. The workers resume at the returned
     * state's epoch.
     *
     * First waits until no coherence request of this node is under way (a prefetch's).
     *
     * @throws DsaException if the node is not at a safe point (a coherence transaction is still
     *         under way after {@link ArrayDirectory#IO_TASK_TIMEOUT_MS}, or the workers are not all
     *         waiting at the same global barrier)
     */
    public AgentState snapshot() { return snapshots.snapshot(true); }

    /**
     * The restored agent dials every other node of its view.
     *
     * @return completes when every connection is authenticated and attached here
     */
    public CompletableFuture<Void> connectMoved() { return moves.connectToPeers(transport); }

    /**
     * Another node is moving: its new agent's connection is held until {@link #commitMove}. At the
     * safe point, before the moving node's snapshot: returns once no coherence request of this node
     * is under way ({@link ArrayDirectory#awaitQuiescent}), so that none is answered by the old agent
     * after its snapshot, or lost with it (docs/runtime.md, "The safe point").
     *
     * @throws DsaException if requests are still under way after {@link ArrayDirectory#IO_TASK_TIMEOUT_MS}, or the job failed
     */
    public CompletableFuture<Connection> expectMove(int node) {
        arrays.awaitQuiescent();
        return moves.expect(node);
    }

    /** The move of {@code node} failed: drops the held connection; the old agent stays. */
    public void abandonMove(int node) { moves.abandon(node); }

    /** @return messages this node dropped because they came on a moving node's held connection ({@link MoveSwitch#isHeld}) */
    long droppedWhileHeld() { return moves.droppedWhileHeld.sum(); }

    /** Commits the move of {@code node} to {@code address}: the held connection replaces the old one. */
    public void commitMove(int node, String address) { moves.commit(node, address); }

    /** This agent's node moved: its workers unwind at their barrier, it reports nothing more. */
    public void retireAfterMove() {
        job.markMovedAway();
        barriers.wakeAll();
    }

    // ---- mobility: cloning -------------------------------------------------------------------------------

    /**
     * A clone's state taken from this node at a safe point: every partition this node holds a
     * valid copy of without being its exclusive owner (its homed partitions in state HOME or
     * SHARED, its SHARED cached copies), all as SHARED copies of the clone {@code cloneId}.
     */
    public AgentState snapshotForClone(int cloneId) { return cloning.snapshotFor(cloneId); }

    /** Accepts node ids up to {@code cloneId} (a clone joins): its connection and messages. */
    public void admitClone(int cloneId) { cloning.admit(cloneId); }

    /** Node 0: the id of the VM's next clone, each handed out once. */
    public int allocateCloneId() { return cloning.allocateId(); }

    /** @return the ids of this node's clones that are connected: each gets a copy of this node's checkpoints */
    int[] clonesOfThis() { return cloning.clonesOfThis(); }

    /**
     * A clone's committed copy of its node's part of the checkpoint at {@code epoch}
     * (docs/failures.md, "Clone promotion").
     *
     * @throws DsaException if this agent is no clone, or keeps no committed copy of that epoch
     */
    public io.dsa.agent.checkpoint.CheckpointCopy cloneCheckpoint(long epoch) {
        if (cloneCopies == null) throw new DsaException("node " + nodeId + " is no clone: it keeps no copy of another node's checkpoints");
        return cloneCopies.committed(epoch);
    }

    /** @return for a clone, the epochs of the checkpoints of its node it keeps committed copies of, newest first; else none */
    public long[] cloneCheckpointEpochs() { return cloneCopies == null ? new long[0] : cloneCopies.committedEpochs(); }

    /**
     * Registers the clone of {@code cloneState} as a sharer of every partition it holds that is
     * homed here, so that later writes invalidate its copy. Only at a safe point.
     *
     * @throws DsaException if an entry cannot take a sharer (exclusive elsewhere or busy)
     */
    public void registerCloneSharers(AgentState cloneState) {
        cloning.registerSharers(cloneState.nodeId(), Cloning.partitionsOf(cloneState));
    }

    /** @return the partitions a clone's state holds: array id to partition numbers */
    public static Map<Integer, int[]> clonePartitions(AgentState cloneState) { return Cloning.partitionsOf(cloneState); }

    /**
     * Registers clone {@code cloneId} as a sharer of those of {@code held} (array id to
     * partitions) that are homed here. Only at a safe point.
     *
     * @throws DsaException if an entry cannot take a sharer (exclusive elsewhere or busy)
     */
    public void registerCloneSharers(int cloneId, Map<Integer, int[]> held) { cloning.registerSharers(cloneId, held); }

    /** @return for a clone, completed with the reason once its connection to node 0 closed (the VM ended) */
    public CompletableFuture<String> monitorLost() { return cloning.monitorLost(); }

    /**
     * The array {@code name} as this agent holds it, for library-style access outside a job (a
     * clone serving reads). Accesses follow the coherence protocol like a worker's.
     *
     * @throws DsaException if this agent does not know the array
     */
    public SharedArray localArray(String name) {
        ArrayState a = arrays.named(name);
        if (a == null) throw new DsaException("node " + nodeId + " knows no array named '" + name + "'");
        return NodeContext.wrap(this, a);
    }

    /**
     * @return {@code {homed, cached}}: partitions of all arrays homed at this node, and partitions
     *         homed elsewhere of which this node holds a readable copy
     */
    public int[] partitionCounts() { return arrays.partitionCounts(); }

    /**
     * @return one line per worker of this node that has not finished: the node, its thread ids, and
     *         what it waits for (barrier and epoch, partition and array, lock, a reply) or
     *         {@code running} with its top stack frames
     */
    public List<String> workerLines() { return workers.lines(); }

    /**
     * Node 0: {@link #workerLines()} of every node of the VM, asked over the network, in node order.
     * A node that does not answer within {@code timeoutMs} gets a line that says so. Other nodes
     * answer with their own lines only.
     */
    public List<String> vmWorkerLines(long timeoutMs) throws InterruptedException {
        return monitor == null ? workers.lines() : workers.gather(timeoutMs);
    }

    /** @return this node's counts now: per array, and barrier waits, migration pauses, bytes on the wire */
    public io.dsa.agent.metrics.NodeCounts counts() { return counters.read(arrays.all()); }

    /** @return whether {@link #close()} was called */
    public boolean isClosed() { return closed; }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        job.abort("node " + nodeId + " closed");
        if (checkpoints != null) checkpoints.close();
        lanes.close();
        peers.close();
        transport.close();
        Waiting.nodeClosed(threadsPerNode + 1);
    }
}
