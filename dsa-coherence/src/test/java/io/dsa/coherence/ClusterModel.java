package io.dsa.coherence;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * One state of a small cluster for the model checker: a real {@link CoherenceEngine} per node with a
 * two-ints-per-partition {@link PartitionStore}, channels between the nodes ({@link ModelConfig.Delivery}: by
 * default a FIFO channel per ordered pair of nodes), and
 * workers (one or more per node) that each run a fixed list of reads, writes and updates
 * ({@link ModelOp}, {@link UpdateModel}); several workers on
 * one node share its engine, so their concurrent misses coalesce into one request. {@link #successor} forks the state
 * (engines included) and applies one transition: a worker's next step, the delivery of a message
 * (the oldest of its channel, unless {@link ModelConfig.Delivery#UNORDERED}), a push, a drop, or the arrival of
 * an update at its home or of its answer at its worker. Every write stores a value unique to its
 * worker and step, so a stale read is always visible.
 */
final class ClusterModel {
    static final int ARRAY = 0;
    /** Elements per partition: a plain read or write touches both, an update one (so two nodes' diffs can share a partition). */
    static final int ELEMENTS = 2;
    static final int BYTES = 4 * ELEMENTS;

    /** Messages in flight on one channel that {@link ModelConfig.Delivery#UNORDERED} can pick from; more is a configuration too large. */
    private static final int MAX_IN_FLIGHT = 64;

    /** A protocol violation found in a state. */
    static final class Violation extends RuntimeException {
        Violation(String message) { super(message, null, false, false); }
    }

    /** The partition data and access rights of one node: {@link #ELEMENTS} ints per partition. */
    final class Store implements PartitionStore {
        final int node;
        final byte[][] data;
        final Access[] access;
        /** per partition, the worker whose overwrite waits for its grant here, or -1 (the runtime's registered source) */
        final int[] source;

        Store(int node) {
            this.node = node;
            data = new byte[config.partitions()][];
            access = new Access[config.partitions()];
            source = new int[config.partitions()];
            for (int p = 0; p < access.length; p++) {
                data[p] = new byte[BYTES];
                access[p] = config.home(p) == node ? Access.READ_WRITE : Access.NONE;
                source[p] = -1;
            }
        }

        Store(Store other) {
            node = other.node;
            data = new byte[other.data.length][];
            for (int p = 0; p < data.length; p++) data[p] = other.data[p].clone();
            access = other.access.clone();
            source = other.source.clone();
        }

        /** The grant of an overwrite: the registered worker's write lands with the access, and its op is done. */
        @Override
        public void overwrite(int arrayId, int partition) {
            int w = source[partition];
            if (w < 0) throw new Violation("an overwrite of partition " + partition + " was granted, but no worker waits to write it");
            source[partition] = -1;
            if (access[partition] == Access.READ_WRITE) {
                throw new Violation("an overwrite of partition " + partition + " was granted to a node that could write it already");
            }
            access[partition] = Access.READ_WRITE;
            overwriteGranted = true;
            complete(w, config.workerNode()[w]);
            granted(node, partition);
        }

        @Override
        public void setAccess(int arrayId, int partition, Access a) {
            access[partition] = a;
            granted(node, partition);
        }

        @Override
        public byte[] snapshot(int arrayId, int partition) { return data[partition].clone(); }

        @Override
        public void install(int arrayId, int partition, byte[] bytes, Access a) {
            if (bytes.length != BYTES) throw new Violation("install of " + bytes.length + " bytes into partition " + partition);
            data[partition] = bytes;
            access[partition] = a;
            granted(node, partition);
        }

        int value(int partition, int element) { return valueOf(data[partition], element); }

        void write(int partition, int element, int value) {
            for (int i = 0; i < 4; i++) data[partition][4 * element + i] = (byte) (value >>> 8 * i);   // little-endian, as valueOf reads it
        }
    }

    final ModelConfig config;
    final CoherenceEngine[] engines;
    final Store[] stores;
    /** indexed by {@link ModelConfig#channel} */
    final ArrayDeque<CoherenceMessage>[] channels;
    /**
     * When each message in {@link #channels} was sent (same positions), counted per model: not part
     * of the state's identity, only to tell whether a delivery overtook an older message of its pair.
     */
    private final ArrayDeque<Long>[] sentAt;
    private long sends;
    /** Whether the last transition delivered a message while an older one from the same node to the same node was in flight. */
    boolean overtook;
    /** Whether the last transition granted an overwrite without data ({@link Store#overwrite}), or gave an overwriting worker the access another way. */
    boolean overwriteGranted;
    boolean overwriteFellBack;
    /** next op of each worker (indexed by worker, not node) */
    final int[] pc;
    /** whether each worker has missed on its next op and waits */
    final boolean[] waiting;
    /** the value of the last completed write of each element, at {@code partition * ELEMENTS + element} (0: none yet) */
    final int[] lastWrite;
    /** updates in flight, waiting at their homes, and their answers */
    final UpdateModel updates;
    /** Whether the last transition wrote an update at its home in the grant of an access the home had asked for. */
    boolean updateWrittenAtGrant;
    /** pushes the homes may still make in this run */
    int pushesLeft;
    /** drops of shared copies the nodes may still make in this run */
    int dropsLeft;
    /** what the last transition did, when {@link #describe} is on */
    final List<String> log = new ArrayList<>();
    boolean describe;

    ClusterModel(ModelConfig config) {
        this.config = config;
        int n = config.nodes();
        engines = new CoherenceEngine[n];
        stores = new Store[n];
        channels = newChannels(config.channels());
        sentAt = newChannels(config.channels());
        for (int i = 0; i < n; i++) {
            stores[i] = new Store(i);
            engines[i] = new CoherenceEngine(i, n, (a, p) -> config.home(p), stores[i], this::send);
            for (Fault f : config.faults()) engines[i].injectFault(f);
        }
        pc = new int[config.workers()];
        waiting = new boolean[config.workers()];
        lastWrite = new int[config.partitions() * ELEMENTS];
        updates = new UpdateModel(config.partitions());
        pushesLeft = config.pushes();
        dropsLeft = config.drops();
    }

    private ClusterModel(ClusterModel from) {
        config = from.config;
        int n = config.nodes();
        engines = new CoherenceEngine[n];
        stores = new Store[n];
        channels = newChannels(from.channels);
        sentAt = newChannels(from.sentAt);
        sends = from.sends;
        for (int i = 0; i < n; i++) {
            stores[i] = new Store(from.stores[i]);
            engines[i] = from.engines[i].copy(stores[i], this::send);
        }
        for (int c = 0; c < channels.length; c++) {
            for (CoherenceMessage m : from.channels[c]) {
                channels[c].addLast(m.data() == null ? m : new CoherenceMessage(m.op(), m.arrayId(), m.partition(), m.source(),
                        m.destination(), m.requester(), m.data().clone()));
            }
            sentAt[c].addAll(from.sentAt[c]);
        }
        pc = from.pc.clone();
        waiting = from.waiting.clone();
        lastWrite = from.lastWrite.clone();
        updates = new UpdateModel(from.updates);
        pushesLeft = from.pushesLeft;
        dropsLeft = from.dropsLeft;
    }

    @SuppressWarnings("unchecked")
    private static <T> ArrayDeque<T>[] newChannels(int count) {
        ArrayDeque<T>[] c = new ArrayDeque[count];
        for (int i = 0; i < c.length; i++) c[i] = new ArrayDeque<>();
        return c;
    }

    /**
     * @return empty channels, each with room for what the same channel of {@code sizedLike} holds: a
     *         copy's channels, mostly empty, take a slot or two each instead of ArrayDeque's default 16
     *         (the explorer keeps a whole breadth-first frontier of models in memory)
     */
    @SuppressWarnings("unchecked")
    private static <T> ArrayDeque<T>[] newChannels(ArrayDeque<?>[] sizedLike) {
        ArrayDeque<T>[] c = new ArrayDeque[sizedLike.length];
        for (int i = 0; i < c.length; i++) c[i] = new ArrayDeque<>(sizedLike[i].size());
        return c;
    }

    private void send(CoherenceMessage m) {
        int c = config.channel(m.source(), m.destination(), m.partition());
        if (channels[c].size() == MAX_IN_FLIGHT) throw new Violation("more than " + MAX_IN_FLIGHT + " messages in flight on one channel");
        channels[c].addLast(m);
        sentAt[c].addLast(sends++);
        if (describe) log.add("sends " + m);
    }

    static int valueOf(byte[] b, int element) {
        int i = 4 * element;
        return (b[i] & 0xFF) | (b[i + 1] & 0xFF) << 8 | (b[i + 2] & 0xFF) << 16 | (b[i + 3] & 0xFF) << 24;
    }

    // ------------------------------------------------------------------ transitions

    /**
     * @return the enabled transitions in a fixed order: worker w's step is {@code w}, the delivery of
     *         message i of channel c is {@code workers + c * MAX_IN_FLIGHT + i} (only i = 0, the
     *         oldest, unless {@link ModelConfig.Delivery#UNORDERED}), the push of partition p by its home to
     *         the nodes of bit mask m is {@link #pushBase} {@code + (p << nodes) + m}, the arrival of
     *         update i at its home {@link #updateBase} {@code + i}, and the arrival of answer i at its
     *         worker {@link #updateBase} {@code + UpdateModel.MAX_IN_FLIGHT + i}, and the drop of node x's
     *         shared copy of partition p {@link #dropBase} {@code + p * nodes + x}
     */
    int[] enabled() {
        int n = config.workers();
        boolean any = config.delivery() == ModelConfig.Delivery.UNORDERED;
        int[] t = new int[n + channels.length * (any ? MAX_IN_FLIGHT : 1) + (config.partitions() << config.nodes())
                + 2 * UpdateModel.MAX_IN_FLIGHT + config.partitions() * config.nodes()];
        int k = 0;
        for (int i = 0; i < n; i++) if (workerEnabled(i)) t[k++] = i;
        for (int c = 0; c < channels.length; c++) {
            int deliverable = any ? channels[c].size() : Math.min(1, channels[c].size());
            for (int i = 0; i < deliverable; i++) t[k++] = n + c * MAX_IN_FLIGHT + i;
        }
        if (pushesLeft > 0) {
            for (int p = 0; p < config.partitions(); p++) {
                int home = config.home(p);
                int pushable = 0;   // the nodes a push may go to now
                for (int x = 0; x < config.nodes(); x++) if (x != home && engines[home].canPush(ARRAY, p, x)) pushable |= 1 << x;
                // every non-empty set of them: pushes to one node and to several at once
                for (int m = pushable; m != 0; m = (m - 1) & pushable) t[k++] = pushBase() + (p << config.nodes()) + m;
            }
        }
        for (int i = 0; i < updates.toHome.size(); i++) t[k++] = updateBase() + i;
        for (int i = 0; i < updates.answers.size(); i++) t[k++] = updateBase() + UpdateModel.MAX_IN_FLIGHT + i;
        if (dropsLeft > 0) {
            for (int p = 0; p < config.partitions(); p++) {
                for (int x = 0; x < config.nodes(); x++) if (engines[x].canDrop(ARRAY, p)) t[k++] = dropBase() + p * config.nodes() + x;
            }
        }
        return java.util.Arrays.copyOf(t, k);
    }

    /** @return the first push transition: after every worker's step and every delivery */
    private int pushBase() { return config.workers() + channels.length * MAX_IN_FLIGHT; }

    /** @return the first update transition: after every push */
    private int updateBase() { return pushBase() + (config.partitions() << config.nodes()); }

    /** @return the first drop transition: after every update and answer */
    private int dropBase() { return updateBase() + 2 * UpdateModel.MAX_IN_FLIGHT; }

    private boolean workerEnabled(int worker) {
        List<ModelOp> ops = config.workloads().get(worker);
        if (pc[worker] >= ops.size()) return false;
        if (!waiting[worker]) return true;
        ModelOp op = ops.get(pc[worker]);
        if (op.update()) return false;   // its answer completes it
        int node = config.workerNode()[worker];
        // A waiting worker retries once it has the access (eager workers did so at once), or when its
        // request is no longer under way: the access was granted and taken away again in one step
        // (a home's own request completes and the next queued remote request revokes it), as when the
        // runtime wakes a waiting thread that then finds the access gone and asks again.
        return stores[node].access[op.partition()].allows(op.needed())
                || !engines[node].pendingRequest(ARRAY, op.partition()).allows(op.needed());
    }

    /** @return a fork of this state with transition {@code t} applied (the invariants checked) */
    ClusterModel successor(int t, boolean describe) {
        ClusterModel next = new ClusterModel(this);
        next.describe = describe;
        try {
            next.apply(t);
        } catch (Violation v) {
            if (describe && !next.log.isEmpty()) throw new Violation(String.join("; ", next.log) + " => VIOLATION: " + v.getMessage());
            throw v;
        }
        return next;
    }

    private void apply(int t) {
        int n = config.workers();
        try {
            if (t < n) {
                step(t);
            } else if (t >= dropBase()) {
                int p = (t - dropBase()) / config.nodes();
                int x = (t - dropBase()) % config.nodes();
                if (describe) log.add("node " + x + " drops its copy of partition " + p);
                if (!engines[x].drop(ARRAY, p)) throw new Violation("drop of " + p + " at node " + x + " refused");
                dropsLeft--;
            } else if (t >= updateBase() + UpdateModel.MAX_IN_FLIGHT) {
                answered(updates.answers.remove(t - updateBase() - UpdateModel.MAX_IN_FLIGHT));
            } else if (t >= updateBase()) {
                updates.arrive(this, t - updateBase());
            } else if (t >= pushBase()) {
                int p = (t - pushBase()) >> config.nodes();
                int[] to = java.util.BitSet.valueOf(new long[] {(t - pushBase()) & ((1 << config.nodes()) - 1)}).stream().toArray();
                if (describe) log.add("node " + config.home(p) + " pushes partition " + p + " to nodes " + java.util.Arrays.toString(to));
                if (engines[config.home(p)].push(ARRAY, p, to) != to.length) throw new Violation("push of " + p + " refused");
                pushesLeft--;
            } else {
                int c = (t - n) / MAX_IN_FLIGHT;
                CoherenceMessage m = take(channels[c], (t - n) % MAX_IN_FLIGHT);
                long sent = take(sentAt[c], (t - n) % MAX_IN_FLIGHT);
                overtook = olderInFlight(m.source(), m.destination(), sent);
                if (describe) log.add("deliver " + m);
                engines[m.destination()].onMessage(m);
            }
            if (config.eager()) {
                for (int i = 0; i < n; i++) {
                    if (waiting[i] && grantedAccess(i)) step(i);
                }
            }
        } catch (Violation v) {
            throw v;
        } catch (RuntimeException e) {
            throw new Violation("the engine threw: " + e.getMessage());
        }
        checkInvariants();
    }

    /** @return element {@code i} of {@code channel} (0: the oldest), removed */
    private static <T> T take(ArrayDeque<T> channel, int i) {
        if (i == 0) return channel.removeFirst();
        java.util.Iterator<T> it = channel.iterator();
        for (int k = 0; k < i; k++) it.next();
        T m = it.next();
        it.remove();
        return m;
    }

    /** @return whether a message from {@code source} to {@code destination} sent before {@code sent} is still in flight */
    private boolean olderInFlight(int source, int destination, long sent) {
        for (int p = 0; p < config.partitions(); p++) {
            for (long s : sentAt[config.channel(source, destination, p)]) {
                if (s < sent) return true;
            }
        }
        return false;
    }

    private boolean grantedAccess(int worker) {
        ModelOp op = config.workloads().get(worker).get(pc[worker]);
        return !op.update() && stores[config.workerNode()[worker]].access[op.partition()].allows(op.needed());
    }

    /** Worker {@code worker} tries its next op: a hit performs it, a miss leaves it waiting. */
    private void step(int worker) {
        ModelOp op = config.workloads().get(worker).get(pc[worker]);
        int node = config.workerNode()[worker];
        if (op.update()) {
            // a diff's value, or an accumulate's amount, unique to the worker and the step
            int value = op.kind() == 'D' ? (worker + 1) * 1000 + pc[worker] + 1 : (worker + 1) * 100_000 + (pc[worker] + 1) * 10;
            UpdateModel.Update u = new UpdateModel.Update(worker, op, value);
            updates.send(u);
            waiting[worker] = true;
            if (describe) log.add(who(worker, node) + " sends " + u + " to node " + config.home(op.partition()));
            return;
        }
        if (op.scope() && config.scopeFaults().contains(op.kind() == 'E' ? ScopeFault.ENTRY_WITHOUT_OWNERSHIP : ScopeFault.EXIT_WITHOUT_OWNERSHIP)) {
            if (describe) log.add(who(worker, node) + " " + op + " copies without taking the partition (the fault)");
            complete(worker, node);
            return;
        }
        boolean hit = op.overwrite() ? engines[node].requestOverwrite(ARRAY, op.partition())
                : engines[node].request(ARRAY, op.partition(), op.needed());
        if (hit != stores[node].access[op.partition()].allows(op.needed())) {
            throw new Violation("node " + node + ": the engine says " + (hit ? "hit" : "miss") + " on " + op
                    + " but the store grants " + stores[node].access[op.partition()]);
        }
        String who = who(worker, node);
        int p = op.partition();
        if (!hit) {
            waiting[worker] = true;
            // an overwrite registers its value once (the first worker of the node to miss on the partition)
            if (op.overwrite() && stores[node].source[p] < 0) stores[node].source[p] = worker;
            if (describe) log.add(who + " " + op + " misses");
            return;
        }
        // a worker that hits takes back the value it registered (the access came another way): it writes itself
        if (stores[node].source[p] == worker) {
            stores[node].source[p] = -1;
            overwriteFellBack = true;
        }
        complete(worker, node);
    }

    private String who(int worker, int node) {
        return config.workers() == config.nodes() ? "node " + node : "node " + node + " worker " + worker;
    }

    /** Worker {@code worker}'s next op is performed on its node's copy, which has the access. */
    private void complete(int worker, int node) {
        ModelOp op = config.workloads().get(worker).get(pc[worker]);
        String who = who(worker, node);
        waiting[worker] = false;
        pc[worker]++;
        int p = op.partition();
        if (op.kind() == 'E') {
            // owner computes' entry: the plain array gets the partition as it is, which must be the last write
            for (int e = 0; e < ELEMENTS; e++) {
                int value = stores[node].value(p, e);
                if (value != lastWrite[p * ELEMENTS + e]) {
                    throw new Violation(who + " entered owner computes over partition " + p + " and copied " + value + " from element "
                            + e + ", the last completed write was " + lastWrite[p * ELEMENTS + e]);
                }
            }
            if (describe) log.add(who + " " + op + " copies partition " + p + " into its plain array");
        } else if (op.write() || op.kind() == 'X') {   // owner computes' exit copies the plain array back: a write of every element
            int value = (worker + 1) * 1000 + pc[worker];
            for (int e = 0; e < ELEMENTS; e++) {
                stores[node].write(p, e, value);
                lastWrite[p * ELEMENTS + e] = value;
            }
            if (describe) log.add(who + " " + op + " writes " + value);
        } else {
            for (int e = 0; e < ELEMENTS; e++) {
                int value = stores[node].value(p, e);
                if (describe) log.add(who + " " + op + " reads " + value + " from element " + e);
                if (value != lastWrite[p * ELEMENTS + e]) {
                    throw new Violation(who + " read " + value + " from element " + e + " of partition " + p
                            + ", the last completed write was " + lastWrite[p * ELEMENTS + e]);
                }
            }
        }
    }

    // ------------------------------------------------------------------ updates at the homes (UpdateModel)

    /** Node {@code node}'s store changed its access to {@code p}: a home writes the updates that waited for it, right in the grant. */
    private void granted(int node, int p) {
        if (node == config.home(p)) updates.granted(this, p);
    }

    /** The home's answer to update {@code u} reaches its worker, whose op is then done. */
    private void answered(UpdateModel.Update u) {
        if (describe) log.add(who(u.worker(), config.workerNode()[u.worker()]) + " receives the answer to " + u);
        waiting[u.worker()] = false;
        pc[u.worker()]++;
    }

    // ------------------------------------------------------------------ checks

    /** One writer or many readers; every valid copy holds the last write; the directory knows every copy. */
    void checkInvariants() {
        int n = config.nodes();
        for (int p = 0; p < config.partitions(); p++) {
            int writers = 0, readers = 0;
            int home = config.home(p);
            for (int i = 0; i < n; i++) {
                Access a = stores[i].access[p];
                if (a == Access.NONE) continue;
                if (a == Access.READ_WRITE) writers++;
                else readers++;
                for (int e = 0; e < ELEMENTS; e++) {
                    if (stores[i].value(p, e) != lastWrite[p * ELEMENTS + e]) {
                        throw new Violation("node " + i + " holds " + a + " on partition " + p + " with " + stores[i].value(p, e)
                                + " in element " + e + ", but the last completed write was " + lastWrite[p * ELEMENTS + e]);
                    }
                }
                if (i != home && engines[home].owner(ARRAY, p) != i && !contains(engines[home].sharers(ARRAY, p), i)) {
                    throw new Violation("node " + i + " holds " + a + " on partition " + p + " but the home directory ("
                            + engines[home].describe(ARRAY, p) + ") lists it neither as owner nor as sharer");
                }
            }
            if (writers > 1 || (writers == 1 && readers > 0)) {
                throw new Violation("partition " + p + " has " + writers + " writer(s) and " + readers + " reader(s)");
            }
            if (quiescent(p)) checkDirectoryExact(p);
        }
    }

    /** @return whether nothing is under way on partition {@code p}: no message, transaction, queued or pending request */
    private boolean quiescent(int p) {
        int home = config.home(p);
        if (engines[home].busy(ARRAY, p) || engines[home].queuedRequests(ARRAY, p) > 0) return false;
        for (int i = 0; i < config.nodes(); i++) {
            if (engines[i].pendingRequest(ARRAY, p) != Access.NONE || engines[i].wantsWrite(ARRAY, p)) return false;
        }
        for (ArrayDeque<CoherenceMessage> c : channels) {
            for (CoherenceMessage m : c) if (m.partition() == p) return false;
        }
        return true;
    }

    /**
     * With nothing under way on partition {@code p}, the home directory describes the caches exactly:
     * the sharers are the nodes holding READ, the owner is the node holding READ_WRITE, and the
     * directory state matches the home's own access (HOME: READ_WRITE, SHARED: READ, EXCLUSIVE: NONE).
     */
    private void checkDirectoryExact(int p) {
        int home = config.home(p);
        int owner = -1;
        java.util.BitSet readers = new java.util.BitSet();
        for (int i = 0; i < config.nodes(); i++) {
            if (i == home) continue;
            Access a = stores[i].access[p];
            if (a == Access.READ_WRITE) owner = i;
            else if (a == Access.READ) readers.set(i);
        }
        java.util.BitSet sharers = new java.util.BitSet();
        for (int s : engines[home].sharers(ARRAY, p)) sharers.set(s);
        DirectoryState state = engines[home].directoryState(ARRAY, p);
        Access homeAccess = stores[home].access[p];
        Access expectedHome = switch (state) {
            case HOME -> Access.READ_WRITE;
            case SHARED -> Access.READ;
            case EXCLUSIVE -> Access.NONE;
        };
        boolean stateAgrees = switch (state) {
            case HOME -> owner < 0 && readers.isEmpty();
            case SHARED -> owner < 0 && !readers.isEmpty();
            case EXCLUSIVE -> owner >= 0 && readers.isEmpty();
        };
        if (!sharers.equals(readers) || engines[home].owner(ARRAY, p) != owner || homeAccess != expectedHome || !stateAgrees) {
            throw new Violation("partition " + p + " is quiescent but the home directory (" + engines[home].describe(ARRAY, p)
                    + ", sharers " + sharers + ", owner " + engines[home].owner(ARRAY, p) + ", home access " + homeAccess
                    + ") disagrees with the caches (readers " + readers + ", writer " + owner + ")");
        }
    }

    private static boolean contains(int[] a, int v) {
        for (int x : a) if (x == v) return true;
        return false;
    }

    /**
     * @param atHome whether to look at the homes' entries (localWantWrite) or the caches' (wantWrite)
     * @return whether some node has a write wanted behind its own read under way (concurrent misses coalesced)
     */
    boolean writeCoalesced(boolean atHome) {
        for (int i = 0; i < config.nodes(); i++) {
            for (int p = 0; p < config.partitions(); p++) {
                if (config.home(p) == i == atHome && engines[i].wantsWrite(ARRAY, p)) return true;
            }
        }
        return false;
    }

    /** @return whether every worker is done, no message is in flight and every engine is quiescent */
    boolean finished() {
        for (int w = 0; w < config.workers(); w++) if (pc[w] < config.workloads().get(w).size()) return false;
        for (int i = 0; i < config.nodes(); i++) if (!engines[i].quiescent()) return false;
        for (ArrayDeque<CoherenceMessage> c : channels) if (!c.isEmpty()) return false;
        return updates.empty();
    }

    /** @return what is stuck, for a deadlock report */
    String stuck() {
        StringBuilder sb = new StringBuilder();
        for (int w = 0; w < config.workers(); w++) {
            List<ModelOp> ops = config.workloads().get(w);
            if (pc[w] < ops.size()) {
                sb.append(" worker ").append(w).append(" on node ").append(config.workerNode()[w]).append(" waits on ")
                        .append(ops.get(pc[w])).append(';');
            }
        }
        for (int i = 0; i < config.nodes(); i++) {
            for (int p = 0; p < config.partitions(); p++) sb.append(' ').append(engines[i].describe(ARRAY, p)).append(';');
        }
        if (!updates.empty()) sb.append(' ').append(updates);
        return sb.toString();
    }

    // ------------------------------------------------------------------ state identity

    /** @return the complete state as bytes: equal states give equal bytes */
    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
        DataOutputStream out = new DataOutputStream(bytes);
        try {
            for (int w = 0; w < config.workers(); w++) {
                out.writeByte(pc[w]);
                out.writeBoolean(waiting[w]);
            }
            for (int i = 0; i < config.nodes(); i++) {
                for (int p = 0; p < config.partitions(); p++) {
                    engines[i].encodeEntry(ARRAY, p, out);
                    out.writeByte(stores[i].access[p].ordinal());
                    out.writeByte(stores[i].source[p]);
                    for (int e = 0; e < ELEMENTS; e++) out.writeInt(stores[i].value(p, e));
                }
            }
            for (ArrayDeque<CoherenceMessage> c : channels) {
                out.writeByte(c.size());
                for (CoherenceMessage m : c) {
                    out.writeByte(m.op().code());
                    out.writeByte(m.partition());
                    out.writeByte(m.requester());
                    out.writeBoolean(m.data() != null);
                    if (m.data() != null) for (int e = 0; e < ELEMENTS; e++) out.writeInt(valueOf(m.data(), e));
                }
            }
            for (int v : lastWrite) out.writeInt(v);
            out.writeByte(pushesLeft);
            out.writeByte(dropsLeft);
            updates.encode(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
