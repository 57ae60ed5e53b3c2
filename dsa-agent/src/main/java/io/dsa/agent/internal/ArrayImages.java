package io.dsa.agent.internal;

import io.dsa.CacheState;
import io.dsa.DsaException;
import io.dsa.agent.AgentState;
import io.dsa.coherence.Access;
import io.dsa.coherence.CoherenceEngine;
import io.dsa.coherence.DirectoryState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntFunction;

/**
 * The translation between this node's arrays and their {@link AgentState.ArrayImage}s at a safe
 * point (a move, a cloning, a checkpoint): taking the images (the engine's directory entries and
 * cached copies with the slots' data), installing them, and registering a clone as a sharer of the
 * partitions homed here. Its one job is that translation; whether the node is at a safe point
 * (quiescent coherence) is {@link ArrayDirectory}'s to check first.
 *
 * <p>Threading: every method runs on the node's {@link IoThread}, inside a task of
 * {@link ArrayDirectory} that its caller waits for, as every call into the engine does.
 */
final class ArrayImages {
    private final int nodeId;
    private final int nodes;
    private final int threadsPerNode;
    private final CoherenceEngine engine;
    /** The directory's arrays by id (a live map); install adds to it. */
    private final Map<Integer, ArrayState> arrays;
    /** The directory's lookup of a known array; throws for an unknown id. */
    private final IntFunction<ArrayState> array;

    ArrayImages(int nodeId, int nodes, int threadsPerNode, CoherenceEngine engine, Map<Integer, ArrayState> arrays,
            IntFunction<ArrayState> array) {
        this.nodeId = nodeId;
        this.nodes = nodes;
        this.threadsPerNode = threadsPerNode;
        this.engine = engine;
        this.arrays = arrays;
        this.array = array;
    }

    /**
     * Registers {@code cloneId} as a sharer of those of {@code held} (array id to partitions) that
     * are homed here.
     *
     * @throws DsaException if an entry cannot take a sharer (exclusive elsewhere or busy)
     */
    void addSharers(int cloneId, Map<Integer, int[]> held) {
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

    /**
     * Every array's directory entries, cached copies and data, by array id. The engine must be
     * quiescent.
     *
     * @throws DsaException if a release or accumulate scope holds buffered updates (not a safe point)
     */
    List<AgentState.ArrayImage> images() {
        return images(true);
    }

    /**
     * {@link #images()}; with {@code copy} false the partitions' data are the slots' own arrays, not copies: for a
     * caller that encodes the images before the safe point ends (a checkpoint), saving a copy of every partition.
     */
    List<AgentState.ArrayImage> images(boolean copy) {
        for (ArrayState a : arrays.values()) {
            if (!a.buffers().isEmpty()) {
                throw new DsaException("node " + nodeId + " is not at a safe point: a release or accumulate scope holds buffered"
                        + " updates of array '" + a.spec.name() + "'");
            }
        }
        Map<Integer, Map<Integer, AgentState.PartitionImage>> parts = new TreeMap<>();
        engine.forEachHomeEntry((a, p, state, sharers, owner) -> parts.computeIfAbsent(a, k -> new TreeMap<>())
                .put(p, new AgentState.PartitionImage(p, AgentState.ROLE_HOME, state.ordinal(), owner, sharers, slotData(a, p, copy))));
        engine.forEachCacheEntry((a, p, state) -> parts.computeIfAbsent(a, k -> new TreeMap<>())
                .put(p, new AgentState.PartitionImage(p, AgentState.ROLE_CACHE, state.ordinal(), -1, new int[0],
                        state == CacheState.INVALID ? null : slotData(a, p, copy))));
        List<AgentState.ArrayImage> images = new ArrayList<>();
        for (ArrayState a : new TreeMap<>(arrays).values()) {
            Map<Integer, AgentState.PartitionImage> mine = parts.computeIfAbsent(a.id, k -> new TreeMap<>());
            // untouched home partitions: state HOME, the data written by the home's own workers
            for (int p = 0; p < a.slots.length; p++) {
                if (a.layout.homeOf(p) == nodeId && !mine.containsKey(p)) {
                    mine.put(p, new AgentState.PartitionImage(p, AgentState.ROLE_HOME, DirectoryState.HOME.ordinal(), -1,
                            new int[0], slotData(a.id, p, copy)));
                }
            }
            images.add(new AgentState.ArrayImage(a.id, a.spec.name(), Specs.toParams(a.spec), new ArrayList<>(mine.values())));
        }
        return images;
    }

    private byte[] slotData(int arrayId, int partition, boolean copy) {
        ArrayState a = array.apply(arrayId);
        int bytes = a.layout.partitionBytes(partition);
        return copy ? a.slots[partition].snapshot(bytes) : a.slots[partition].bytesAtSafePoint(bytes);
    }

    /**
     * Installs arrays moved or cloned from another agent: directory entries, cache states and slot
     * data. Before any worker runs here.
     *
     * @throws DsaException if an image does not fit its array
     */
    void install(List<AgentState.ArrayImage> images) {
        for (AgentState.ArrayImage ai : images) {
            ArrayState a = new ArrayState(ai.id(), Specs.fromParams(ai.name(), ai.params()), nodes, threadsPerNode, nodeId);
            arrays.put(ai.id(), a);
            for (AgentState.PartitionImage p : ai.partitions()) installPartition(a, ai.name(), p);
        }
    }

    private void installPartition(ArrayState a, String name, AgentState.PartitionImage p) {
        if (p.partition() < 0 || p.partition() >= a.slots.length) {
            throw new DsaException("agent state: partition " + p.partition() + " of array '" + name + "' out of range [0, "
                    + a.slots.length + ")");
        }
        int expected = a.layout.partitionBytes(p.partition());
        if (p.data() != null && p.data().length != expected) {
            throw new DsaException("agent state: partition " + p.partition() + " of array '" + name + "' has "
                    + p.data().length + " bytes, expected " + expected);
        }
        if (p.role() == AgentState.ROLE_HOME) {
            engine.restoreHome(a.id, p.partition(), DirectoryState.values()[p.state()], p.sharers(), p.owner());
        } else {
            engine.restoreCache(a.id, p.partition(), CacheState.values()[p.state()]);
        }
        Access access = engine.access(a.id, p.partition());
        if (p.data() == null && access != Access.NONE) {
            throw new DsaException("agent state: partition " + p.partition() + " of array '" + name
                    + "' is valid (" + access + ") but carries no data");
        }
        a.slots[p.partition()].install(p.data() == null ? new byte[expected] : p.data(), access);
    }
}
