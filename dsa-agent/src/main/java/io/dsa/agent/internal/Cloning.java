package io.dsa.agent.internal;

import io.dsa.CacheState;
import io.dsa.DsaException;
import io.dsa.agent.AgentState;
import io.dsa.coherence.DirectoryState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cloning, on both sides: a node admits a clone's id, gives it a copy of its valid partitions,
 * registers it as a sharer at the homes here, and forgets it when it leaves; a clone notices when
 * its VM's node 0 is gone ({@link #monitorLost()}). The thread running the cloning calls at a
 * safe point; the I/O thread reports connections that closed.
 */
final class Cloning {
    private static final Logger LOG = LoggerFactory.getLogger(Cloning.class);

    private final int nodeId;
    private final int nodes;
    private final int threadsPerNode;
    private final PeerNetwork network;
    private final ArrayDirectory arrays;
    private final NodeSnapshots snapshots;
    /** A clone's: completed when its connection to node 0 closes (its VM ended). */
    private final CompletableFuture<String> monitorLost = new CompletableFuture<>();
    /** Node 0: the lowest id it may hand out to the next clone ({@link #allocateId}). */
    private int nextCloneId;
    /** The clones made of this node that have not left: each gets a copy of this node's checkpoints. */
    private final java.util.Set<Integer> clonesOfThis = new java.util.concurrent.ConcurrentSkipListSet<>();

    Cloning(int nodeId, int nodes, int threadsPerNode, PeerNetwork network, ArrayDirectory arrays, NodeSnapshots snapshots) {
        this.nodeId = nodeId;
        this.nodes = nodes;
        this.threadsPerNode = threadsPerNode;
        this.network = network;
        this.arrays = arrays;
        this.snapshots = snapshots;
    }

    /** @return whether this agent is a clone (its id is above the VM's nodes) */
    boolean isClone() { return nodeId >= nodes; }

    /**
     * A clone's state taken from this node at a safe point: every partition this node holds a
     * valid copy of without being its exclusive owner (its homed partitions in state HOME or
     * SHARED, its SHARED cached copies), all as SHARED copies of the clone {@code cloneId}.
     */
    AgentState snapshotFor(int cloneId) {
        if (cloneId < nodes) throw new DsaException("clone id " + cloneId + " out of range [" + nodes + ", ...): ids below are the VM's nodes");
        clonesOfThis.add(cloneId);   // copies go only to a clone that is connected, so one abandoned gets none
        AgentState own = snapshots.snapshot(false);
        List<AgentState.ArrayImage> images = new ArrayList<>();
        for (AgentState.ArrayImage a : own.arrays()) {
            List<AgentState.PartitionImage> copies = new ArrayList<>();
            for (AgentState.PartitionImage p : a.partitions()) {
                boolean valid = p.role() == AgentState.ROLE_HOME
                        ? p.state() != DirectoryState.EXCLUSIVE.ordinal()
                        : p.state() == CacheState.SHARED.ordinal();
                if (valid) {
                    copies.add(new AgentState.PartitionImage(p.partition(), AgentState.ROLE_CACHE, CacheState.SHARED.ordinal(), -1,
                            new int[0], p.data()));
                }
            }
            images.add(new AgentState.ArrayImage(a.id(), a.name(), a.params(), copies));
        }
        return new AgentState(cloneId, own.vmName(), own.epoch(), nodes, threadsPerNode, own.view(), images, List.of(),
                new AgentState.BarrierImage(0, 0, 0, 0, 0, Map.of()));
    }

    /**
     * Node 0: the id of the next clone of the VM, handed out once (docs/hosts.md, "Cloning"): above
     * the nodes, every id handed out or admitted before, and every clone connected here (node 0
     * admits every clone, and a clone dials every node).
     *
     * @throws DsaException on another node
     */
    synchronized int allocateId() {
        if (nodeId != 0) throw new DsaException("node " + nodeId + " hands out no clone ids: node 0 does");
        int id = Math.max(nextCloneId, nodes);
        while (network.connected(id)) id++;
        nextCloneId = id + 1;
        return id;
    }

    /**
     * Accepts node ids up to {@code cloneId} (a clone joins): its connection and messages.
     *
     * @throws DsaException if a clone with that id is connected here already (a second clone given
     *         an id node 0 did not hand out, as {@code DsaCluster} or an older host may)
     */
    void admit(int cloneId) {
        synchronized (this) {
            nextCloneId = Math.max(nextCloneId, cloneId + 1);
        }
        if (network.connected(cloneId)) {
            throw new DsaException("clone id " + cloneId + " is taken: a clone with that id is connected to node " + nodeId);
        }
        network.grow(cloneId + 1);
        arrays.admitNodes(Math.max(cloneId + 1, 1));
    }

    /**
     * Registers clone {@code cloneId} as a sharer of those of {@code held} (array id to
     * partitions) that are homed here. Only at a safe point.
     *
     * @throws DsaException if an entry cannot take a sharer (exclusive elsewhere or busy)
     */
    void registerSharers(int cloneId, Map<Integer, int[]> held) {
        arrays.addSharers(cloneId, held);
    }

    /**
     * @return {@code arrays} as a VM restarted from a checkpoint installs them: its clones are not
     *         part of it, so a home's entry lists none of them as a sharer (an entry that only they
     *         shared is the home's alone again)
     */
    static List<AgentState.ArrayImage> withoutClones(List<AgentState.ArrayImage> arrays, int nodes) {
        List<AgentState.ArrayImage> kept = new ArrayList<>();
        for (AgentState.ArrayImage a : arrays) {
            List<AgentState.PartitionImage> parts = new ArrayList<>();
            for (AgentState.PartitionImage p : a.partitions()) {
                int[] sharers = java.util.Arrays.stream(p.sharers()).filter(s -> s < nodes).toArray();
                if (p.role() != AgentState.ROLE_HOME || sharers.length == p.sharers().length) {
                    parts.add(p);
                    continue;
                }
                int state = p.state() == DirectoryState.SHARED.ordinal() && sharers.length == 0 ? DirectoryState.HOME.ordinal() : p.state();
                parts.add(new AgentState.PartitionImage(p.partition(), p.role(), state, p.owner(), sharers, p.data()));
            }
            kept.add(new AgentState.ArrayImage(a.id(), a.name(), a.params(), parts));
        }
        return kept;
    }

    /** @return the partitions a clone's state holds: array id to partition numbers */
    static Map<Integer, int[]> partitionsOf(AgentState cloneState) {
        Map<Integer, int[]> held = new TreeMap<>();
        for (AgentState.ArrayImage a : cloneState.arrays()) {
            held.put(a.id(), a.partitions().stream().mapToInt(AgentState.PartitionImage::partition).toArray());
        }
        return held;
    }

    /** A clone left (stopped, or its host went): the homes here stop waiting for it and stop listing it. */
    void forget(int clone, Throwable cause) {
        clonesOfThis.remove(clone);
        arrays.forgetNode(clone);
        LOG.info("node {}: clone {} left ({}); no longer a sharer here", nodeId, clone, cause == null ? "connection closed" : cause.toString());
    }

    /**
     * A clone's connection to node 0 closed: its VM ended. {@link #monitorLost} is completed on a
     * thread of its own, not on the I/O thread that saw the close: whoever reacts may close this
     * node, and closing waits for that thread's loop to end. (A host's clone JVM did so from the I/O
     * thread itself: its close waited out the loop's 4 s bound, and every clone outlived its VM by 4 s.)
     */
    void lostMonitor(Throwable cause) {
        String reason = cause == null ? "connection closed" : cause.toString();
        Thread announcer = new Thread(() -> monitorLost.complete(reason), "dsa-node-" + nodeId + "-vm-ended");
        announcer.setDaemon(true);
        announcer.start();
    }

    /** @return the ids of the clones of this node that are connected now, ascending */
    int[] clonesOfThis() {
        return clonesOfThis.stream().filter(network::connected).mapToInt(Integer::intValue).toArray();
    }

    /** @return for a clone, completed with the reason once its connection to node 0 closed, off the I/O thread */
    CompletableFuture<String> monitorLost() { return monitorLost; }
}
