package io.dsa.agent.internal;

import io.dsa.CacheState;
import io.dsa.DsaException;
import io.dsa.agent.AgentState;
import io.dsa.coherence.Access;
import io.dsa.coherence.CoherenceEngine;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.DirectoryState;
import io.dsa.coherence.PartitionStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The arrays this node knows, by id, with their partition slots, and the node's
 * {@link CoherenceEngine} over them. Every call into the engine passes here: the engine is not
 * thread-safe, and today this class serialises the calls with one lock ({@link #engineLock}),
 * taken by workers on a miss and by the I/O thread for coherence messages. Coherence messages for
 * an array not defined here yet (its definition travels from node 0 on another connection) wait
 * here until it is.
 */
final class ArrayDirectory {
    private final int nodeId;
    private final int nodes;
    private final int threadsPerNode;
    /** Serialises every call into the engine. */
    private final Object engineLock = new Object();
    private final CoherenceEngine engine;
    private final Map<Integer, ArrayState> arrays = new ConcurrentHashMap<>();
    private final Map<Integer, List<CoherenceMessage>> earlyCoherence = new HashMap<>();

    /**
     * @param capacity node ids the engine accepts, {@code [0, capacity)} (grows as clones join)
     * @param network where the engine's messages go
     */
    ArrayDirectory(int nodeId, int capacity, int nodes, int threadsPerNode, PeerNetwork network) {
        this.nodeId = nodeId;
        this.nodes = nodes;
        this.threadsPerNode = threadsPerNode;
        this.engine = new CoherenceEngine(nodeId, capacity, (a, p) -> array(a).layout.homeOf(p), new SlotStore(),
                m -> network.send(m.destination(), m));
    }

    /** @throws IllegalStateException if the array is not known here */
    ArrayState array(int id) {
        ArrayState a = arrays.get(id);
        if (a == null) throw new IllegalStateException("unknown array id " + id + " at node " + nodeId);
        return a;
    }

    /** @return the array named {@code name}, or null */
    ArrayState named(String name) {
        for (ArrayState a : arrays.values()) if (a.spec.name().equals(name)) return a;
        return null;
    }

    /** Defines array {@code id} (idempotent) and hands the engine the messages that waited for it. */
    void define(int id, String name, long[] params) {
        synchronized (engineLock) {
            if (arrays.containsKey(id)) return;
            arrays.put(id, new ArrayState(id, Specs.fromParams(name, params), nodes, threadsPerNode, nodeId));
            List<CoherenceMessage> early = earlyCoherence.remove(id);
            if (early != null) for (CoherenceMessage m : early) engine.onMessage(m);
        }
    }

    /** A coherence message from the network (or from this node's own engine, as home or cache). */
    void onCoherence(CoherenceMessage m) {
        synchronized (engineLock) {
            if (!arrays.containsKey(m.arrayId())) {
                // the monitor's definition is on its way on another connection
                earlyCoherence.computeIfAbsent(m.arrayId(), k -> new ArrayList<>()).add(m);
                return;
            }
            engine.onMessage(m);
        }
    }

    /**
     * A worker misses on {@code partition} of {@code a}: asks the engine for {@code needed}.
     *
     * @return whether the access is granted now (a home partition never touched gets its bytes
     *         here); if not, a request is in flight and the slot's stamp changes when it is answered
     */
    boolean request(ArrayState a, int partition, Access needed) {
        synchronized (engineLock) {
            boolean granted = engine.request(a.id, partition, needed);
            if (granted) a.slots[partition].materialize(a.layout.partitionBytes(partition), engine.access(a.id, partition));
            return granted;
        }
    }

    /** @return the engine's state of a partition whose slot has no data yet (its access is not in the slot) */
    CacheState cacheStateOfUnallocated(ArrayState a, int partition) {
        Slot s = a.slots[partition];
        synchronized (engineLock) {
            if (!s.allocated()) return engine.cacheState(a.id, partition);
        }
        return null;
    }

    /** Wakes every worker sleeping on a slot (the job failed). */
    void wakeAll() {
        for (ArrayState a : arrays.values()) for (Slot s : a.slots) s.wakeAll();
    }

    /** @return {@code {homed, cached}}: partitions homed here, and readable copies of partitions homed elsewhere */
    int[] partitionCounts() {
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

    // ---- clones ----------------------------------------------------------------------------------------

    /** The engine accepts node ids below {@code count}. */
    void admitNodes(int count) {
        synchronized (engineLock) {
            engine.admitNodes(count);
        }
    }

    /** Node {@code node} (a clone) left: the homes here stop waiting for it and stop listing it. */
    void forgetNode(int node) {
        synchronized (engineLock) {
            engine.forgetNode(node);
        }
    }

    /**
     * Registers {@code cloneId} as a sharer of those of {@code held} (array id to partitions) that
     * are homed here. Only at a safe point.
     *
     * @throws DsaException if an entry cannot take a sharer (exclusive elsewhere or busy)
     */
    void addSharers(int cloneId, Map<Integer, int[]> held) {
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

    // ---- state images -----------------------------------------------------------------------------------

    /**
     * Every array's directory entries, cached copies and data, by array id.
     *
     * @throws DsaException if a coherence transaction is under way (not a safe point)
     */
    List<AgentState.ArrayImage> images() {
        List<AgentState.ArrayImage> images = new ArrayList<>();
        synchronized (engineLock) {
            if (!engine.quiescent()) {
                throw new DsaException("node " + nodeId + " is not at a safe point: a coherence transaction is under way");
            }
            Map<Integer, Map<Integer, AgentState.PartitionImage>> parts = new TreeMap<>();
            engine.forEachHomeEntry((a, p, state, sharers, owner) -> parts.computeIfAbsent(a, k -> new TreeMap<>())
                    .put(p, new AgentState.PartitionImage(p, AgentState.ROLE_HOME, state.ordinal(), owner, sharers, slotData(a, p))));
            engine.forEachCacheEntry((a, p, state) -> parts.computeIfAbsent(a, k -> new TreeMap<>())
                    .put(p, new AgentState.PartitionImage(p, AgentState.ROLE_CACHE, state.ordinal(), -1, new int[0],
                            state == CacheState.INVALID ? null : slotData(a, p))));
            for (ArrayState a : new TreeMap<>(arrays).values()) {
                Map<Integer, AgentState.PartitionImage> mine = parts.computeIfAbsent(a.id, k -> new TreeMap<>());
                // untouched home partitions: state HOME, the data written by the home's own workers
                for (int p = 0; p < a.slots.length; p++) {
                    if (a.layout.homeOf(p) == nodeId && !mine.containsKey(p)) {
                        mine.put(p, new AgentState.PartitionImage(p, AgentState.ROLE_HOME, DirectoryState.HOME.ordinal(), -1,
                                new int[0], slotData(a.id, p)));
                    }
                }
                images.add(new AgentState.ArrayImage(a.id, a.spec.name(), Specs.toParams(a.spec), new ArrayList<>(mine.values())));
            }
        }
        return images;
    }

    private byte[] slotData(int arrayId, int partition) {
        ArrayState a = array(arrayId);
        return a.slots[partition].snapshot(a.layout.partitionBytes(partition));
    }

    /**
     * Installs arrays moved or cloned from another agent: directory entries, cache states and slot
     * data. Before any worker runs here.
     *
     * @throws DsaException if an image does not fit its array
     */
    void install(List<AgentState.ArrayImage> images) {
        synchronized (engineLock) {
            for (AgentState.ArrayImage ai : images) {
                ArrayState a = new ArrayState(ai.id(), Specs.fromParams(ai.name(), ai.params()), nodes, threadsPerNode, nodeId);
                arrays.put(ai.id(), a);
                for (AgentState.PartitionImage p : ai.partitions()) installPartition(a, ai.name(), p);
            }
        }
    }

    private void installPartition(ArrayState a, String name, AgentState.PartitionImage p) {
        if (p.partition() < 0 || p.partition() >= a.slots.length) {
            throw new DsaException("agent state: partition " + p.partition() + " of array '" + name + "' out of range [0, "
                    + a.slots.length + ")");
        }
        Access access;
        if (p.role() == AgentState.ROLE_HOME) {
            DirectoryState ds = DirectoryState.values()[p.state()];
            engine.restoreHome(a.id, p.partition(), ds, p.sharers(), p.owner());
            access = switch (ds) {
                case HOME -> Access.READ_WRITE;
                case SHARED -> Access.READ;
                case EXCLUSIVE -> Access.NONE;
            };
        } else {
            CacheState cs = CacheState.values()[p.state()];
            engine.restoreCache(a.id, p.partition(), cs);
            access = switch (cs) {
                case INVALID -> Access.NONE;
                case SHARED -> Access.READ;
                case EXCLUSIVE -> Access.READ_WRITE;
            };
        }
        int expected = a.layout.partitionBytes(p.partition());
        if (p.data() != null && p.data().length != expected) {
            throw new DsaException("agent state: partition " + p.partition() + " of array '" + name + "' has "
                    + p.data().length + " bytes, expected " + expected);
        }
        if (p.data() == null && access != Access.NONE) {
            throw new DsaException("agent state: partition " + p.partition() + " of array '" + name
                    + "' is valid (" + access + ") but carries no data");
        }
        a.slots[p.partition()].install(p.data() == null ? new byte[expected] : p.data(), access);
    }

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
}
