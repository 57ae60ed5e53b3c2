package io.dsa.agent;

import io.dsa.DsaException;
import io.dsa.DsaProgram;
import io.dsa.agent.internal.JobRunner;
import io.dsa.agent.internal.NodeRuntime;
import io.dsa.SharedArray;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One node of a DSA virtual machine (the paper's DsaAgent, library style): holds the partitions
 * homed here, caches others, runs the coherence protocol, and proxies the node's workers.
 * Node 0's agent is also the monitor (membership, registry, barrier root).
 *
 * <pre>{@code
 * DsaAgent agent = DsaAgent.start(config);      // binds, joins the monitor
 * RunReport report = agent.run(program, args);  // collective: every node calls it
 * agent.close();
 * }</pre>
 *
 * <p>Mobility hooks (docs/runtime.md, "Mobility"). A live migration of node k, as
 * {@link DsaCluster#migrate} runs it in one JVM and the host daemons run it over the wire:
 * <ol>
 * <li>node 0: {@link #holdAtNextGlobalBarrier()}; wait for the future (the safe point);</li>
 * <li>every other node, one after the other: {@link #expectMovedNode(int)}, which returns once
 *     none of its coherence requests is under way;</li>
 * <li>node k: {@link #snapshotForMigration()}, {@link AgentState#encode()}; ship the bytes;</li>
 * <li>target: {@link #restore(DsaConfig, AgentState)} of {@link AgentState#decode(byte[])};
 *     target: {@link #connectToPeers()}; wait for it and for the futures of the expects;</li>
 * <li>on any failure so far: every other node {@link #abandonMovedNode(int)}, close the target,
 *     node 0 {@link #releaseHeldBarrier()}: the old agent stays authoritative;</li>
 * <li>commit: every other node {@link #commitMovedNode(int, String)}, node 0 first (the old agent
 *     reports to node 0, which must have retired its connection before another node's commit
 *     makes the old agent report that node lost); old agent
 *     {@link #retireAfterMigration()} then {@link #close()}; node 0 {@link #releaseHeldBarrier()};
 *     target {@link #resume(DsaProgram, List)}.</li>
 * </ol>
 * A clone: the same safe point, {@link #snapshotForClone(int)}, every node {@link #admitClone(int)},
 * {@link #restoreClone(DsaConfig, AgentState)}, {@link #connectToPeers()}, every node
 * {@link #registerCloneSharers(AgentState)}, release.
 */
public final class DsaAgent implements Agent, AutoCloseable {
    private final NodeRuntime runtime;
    private boolean ran;
    private volatile AgentMonitor monitor;
    private long resumeEpoch = -1;

    private DsaAgent(NodeRuntime runtime) { this.runtime = runtime; }

    /**
     * Starts the agent of node {@code config.nodeId()}: binds its port and, unless it is node 0,
     * joins the monitor at {@code config.monitorAddress()}. Returns without waiting for the VM
     * to form.
     *
     * @throws io.dsa.DsaException if the port cannot be bound or the monitor refuses
     */
    public static DsaAgent start(DsaConfig config) {
        return new DsaAgent(NodeRuntime.start(config));
    }

    /** @return this node's id */
    public int nodeId() { return runtime.nodeId(); }

    /** @return the {@code host:port} this agent listens on */
    public String address() { return runtime.address(); }

    /**
     * Runs {@code program} on this node once the VM has formed: {@code setup}, then
     * {@code threadsPerNode} workers. Collective: every node of the VM calls it. Returns when
     * every worker of every node has finished.
     *
     * @return on node 0, every node's report lines and the timings; on other nodes, this node's;
     *         null if this node moved to another agent while the job ran ({@link #retireAfterMigration()})
     * @throws io.dsa.DsaException if any worker anywhere threw (the first failure), or the VM
     *         failed to form in time
     */
    public RunReport run(DsaProgram program, List<String> args) {
        synchronized (this) {
            if (ran) throw new DsaException("node " + nodeId() + " already ran a program; start a new agent for the next");
            ran = true;
        }
        return JobRunner.run(runtime, program, args);
    }

    /**
     * Fails the job this node runs, everywhere (through the monitor, as a worker's exception would):
     * every blocked worker of every node is released with a {@code DsaException} carrying {@code text}.
     */
    void failJob(String text) { runtime.failJob(text); }

    /** @return {@code vmName/nodeId} */
    @Override
    public String getAgentId() { return agentId(runtime.vmName(), runtime.nodeId()); }

    /**
     * @return the id of node {@code nodeId} of VM {@code vmName}, as {@link #getAgentId()} spells it
     */
    public static String agentId(String vmName, int nodeId) { return vmName + "/" + nodeId; }

    /** Remembers the monitor hosting this agent; see {@link #monitor()}. */
    @Override
    public void initialize(AgentMonitor monitor) { this.monitor = monitor; }

    /** @return the monitor hosting this agent, or null for an agent started library style */
    public AgentMonitor monitor() { return monitor; }

    /**
     * The agent is serving from the moment {@link #start(DsaConfig)} returns (it has bound its port
     * and joined the monitor); the workers start with {@link #run}. Nothing more to do here.
     */
    @Override
    public void start() {
        if (runtime.isClosed()) throw new DsaException("agent " + getAgentId() + " is stopped and cannot start again");
    }

    /** Same as {@link #close()}. */
    @Override
    public void stop() { close(); }

    /**
     * @return partitions of all arrays homed at this node
     */
    public int partitionsHomed() { return runtime.partitionCounts()[0]; }

    /**
     * @return partitions of all arrays homed elsewhere of which this node holds a valid copy
     */
    public int partitionsCached() { return runtime.partitionCounts()[1]; }

    /**
     * @return this node's counts now (hits, misses, invalidations and bytes per array; barrier
     *         waits, migration pauses and bytes on the wire for the node); any thread, cheap
     *         enough to call every second
     */
    public io.dsa.agent.metrics.NodeCounts counts() { return runtime.counts(); }

    /**
     * Where this node's workers are, from the runtime's own records: one line per worker that has
     * not finished, e.g. {@code node 1 thread 3 (local 1): waits in the global barrier at epoch 7
     * for 2.0 s}, {@code ... waits to read partition 5 of array 'A' (home node 0) ...},
     * {@code ... waits for lock 'L' ...}, or {@code running} followed by its top stack frames
     * (each on a line of its own, starting with a tab). If every worker finished, one line that
     * says so. Any thread.
     */
    public List<String> workerLines() { return runtime.workerLines(); }

    /**
     * Node 0: {@link #workerLines()} of every node of the VM, asked over the VM's connections, in
     * node order; a node that does not answer within {@code timeoutMs} gets a line that says so.
     * On another node, its own lines. Blocks up to {@code timeoutMs}; not on the node's I/O thread.
     */
    public List<String> vmWorkerLines(long timeoutMs) {
        try {
            return runtime.vmWorkerLines(timeoutMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return runtime.workerLines();
        }
    }

    // ---- mobility (live migration and cloning; see docs/runtime.md, "Mobility") ----------------------

    /**
     * Starts an agent for node {@code state.nodeId()} from a state moved off its old agent (live
     * migration): binds {@code config}'s host and port, installs the partitions, directory entries,
     * variables, barrier counters and view, and joins nobody. Then {@link #connectToPeers()}, and
     * once every other node committed the move, {@link #resume}.
     *
     * @throws DsaException if the state does not fit {@code config} or cannot be installed; the
     *         new agent is then closed and the old one stays authoritative
     */
    public static DsaAgent restore(DsaConfig config, AgentState state) {
        DsaAgent a = new DsaAgent(NodeRuntime.restore(config, state));
        a.resumeEpoch = state.epoch();
        return a;
    }

    /**
     * Starts node {@code config.nodeId()} of a VM restarted from {@code checkpoint} (docs/failures.md,
     * "Restart"): reads and verifies its file (or the buddy copy of it that this directory holds, on
     * hosts), and on node 0 the monitor's), binds, installs the
     * state, and joins the new VM like {@link #start}. Every node of the VM restarts from the same
     * checkpoint; then each calls {@link #resume} with the checkpoint's program and arguments.
     *
     * @throws DsaException naming the file if it is missing or damaged, or if the state does not fit {@code config}
     */
    public static DsaAgent restart(DsaConfig config, io.dsa.agent.checkpoint.CheckpointStore.Checkpoint checkpoint) {
        int node = config.nodeId();
        AgentState state = AgentState.decode(checkpoint.nodePayload(node));
        byte[] monitorImage = node == 0 ? checkpoint.payload(io.dsa.agent.checkpoint.CheckpointStore.MONITOR_FILE) : null;
        DsaAgent a = new DsaAgent(NodeRuntime.startFromCheckpoint(config, state, monitorImage));
        a.resumeEpoch = state.epoch();
        return a;
    }

    /** @return completes when the VM has formed (this node has the view of every node); any thread */
    public CompletableFuture<Void> formed() { return runtime.formed(); }

    /**
     * Node 0 only: holds the release of the next plain global barrier (not a collective). The
     * future completes with the barrier's generation once every worker of the VM waits there: the
     * safe point of a migration. Release with {@link #releaseHeldBarrier()}.
     *
     * @throws DsaException on another node, or if a hold is already armed
     */
    public CompletableFuture<Long> holdAtNextGlobalBarrier() { return runtime.holdNextGlobalRelease(); }

    /**
     * Node 0 only: as {@link #holdAtNextGlobalBarrier()}, but holds the first plain global barrier
     * whose release brings the workers to epoch {@code minEpoch} or later (the next one if the job
     * is already past it).
     */
    public CompletableFuture<Long> holdAtGlobalBarrier(long minEpoch) { return runtime.holdGlobalRelease(minEpoch); }

    /** Node 0 only: sends the held barrier release, if any, and disarms the hold. Idempotent. */
    public void releaseHeldBarrier() { runtime.releaseHeldGlobal(); }

    /**
     * Node 0: releases the held barrier and, in the same step, arms the gate again for the first
     * plain global barrier that brings the workers to epoch {@code minEpoch} or later (above the
     * released one), so that no barrier in between can slip past a planned move.
     */
    public CompletableFuture<Long> releaseHeldBarrierAndHoldAt(long minEpoch) { return runtime.releaseHeldGlobalAndHold(minEpoch); }

    /**
     * This node's state at the safe point (see {@link #holdAtNextGlobalBarrier()}): its workers
     * resume from it at {@link AgentState#epoch()}.
     *
     * @throws DsaException if the node is not at a safe point
     */
    public AgentState snapshotForMigration() { return runtime.snapshot(); }

    /**
     * A restored agent dials every other node of its view; the future completes when every
     * connection is attached here (the others hold theirs until {@link #commitMovedNode}).
     */
    public CompletableFuture<Void> connectToPeers() { return runtime.connectMoved(); }

    /**
     * Every other node, at the safe point and before the moving node's snapshot: holds the restored
     * agent's connection aside. Returns once no coherence request of this node is under way (a
     * request answered by the old agent after its snapshot would leave a copy the new agent does
     * not know of; one answered after the move would be lost); call it on one node after the other.
     * The future completes when the connection arrived.
     *
     * @throws DsaException if this node's requests are still under way after 60 s, or the job failed
     */
    public CompletableFuture<?> expectMovedNode(int node) { return runtime.expectMove(node); }

    /** The move of {@code node} failed: drops its new agent's held connection; the old agent stays. */
    public void abandonMovedNode(int node) { runtime.abandonMove(node); }

    /** Commits the move of {@code node} to {@code address}: its new agent's connection replaces the old one. */
    public void commitMovedNode(int node, String address) { runtime.commitMove(node, address); }

    /**
     * The old agent of a node that moved: its workers unwind at the barrier where they wait, and
     * its {@link #run} returns null without reporting. Close it afterwards.
     */
    public void retireAfterMigration() { runtime.retireAfterMove(); }

    /** @return the address of every node, by node id, as this agent knows them (updated by moves) */
    public List<String> view() { return runtime.view(); }

    /**
     * Runs {@code program} on a restored agent: {@code setup}, then every worker enters
     * {@code work} at the epoch of the restored state. Only for {@link DsaProgram#resumable()} programs.
     *
     * @return as {@link #run}
     * @throws DsaException if this agent was not restored, or the program is not resumable
     */
    public RunReport resume(DsaProgram program, List<String> args) {
        if (resumeEpoch < 0) throw new DsaException("node " + nodeId() + "'s agent was not restored from a moved state");
        if (!program.resumable()) {
            throw new DsaException("program " + program.getClass().getName() + " is not resumable(); it cannot resume at epoch "
                    + resumeEpoch);
        }
        synchronized (this) {
            if (ran) throw new DsaException("node " + nodeId() + " already ran a program; start a new agent for the next");
            ran = true;
        }
        return JobRunner.run(runtime, program, args, resumeEpoch);
    }

    /**
     * A clone's state taken from this node at a safe point: a SHARED copy of every partition this
     * node holds valid data of without owning it exclusively (see docs/runtime.md, "Cloning").
     *
     * @param cloneId the clone's node id, {@code >= nodes} (not used by another clone)
     */
    public AgentState snapshotForClone(int cloneId) { return runtime.snapshotForClone(cloneId); }

    /**
     * Starts a clone's agent from {@code state}: binds {@code config}'s host and port (config gives
     * the VM: nodes, threads, secret, name), installs the shared copies and the view. Then
     * {@link #connectToPeers()}; every node must have {@link #admitClone admitted} the clone first
     * and must {@link #registerCloneSharers register} it as a sharer at the homes.
     */
    public static DsaAgent restoreClone(DsaConfig config, AgentState state) {
        return new DsaAgent(NodeRuntime.restoreClone(config, state));
    }

    /** Every node of the VM, before a clone dials: accepts node ids up to {@code cloneId}. */
    public void admitClone(int cloneId) { runtime.admitClone(cloneId); }

    /**
     * Node 0: the id the VM's next clone takes, handed out once: above the nodes' ids, every id
     * handed out or admitted before, and every clone connected (docs/hosts.md, "Cloning").
     *
     * @throws io.dsa.DsaException on any other node
     */
    public int allocateCloneId() { return runtime.allocateCloneId(); }

    /**
     * A clone: its committed in-memory copy of its node's part of the checkpoint at {@code epoch}
     * (docs/failures.md, "Clone promotion"); with checkpoints on, every node but node 0 sends its
     * payload to each of its clones at every checkpoint. Any thread.
     *
     * @throws DsaException if this agent is no clone or keeps no committed copy of that epoch
     */
    public io.dsa.agent.checkpoint.CheckpointCopy cloneCheckpoint(long epoch) { return runtime.cloneCheckpoint(epoch); }

    /** @return for a clone, the epochs of its node's checkpoints it keeps committed copies of, newest first; else none. Any thread. */
    public long[] cloneCheckpointEpochs() { return runtime.cloneCheckpointEpochs(); }

    /**
     * Starts node {@code config.nodeId()} of a VM restarted from a clone's in-memory copy of the
     * node's checkpoint ({@link #cloneCheckpoint}) instead of its file: the clone takes the node's
     * place (docs/failures.md, "Clone promotion"). Otherwise as {@link #restart(DsaConfig,
     * io.dsa.agent.checkpoint.CheckpointStore.Checkpoint)}; node 0 cannot restart this way.
     *
     * @throws DsaException if the copy is node 0's or of another node than {@code config}'s, or does not fit {@code config}
     */
    public static DsaAgent restart(DsaConfig config, io.dsa.agent.checkpoint.CheckpointCopy copy) {
        if (copy.node() == 0 || copy.node() != config.nodeId()) {
            throw new DsaException("a clone's copy of node " + copy.node() + " cannot restart node " + config.nodeId()
                    + (copy.node() == 0 ? ": node 0 restarts from its files (the monitor's image is not copied)" : ""));
        }
        AgentState state = AgentState.decode(copy.payload());
        DsaAgent a = new DsaAgent(NodeRuntime.startFromCheckpoint(config, state, null));
        a.resumeEpoch = state.epoch();
        return a;
    }

    /**
     * Every node of the VM, at the safe point: registers the clone of {@code cloneState} as a
     * sharer of the partitions it holds that are homed here, so later writes invalidate them.
     */
    public void registerCloneSharers(AgentState cloneState) { runtime.registerCloneSharers(cloneState); }

    /**
     * Registers clone {@code cloneId} as a sharer of the partitions in {@code held} (array id to
     * partition numbers, as {@link #clonePartitions} lists them) that are homed here; the form
     * that travels between hosts. Only at a safe point.
     */
    public void registerCloneSharers(int cloneId, java.util.Map<Integer, int[]> held) { runtime.registerCloneSharers(cloneId, held); }

    /** @return the partitions a clone's state holds, array id to partition numbers */
    public static java.util.Map<Integer, int[]> clonePartitions(AgentState cloneState) {
        return NodeRuntime.clonePartitions(cloneState);
    }

    /**
     * @return for a clone: completed with the reason once its connection to node 0 closed, i.e. its
     *         VM ended; completed on a thread of its own, not the node's I/O thread, so that a
     *         dependent action may close this agent and wait for it
     */
    public CompletableFuture<String> monitorLost() { return runtime.monitorLost(); }

    /**
     * The shared array {@code name} as this agent holds it, for reads and writes outside a job
     * (a clone serving reads); accesses follow the coherence protocol. Cast to the typed interface.
     *
     * @throws DsaException if this agent does not know the array
     */
    public SharedArray array(String name) {
        return runtime.localArray(name);
    }

    /** Stops the agent and closes its connections. Idempotent. */
    @Override
    public void close() {
        runtime.close();
    }
}
