package io.dsa.agent.internal;

import io.dsa.DsaException;
import io.dsa.agent.AgentState;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A node's state at a safe point as an {@link AgentState} (live migration and cloning), and its
 * installation in a new agent: the arrays with their directory entries and copies, the variables
 * homed here, the barrier counters and the view. Knows the node's workers, whose common epoch is
 * the resume point. Called by the thread running a move, while the workers wait at a barrier.
 */
final class NodeSnapshots {
    private final int nodeId;
    private final int nodes;
    private final int threadsPerNode;
    private final String vmName;
    private final Membership membership;
    private final ArrayDirectory arrays;
    private final VariableHomes variables;
    private final BarrierClient barriers;
    private final List<WorkerImpl> workers = new CopyOnWriteArrayList<>();

    NodeSnapshots(int nodeId, int nodes, int threadsPerNode, String vmName, Membership membership, ArrayDirectory arrays,
            VariableHomes variables, BarrierClient barriers) {
        this.nodeId = nodeId;
        this.nodes = nodes;
        this.threadsPerNode = threadsPerNode;
        this.vmName = vmName;
        this.membership = membership;
        this.arrays = arrays;
        this.variables = variables;
        this.barriers = barriers;
    }

    /** A worker of this node started (its epoch is part of the safe point). */
    void addWorker(WorkerImpl w) { workers.add(w); }

    /**
     * The node's state; with {@code withWorkers}, every worker of the node must have started and
     * wait at the same epoch (a migration), otherwise the workers may not have started (a cloning).
     *
     * @throws DsaException if the node is not at a safe point
     */
    AgentState snapshot(boolean withWorkers) {
        return snapshot(withWorkers, true);
    }

    /**
     * {@link #snapshot(boolean)}; with {@code copyData} false the state's partition data are the slots' own arrays
     * (a checkpoint, which encodes the state before its safe point ends; never a state that outlives it).
     */
    AgentState snapshot(boolean withWorkers, boolean copyData) {
        membership.await(); // the view travels in the state: a VM still forming has none yet
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
        arrays.awaitQuiescent(); // a prefetch of this node's may still be under way
        List<AgentState.ArrayImage> images = arrays.images(copyData);
        return new AgentState(nodeId, vmName, epoch + 1, nodes, threadsPerNode, membership.addresses(), images,
                variables.images(), barriers.snapshot());
    }

    /**
     * Installs {@code state} in this new agent, whose own address is {@code selfAddress}; before
     * any worker runs here.
     *
     * @throws DsaException if the state does not fit
     */
    void install(AgentState state, String selfAddress) {
        arrays.install(state.arrays());
        variables.install(state.variables());
        barriers.restore(state.barriers());
        List<String> addrs = new ArrayList<>(state.view());
        if (nodeId < addrs.size()) addrs.set(nodeId, selfAddress);
        membership.install(addrs);
    }
}
