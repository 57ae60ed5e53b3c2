package io.dsa.coherence;

import io.dsa.CacheState;

import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One node's side of the home-based MSI directory protocol: the directory entries of the
 * partitions homed here and the cache entries of the others. Pure protocol logic: no threads,
 * sockets or clock. Not thread-safe: the runtime calls it from one thread at a time.
 *
 * <p>See {@code docs/coherence.md} for the state and transition table.
 */
public final class CoherenceEngine {
    private static final System.Logger LOG = System.getLogger(CoherenceEngine.class.getName());

    private final int nodeId;
    private int nodeCount;
    private final HomeResolver homes;
    private final PartitionStore store;
    private final Outbox outbox;
    /** directory entries of the partitions homed here, created on first use */
    private final Map<Long, HomeEntry> directory = new HashMap<>();
    /** cache entries of the partitions homed elsewhere, created on first use */
    private final Map<Long, CacheEntry> cache = new HashMap<>();
    /** protocol bugs switched on by the model checker's tests; always empty in the runtime */
    private final EnumSet<Fault> faults = EnumSet.noneOf(Fault.class);

    /**
     * @param nodeId this node
     * @param nodeCount nodes in the VM
     * @param homes the home of each partition
     * @param store this node's partition data and access rights
     * @param outbox messages to other nodes
     */
    public CoherenceEngine(int nodeId, int nodeCount, HomeResolver homes, PartitionStore store, Outbox outbox) {
        if (nodeCount < 1) throw new IllegalArgumentException("nodeCount " + nodeCount + " must be >= 1");
        if (nodeId < 0 || nodeId >= nodeCount) {
            throw new IllegalArgumentException("nodeId " + nodeId + " out of range [0, " + nodeCount + ")");
        }
        this.nodeId = nodeId;
        this.nodeCount = nodeCount;
        this.homes = Objects.requireNonNull(homes, "homes");
        this.store = Objects.requireNonNull(store, "store");
        this.outbox = Objects.requireNonNull(outbox, "outbox");
    }

    /**
     * A local worker needs {@code needed} ({@link Access#READ} or {@link Access#READ_WRITE}) on a
     * partition. If this node already has it, returns {@code true} and does nothing. Otherwise
     * makes sure a request is under way (at most one per partition per node: concurrent misses
     * coalesce) and returns {@code false}; the store's {@code install}/{@code setAccess} later
     * grants the access.
     */
    public boolean request(int arrayId, int partition, Access needed) {
        Objects.requireNonNull(needed, "needed");
        if (isHome(arrayId, partition)) {
            HomeEntry e = homeEntry(arrayId, partition);
            if (e.access.allows(needed)) return true;
            boolean write = needed == Access.READ_WRITE;
            switch (e.localPending) {
                case NONE -> {
                    e.localPending = write ? Pending.WRITE : Pending.READ;
                    e.queue.addLast(new Request(nodeId, write));
                    drain(e);
                }
                case READ -> e.localWantWrite |= write;
                case WRITE -> { /* the write under way grants reads too */ }
            }
            return false;
        }
        CacheEntry c = cacheEntry(arrayId, partition);
        if (c.access().allows(needed)) return true;
        boolean write = needed == Access.READ_WRITE;
        switch (c.pending) {
            case NONE -> {
                c.pending = write ? Pending.WRITE : Pending.READ;
                send(write ? CoherenceOp.GET_M : CoherenceOp.GET_S, c.arrayId, c.partition, c.home, nodeId, null);
            }
            // a write wanted while a read is under way: ask for ownership once the shared copy arrives
            case READ -> c.wantWrite |= write;
            case WRITE -> { /* the write under way grants reads too */ }
        }
        return false;
    }

    /** Handles a message from another node. */
    public void onMessage(CoherenceMessage message) {
        Objects.requireNonNull(message, "message");
        if (message.destination() != nodeId) {
            throw new IllegalStateException("node " + nodeId + " received " + message + " addressed to node " + message.destination());
        }
        if (message.source() < 0 || message.source() >= nodeCount || message.source() == nodeId) {
            throw new IllegalStateException("node " + nodeId + " received " + message + " from source " + message.source()
                    + ", expected another node in [0, " + nodeCount + ")");
        }
        if (message.requester() < 0 || message.requester() >= nodeCount) {
            throw new IllegalStateException("node " + nodeId + " received " + message + " with requester " + message.requester()
                    + " out of range [0, " + nodeCount + ")");
        }
        boolean home = isHome(message.arrayId(), message.partition());
        switch (message.op()) {
            case GET_S, GET_M, INV_ACK, OWNER_DATA, OWNER_RELEASE -> {
                if (!home) throw new IllegalStateException("node " + nodeId + " received " + message + " but is not the home of "
                        + message.arrayId() + ":" + message.partition() + " (home is "
                        + homes.homeOf(message.arrayId(), message.partition()) + ")");
                onHomeMessage(homeEntry(message.arrayId(), message.partition()), message);
            }
            case DATA_S, DATA_M, INV, FWD_GET_S, FWD_GET_M -> {
                if (home) throw new IllegalStateException("node " + nodeId + " received " + message
                        + " but is the home of " + message.arrayId() + ":" + message.partition());
                onCacheMessage(cacheEntry(message.arrayId(), message.partition()), message);
            }
        }
    }

    /** @return this node's current access to a partition */
    public Access access(int arrayId, int partition) {
        if (isHome(arrayId, partition)) {
            HomeEntry e = directory.get(key(arrayId, partition));
            return e == null ? Access.READ_WRITE : e.access;
        }
        CacheEntry c = cache.get(key(arrayId, partition));
        return c == null ? Access.NONE : c.access();
    }

    // ------------------------------------------------------------------ inspection

    /** @return whether this node is the home of the partition */
    public boolean isHome(int arrayId, int partition) {
        return homes.homeOf(arrayId, partition) == nodeId;
    }

    /**
     * @return this node's copy of the partition seen as a cache: EXCLUSIVE with
     *         {@link Access#READ_WRITE}, SHARED with {@link Access#READ}, INVALID otherwise (also at the home)
     */
    public CacheState cacheState(int arrayId, int partition) {
        return switch (access(arrayId, partition)) {
            case READ_WRITE -> CacheState.EXCLUSIVE;
            case READ -> CacheState.SHARED;
            case NONE -> CacheState.INVALID;
        };
    }

    /**
     * @return the directory state of a partition homed here
     * @throws IllegalArgumentException if this node is not its home
     */
    public DirectoryState directoryState(int arrayId, int partition) {
        HomeEntry e = peekHome(arrayId, partition);
        return e == null ? DirectoryState.HOME : e.state;
    }

    /** @return the sharers (never the home) of a partition homed here, ascending */
    public int[] sharers(int arrayId, int partition) {
        HomeEntry e = peekHome(arrayId, partition);
        return e == null ? new int[0] : e.sharers.stream().toArray();
    }

    /** @return the exclusive owner of a partition homed here, or -1 if none */
    public int owner(int arrayId, int partition) {
        HomeEntry e = peekHome(arrayId, partition);
        return e == null ? -1 : e.owner;
    }

    /** @return whether a transaction on a partition homed here is waiting for acks or an owner's data */
    public boolean busy(int arrayId, int partition) {
        HomeEntry e = peekHome(arrayId, partition);
        return e != null && e.txn != null;
    }

    /** @return requests (local and remote) queued behind the transaction in progress on a partition homed here */
    public int queuedRequests(int arrayId, int partition) {
        HomeEntry e = peekHome(arrayId, partition);
        return e == null ? 0 : e.queue.size();
    }

    /**
     * @return the access this node's request under way on the partition asks for ({@link Access#READ} or
     *         {@link Access#READ_WRITE}), or {@link Access#NONE} if none is under way
     */
    public Access pendingRequest(int arrayId, int partition) {
        Pending p;
        if (isHome(arrayId, partition)) {
            HomeEntry e = directory.get(key(arrayId, partition));
            p = e == null ? Pending.NONE : e.localPending;
        } else {
            CacheEntry c = cache.get(key(arrayId, partition));
            p = c == null ? Pending.NONE : c.pending;
        }
        return p.access;
    }

    /** @return whether a write is wanted after this node's read request under way on the partition */
    public boolean wantsWrite(int arrayId, int partition) {
        if (isHome(arrayId, partition)) {
            HomeEntry e = directory.get(key(arrayId, partition));
            return e != null && e.localWantWrite;
        }
        CacheEntry c = cache.get(key(arrayId, partition));
        return c != null && c.wantWrite;
    }

    /** @return whether no transaction is in progress, none queued and no request of this node under way */
    public boolean quiescent() {
        for (HomeEntry e : directory.values()) {
            if (e.txn != null || !e.queue.isEmpty() || e.localPending != Pending.NONE || e.localWantWrite) return false;
        }
        for (CacheEntry c : cache.values()) {
            if (c.pending != Pending.NONE || c.wantWrite) return false;
        }
        return true;
    }

    /** @return a one-line description of this node's entry for a partition, for diagnostics */
    public String describe(int arrayId, int partition) {
        Object e = isHome(arrayId, partition) ? directory.get(key(arrayId, partition)) : cache.get(key(arrayId, partition));
        return e == null ? "node " + nodeId + " " + arrayId + ":" + partition + " untouched" : e.toString();
    }

    // ------------------------------------------------------------------ model checking support

    /** Switches on a protocol bug, for tests that check the model checker finds it. */
    void injectFault(Fault fault) {
        faults.add(fault);
    }

    /**
     * @return a deep copy of this engine (directory, cache entries, transactions, queues and faults)
     *         that works on {@code store} and sends to {@code outbox}, so a model checker can fork a state
     */
    CoherenceEngine copy(PartitionStore store, Outbox outbox) {
        CoherenceEngine c = new CoherenceEngine(nodeId, nodeCount, homes, store, outbox);
        c.faults.addAll(faults);
        for (Map.Entry<Long, HomeEntry> d : directory.entrySet()) {
            HomeEntry from = d.getValue(), to = c.new HomeEntry(from.arrayId, from.partition);
            to.state = from.state;
            to.sharers.or(from.sharers);
            to.owner = from.owner;
            to.access = from.access;
            to.txn = from.txn == null ? null : from.txn.copy();
            to.queue.addAll(from.queue);
            to.localPending = from.localPending;
            to.localWantWrite = from.localWantWrite;
            c.directory.put(d.getKey(), to);
        }
        for (Map.Entry<Long, CacheEntry> k : cache.entrySet()) {
            CacheEntry from = k.getValue(), to = c.new CacheEntry(from.arrayId, from.partition, from.home);
            to.state = from.state;
            to.pending = from.pending;
            to.wantWrite = from.wantWrite;
            c.cache.put(k.getKey(), to);
        }
        return c;
    }

    /**
     * Writes the complete protocol state of this node's entry for a partition; an entry never
     * created writes the same bytes as a fresh one, so equal states encode equally.
     */
    void encodeEntry(int arrayId, int partition, DataOutput out) throws IOException {
        if (isHome(arrayId, partition)) {
            HomeEntry e = directory.get(key(arrayId, partition));
            if (e == null) e = new HomeEntry(arrayId, partition);
            out.writeByte(e.state.ordinal());
            out.writeLong(e.sharers.isEmpty() ? 0 : e.sharers.toLongArray()[0]);
            out.writeByte(e.owner);
            out.writeByte(e.access.ordinal());
            if (e.txn == null) {
                out.writeByte(-1);
            } else {
                out.writeByte(e.txn.kind.ordinal());
                out.writeByte(e.txn.requester);
                out.writeLong(e.txn.awaiting == null || e.txn.awaiting.isEmpty() ? 0 : e.txn.awaiting.toLongArray()[0]);
                out.writeBoolean(e.txn.withData);
            }
            out.writeByte(e.queue.size());
            for (Request r : e.queue) out.writeByte(r.requester * 2 + (r.write ? 1 : 0));
            out.writeByte(e.localPending.ordinal());
            out.writeBoolean(e.localWantWrite);
        } else {
            CacheEntry c = cache.get(key(arrayId, partition));
            out.writeByte(c == null ? CacheState.INVALID.ordinal() : c.state.ordinal());
            out.writeByte(c == null ? Pending.NONE.ordinal() : c.pending.ordinal());
            out.writeBoolean(c != null && c.wantWrite);
        }
    }

    // ------------------------------------------------------------------ mobility

    /** Receives one directory entry of a partition homed here (see {@link #forEachHomeEntry}). */
    @FunctionalInterface
    public interface HomeEntryVisitor {
        /** @param sharers ascending, never the home; @param owner the exclusive owner or -1 */
        void visit(int arrayId, int partition, DirectoryState state, int[] sharers, int owner);
    }

    /** Receives one cache entry of a partition homed elsewhere (see {@link #forEachCacheEntry}). */
    @FunctionalInterface
    public interface CacheEntryVisitor {
        void visit(int arrayId, int partition, CacheState state);
    }

    /** Visits every directory entry this node has created (untouched partitions are in state HOME). */
    public void forEachHomeEntry(HomeEntryVisitor visitor) {
        for (HomeEntry e : directory.values()) visitor.visit(e.arrayId, e.partition, e.state, e.sharers.stream().toArray(), e.owner);
    }

    /** Visits every cache entry this node has created. */
    public void forEachCacheEntry(CacheEntryVisitor visitor) {
        for (CacheEntry c : cache.values()) visitor.visit(c.arrayId, c.partition, c.state);
    }

    /**
     * Installs a directory entry moved from another agent of the same node id (live migration).
     * Only at a safe point: the entry has no transaction, queue or request under way. The home's
     * access follows the state (HOME read-write, SHARED read, EXCLUSIVE none); the caller installs
     * the data with that access.
     *
     * @throws IllegalArgumentException if this node is not the home, or the state's invariant does not hold
     */
    public void restoreHome(int arrayId, int partition, DirectoryState state, int[] sharers, int owner) {
        if (!isHome(arrayId, partition)) {
            throw new IllegalArgumentException("node " + nodeId + " cannot restore the directory entry of " + arrayId + ":" + partition
                    + ": its home is node " + homes.homeOf(arrayId, partition));
        }
        HomeEntry e = new HomeEntry(arrayId, partition);
        for (int s : sharers) {
            if (s < 0 || s >= nodeCount || s == nodeId) {
                throw new IllegalArgumentException("sharer " + s + " of " + arrayId + ":" + partition + " out of range [0, " + nodeCount
                        + ") or the home " + nodeId);
            }
            e.sharers.set(s);
        }
        if (owner < -1 || owner >= nodeCount) {
            throw new IllegalArgumentException("owner " + owner + " of " + arrayId + ":" + partition + " out of range [-1, " + nodeCount + ")");
        }
        e.owner = owner;
        e.access = switch (state) {
            case HOME -> Access.READ_WRITE;
            case SHARED -> Access.READ;
            case EXCLUSIVE -> Access.NONE;
        };
        e.transitionTo(state, "restored after migration");
        directory.put(key(arrayId, partition), e);
    }

    /**
     * Installs a cache entry moved from another agent of the same node id, or a clone's copy.
     *
     * @throws IllegalArgumentException if this node is the home of the partition
     */
    public void restoreCache(int arrayId, int partition, CacheState state) {
        if (isHome(arrayId, partition)) {
            throw new IllegalArgumentException("node " + nodeId + " is the home of " + arrayId + ":" + partition + ", not a cache");
        }
        CacheEntry c = new CacheEntry(arrayId, partition, homes.homeOf(arrayId, partition));
        c.state = state;
        cache.put(key(arrayId, partition), c);
    }

    /**
     * Makes node {@code node} a sharer of a partition homed here (cloning: the clone holds a copy
     * of this home's valid data, so later writes must invalidate it). Only at a safe point. A
     * HOME entry becomes SHARED and the home's access drops to READ.
     *
     * @return false if the entry is EXCLUSIVE at another node (the home has no valid data to share) or busy
     */
    public boolean addSharer(int arrayId, int partition, int node) {
        if (node < 0 || node >= nodeCount || node == nodeId) {
            throw new IllegalArgumentException("sharer " + node + " out of range [0, " + nodeCount + ") or the home " + nodeId);
        }
        if (!isHome(arrayId, partition)) {
            throw new IllegalArgumentException("node " + nodeId + " is not the home of " + arrayId + ":" + partition);
        }
        HomeEntry e = homeEntry(arrayId, partition);
        if (e.txn != null || !e.queue.isEmpty() || e.state == DirectoryState.EXCLUSIVE) return false;
        e.sharers.set(node);
        if (e.state == DirectoryState.HOME) {
            e.access = Access.READ;
            store.setAccess(arrayId, partition, Access.READ);
            e.transitionTo(DirectoryState.SHARED, "clone " + node + " registered as a sharer");
        }
        return true;
    }

    /**
     * Forgets node {@code node}, a clone that left (clones hold only shared copies): it stops
     * being a sharer of the partitions homed here, an invalidation awaiting its acknowledgement
     * goes on without it, and its queued requests are dropped. A SHARED entry left without
     * sharers becomes HOME again.
     */
    public void forgetNode(int node) {
        if (node < 0 || node >= nodeCount || node == nodeId) {
            throw new IllegalArgumentException("node " + node + " out of range [0, " + nodeCount + ") or this node " + nodeId);
        }
        for (HomeEntry e : List.copyOf(directory.values())) {
            e.queue.removeIf(r -> r.requester == node);
            Txn t = e.txn;
            if (t != null && t.kind == TxnKind.INVALIDATE && t.awaiting.get(node)) {
                t.awaiting.clear(node);
                if (t.awaiting.isEmpty()) completeInvalidation(e, t);
            } else if (t == null && e.sharers.get(node)) {
                e.sharers.clear(node);
                if (e.sharers.isEmpty() && e.state == DirectoryState.SHARED) {
                    setHomeAccess(e, Access.READ_WRITE);
                    e.transitionTo(DirectoryState.HOME, "sharer " + node + " left");
                }
            }
            drain(e);
        }
    }

    /**
     * Grows the VM to {@code count} nodes (a clone joined with id {@code count - 1}); messages from
     * the new ids are then accepted.
     */
    public void admitNodes(int count) {
        if (count < nodeCount) throw new IllegalArgumentException("node count " + count + " below the current " + nodeCount);
        nodeCount = count;
    }

    // ------------------------------------------------------------------ home side

    private void onHomeMessage(HomeEntry e, CoherenceMessage m) {
        switch (m.op()) {
            case GET_S, GET_M -> {
                if (m.requester() != m.source()) throw unexpected(m, e, "requester must be the source");
                e.queue.addLast(new Request(m.source(), m.op() == CoherenceOp.GET_M));
            }
            case INV_ACK -> {
                Txn t = e.txn;
                if (t == null || t.kind != TxnKind.INVALIDATE || !t.awaiting.get(m.source()) || m.requester() != t.requester) {
                    throw unexpected(m, e, "no invalidation awaiting this ack");
                }
                t.awaiting.clear(m.source());
                if (t.awaiting.isEmpty() || faults.contains(Fault.ACK_NOT_AWAITED)) completeInvalidation(e, t);
            }
            case OWNER_DATA, OWNER_RELEASE -> {
                Txn t = e.txn;
                if (t == null && m.op() == CoherenceOp.OWNER_RELEASE && faults.contains(Fault.FORWARD_NOT_BLOCKING)) {
                    send(CoherenceOp.DATA_M, e.arrayId, e.partition, m.requester(), m.requester(), m.data());
                    break;
                }
                TxnKind kind = m.op() == CoherenceOp.OWNER_DATA ? TxnKind.FORWARD_S : TxnKind.FORWARD_M;
                if (t == null || t.kind != kind || m.source() != e.owner || m.requester() != t.requester) {
                    throw unexpected(m, e, "no " + (kind == TxnKind.FORWARD_S ? "FWD_GET_S" : "FWD_GET_M") + " awaiting this reply");
                }
                if (m.data() == null) throw unexpected(m, e, "the owner's data is missing");
                if (kind == TxnKind.FORWARD_S) completeForwardS(e, t, m.data());
                else completeForwardM(e, t, m.data());
            }
            default -> throw unexpected(m, e, "not a message for a home");
        }
        drain(e);
    }

    /** Starts queued transactions until one has to wait for other nodes. */
    private void drain(HomeEntry e) {
        while (e.txn == null && !e.queue.isEmpty()) {
            Request r = e.queue.removeFirst();
            if (r.requester == nodeId) startLocal(e, r.write);
            else if (r.write) startGetM(e, r.requester);
            else startGetS(e, r.requester);
        }
    }

    private void startGetS(HomeEntry e, int r) {
        switch (e.state) {
            case HOME -> {
                setHomeAccess(e, Access.READ);   // before the snapshot: no home write may be missed
                byte[] data = store.snapshot(e.arrayId, e.partition);
                e.sharers.set(r);
                e.transitionTo(DirectoryState.SHARED, "GET_S from " + r);
                send(CoherenceOp.DATA_S, e.arrayId, e.partition, r, r, data);
            }
            case SHARED -> {
                // a sharer never asks again: it has a valid copy until an INV, which removes it here first
                if (e.sharers.get(r)) throw unexpectedRequest(e, r, false);
                byte[] data = store.snapshot(e.arrayId, e.partition);
                e.sharers.set(r);
                e.transitionTo(DirectoryState.SHARED, "GET_S from " + r);
                send(CoherenceOp.DATA_S, e.arrayId, e.partition, r, r, data);
            }
            case EXCLUSIVE -> {
                if (e.owner == r) throw unexpectedRequest(e, r, false);
                if (faults.contains(Fault.STALE_HOME_READ)) {
                    // the bug: answer from the home memory, which is stale while the owner writes
                    send(CoherenceOp.DATA_S, e.arrayId, e.partition, r, r, store.snapshot(e.arrayId, e.partition));
                    return;
                }
                e.txn = Txn.forward(TxnKind.FORWARD_S, r);
                send(CoherenceOp.FWD_GET_S, e.arrayId, e.partition, e.owner, r, null);
            }
        }
    }

    private void startGetM(HomeEntry e, int r) {
        switch (e.state) {
            case HOME -> {
                setHomeAccess(e, Access.NONE);
                byte[] data = store.snapshot(e.arrayId, e.partition);
                grantExclusive(e, r, data, "GET_M from " + r);
            }
            case SHARED -> {
                setHomeAccess(e, Access.NONE);
                // an upgrading sharer keeps its copy, which equals the home memory: no data needed
                boolean withData = !e.sharers.get(r);
                BitSet others = (BitSet) e.sharers.clone();
                others.clear(r);
                if (others.isEmpty()) {
                    byte[] data = withData ? store.snapshot(e.arrayId, e.partition) : null;
                    e.sharers.clear();
                    grantExclusive(e, r, data, "GET_M from " + r + (withData ? "" : " (upgrade)"));
                } else {
                    e.txn = Txn.invalidate(r, others, withData);
                    for (int s = others.nextSetBit(0); s >= 0; s = others.nextSetBit(s + 1)) {
                        send(CoherenceOp.INV, e.arrayId, e.partition, s, r, null);
                    }
                }
            }
            case EXCLUSIVE -> {
                if (e.owner == r) throw unexpectedRequest(e, r, true);
                if (faults.contains(Fault.FORWARD_NOT_BLOCKING)) {
                    // the bug: the new owner is recorded at once and the partition is not blocked
                    // until the old owner's data has passed through the home
                    send(CoherenceOp.FWD_GET_M, e.arrayId, e.partition, e.owner, r, null);
                    e.owner = r;
                    return;
                }
                e.txn = Txn.forward(TxnKind.FORWARD_M, r);
                send(CoherenceOp.FWD_GET_M, e.arrayId, e.partition, e.owner, r, null);
            }
        }
    }

    /** A transaction for the home's own workers. It may be satisfied by the time it leaves the queue. */
    private void startLocal(HomeEntry e, boolean write) {
        switch (e.state) {
            case HOME -> finishLocal(e);
            case SHARED -> {
                if (!write) {
                    finishLocal(e);
                } else {
                    e.txn = Txn.invalidate(nodeId, (BitSet) e.sharers.clone(), false);
                    for (int s = e.sharers.nextSetBit(0); s >= 0; s = e.sharers.nextSetBit(s + 1)) {
                        send(CoherenceOp.INV, e.arrayId, e.partition, s, nodeId, null);
                    }
                }
            }
            case EXCLUSIVE -> {
                e.txn = Txn.forward(write ? TxnKind.FORWARD_M : TxnKind.FORWARD_S, nodeId);
                send(write ? CoherenceOp.FWD_GET_M : CoherenceOp.FWD_GET_S, e.arrayId, e.partition, e.owner, nodeId, null);
            }
        }
    }

    private void completeInvalidation(HomeEntry e, Txn t) {
        e.txn = null;
        e.sharers.clear();
        if (t.requester == nodeId) {
            setHomeAccess(e, Access.READ_WRITE);
            e.transitionTo(DirectoryState.HOME, "local write, sharers invalidated");
            finishLocal(e);
        } else {
            // the home has had no access since the transaction began, so the snapshot is current
            byte[] data = t.withData ? store.snapshot(e.arrayId, e.partition) : null;
            grantExclusive(e, t.requester, data, "GET_M from " + t.requester + ", sharers invalidated");
        }
    }

    private void completeForwardS(HomeEntry e, Txn t, byte[] data) {
        e.txn = null;
        int previousOwner = e.owner;
        e.owner = -1;
        e.sharers.set(previousOwner);
        if (t.requester == nodeId) {
            installHome(e, data, Access.READ);
            e.transitionTo(DirectoryState.SHARED, "local read, owner " + previousOwner + " downgraded");
            finishLocal(e);
        } else {
            // the store takes ownership of what it installs: the requester gets its own copy
            installHome(e, data.clone(), Access.READ);
            e.sharers.set(t.requester);
            e.transitionTo(DirectoryState.SHARED, "GET_S from " + t.requester + ", owner " + previousOwner + " downgraded");
            send(CoherenceOp.DATA_S, e.arrayId, e.partition, t.requester, t.requester, data);
        }
    }

    private void completeForwardM(HomeEntry e, Txn t, byte[] data) {
        e.txn = null;
        int previousOwner = e.owner;
        if (t.requester == nodeId) {
            e.owner = -1;
            installHome(e, data, Access.READ_WRITE);
            e.transitionTo(DirectoryState.HOME, "local write, owner " + previousOwner + " released");
            finishLocal(e);
        } else {
            // the home memory stays stale and inaccessible: the data goes straight to the new owner
            grantExclusive(e, t.requester, data, "GET_M from " + t.requester + ", owner " + previousOwner + " released");
        }
    }

    private void grantExclusive(HomeEntry e, int r, byte[] dataOrNull, String reason) {
        e.owner = r;
        e.transitionTo(DirectoryState.EXCLUSIVE, reason);
        send(CoherenceOp.DATA_M, e.arrayId, e.partition, r, r, dataOrNull);
    }

    /** The home's own request is done; a write wanted meanwhile becomes the next local request. */
    private void finishLocal(HomeEntry e) {
        e.localPending = Pending.NONE;
        if (e.localWantWrite) {
            e.localWantWrite = false;
            if (!e.access.allows(Access.READ_WRITE)) {
                e.localPending = Pending.WRITE;
                e.queue.addLast(new Request(nodeId, true));
            }
        }
    }

    private void setHomeAccess(HomeEntry e, Access access) {
        store.setAccess(e.arrayId, e.partition, access);
        e.access = access;
    }

    private void installHome(HomeEntry e, byte[] data, Access access) {
        store.install(e.arrayId, e.partition, data, access);
        e.access = access;
    }

    // ------------------------------------------------------------------ cache side

    private void onCacheMessage(CacheEntry c, CoherenceMessage m) {
        if (m.source() != c.home) throw unexpected(m, c, "only the home " + c.home + " sends this");
        switch (m.op()) {
            case DATA_S -> {
                if (c.state != CacheState.INVALID || c.pending != Pending.READ || m.data() == null) {
                    throw unexpected(m, c, "expected INVALID with a read under way and data");
                }
                store.install(c.arrayId, c.partition, m.data(), Access.READ);
                c.pending = Pending.NONE;
                c.transitionTo(CacheState.SHARED, "DATA_S");
                if (c.wantWrite) {
                    c.wantWrite = false;
                    c.pending = Pending.WRITE;
                    send(CoherenceOp.GET_M, c.arrayId, c.partition, c.home, nodeId, null);
                }
            }
            case DATA_M -> {
                if (c.pending != Pending.WRITE) throw unexpected(m, c, "expected a write under way");
                if (m.data() == null) {
                    // upgrade: the shared copy is current, because the home still counted us as a sharer
                    if (c.state != CacheState.SHARED) throw unexpected(m, c, "DATA_M without data needs a SHARED copy");
                    store.setAccess(c.arrayId, c.partition, Access.READ_WRITE);
                } else {
                    if (c.state != CacheState.INVALID) throw unexpected(m, c, "DATA_M with data expected an INVALID copy");
                    store.install(c.arrayId, c.partition, m.data(), Access.READ_WRITE);
                }
                c.pending = Pending.NONE;
                c.transitionTo(CacheState.EXCLUSIVE, "DATA_M");
            }
            case INV -> {
                // a pending upgrade stays pending: the home removed us from the sharers, so it will send data
                if (c.state != CacheState.SHARED) throw unexpected(m, c, "INV needs a SHARED copy");
                store.setAccess(c.arrayId, c.partition, Access.NONE);
                c.transitionTo(CacheState.INVALID, "INV for " + m.requester());
                send(CoherenceOp.INV_ACK, c.arrayId, c.partition, c.home, m.requester(), null);
            }
            case FWD_GET_S -> {
                if (c.state != CacheState.EXCLUSIVE) throw unexpected(m, c, "FWD_GET_S needs the EXCLUSIVE copy");
                store.setAccess(c.arrayId, c.partition, Access.READ);   // before the snapshot: no write may be lost
                byte[] data = store.snapshot(c.arrayId, c.partition);
                c.transitionTo(CacheState.SHARED, "FWD_GET_S for " + m.requester());
                send(CoherenceOp.OWNER_DATA, c.arrayId, c.partition, c.home, m.requester(), data);
            }
            case FWD_GET_M -> {
                if (c.state != CacheState.EXCLUSIVE) throw unexpected(m, c, "FWD_GET_M needs the EXCLUSIVE copy");
                store.setAccess(c.arrayId, c.partition, Access.NONE);
                byte[] data = store.snapshot(c.arrayId, c.partition);
                c.transitionTo(CacheState.INVALID, "FWD_GET_M for " + m.requester());
                send(CoherenceOp.OWNER_RELEASE, c.arrayId, c.partition, c.home, m.requester(), data);
            }
            default -> throw unexpected(m, c, "not a message for a cache");
        }
    }

    // ------------------------------------------------------------------ plumbing

    private void send(CoherenceOp op, int arrayId, int partition, int destination, int requester, byte[] data) {
        outbox.send(new CoherenceMessage(op, arrayId, partition, nodeId, destination, requester, data));
    }

    private HomeEntry homeEntry(int arrayId, int partition) {
        return directory.computeIfAbsent(key(arrayId, partition), k -> new HomeEntry(arrayId, partition));
    }

    private CacheEntry cacheEntry(int arrayId, int partition) {
        return cache.computeIfAbsent(key(arrayId, partition),
                k -> new CacheEntry(arrayId, partition, homes.homeOf(arrayId, partition)));
    }

    private HomeEntry peekHome(int arrayId, int partition) {
        if (!isHome(arrayId, partition)) {
            throw new IllegalArgumentException("node " + nodeId + " is not the home of " + arrayId + ":" + partition
                    + " (home is " + homes.homeOf(arrayId, partition) + ")");
        }
        return directory.get(key(arrayId, partition));
    }

    private static long key(int arrayId, int partition) {
        return ((long) arrayId << 32) | (partition & 0xFFFF_FFFFL);
    }

    private IllegalStateException unexpected(CoherenceMessage m, Object entry, String expected) {
        return new IllegalStateException("node " + nodeId + ": unexpected " + m + " (" + expected + ") in " + entry);
    }

    private IllegalStateException unexpectedRequest(HomeEntry e, int r, boolean write) {
        return new IllegalStateException("node " + nodeId + ": unexpected " + (write ? "GET_M" : "GET_S") + " from " + r
                + " (the requester already has that access) in " + e);
    }

    private enum Pending {
        NONE(Access.NONE), READ(Access.READ), WRITE(Access.READ_WRITE);

        final Access access;

        Pending(Access access) { this.access = access; }
    }

    private record Request(int requester, boolean write) {
        @Override
        public String toString() { return (write ? "W" : "R") + requester; }
    }

    private enum TxnKind { INVALIDATE, FORWARD_S, FORWARD_M }

    /** A home transaction waiting for other nodes. */
    private static final class Txn {
        final TxnKind kind;
        final int requester;
        /** INVALIDATE: sharers whose INV_ACK is outstanding */
        final BitSet awaiting;
        /** INVALIDATE for a remote requester: whether DATA_M carries data (the requester was no sharer) */
        final boolean withData;

        private Txn(TxnKind kind, int requester, BitSet awaiting, boolean withData) {
            this.kind = kind;
            this.requester = requester;
            this.awaiting = awaiting;
            this.withData = withData;
        }

        static Txn invalidate(int requester, BitSet awaiting, boolean withData) {
            return new Txn(TxnKind.INVALIDATE, requester, awaiting, withData);
        }

        static Txn forward(TxnKind kind, int requester) {
            return new Txn(kind, requester, null, false);
        }

        Txn copy() {
            return new Txn(kind, requester, awaiting == null ? null : (BitSet) awaiting.clone(), withData);
        }

        @Override
        public String toString() {
            return kind + " for " + requester + (kind == TxnKind.INVALIDATE ? " awaiting " + awaiting : "");
        }
    }

    /** Directory entry of a partition homed here. */
    private final class HomeEntry {
        final int arrayId;
        final int partition;
        DirectoryState state = DirectoryState.HOME;
        final BitSet sharers = new BitSet();
        int owner = -1;
        /** the home workers' access, as last set in the store */
        Access access = Access.READ_WRITE;
        Txn txn;
        final ArrayDeque<Request> queue = new ArrayDeque<>();
        Pending localPending = Pending.NONE;
        boolean localWantWrite;

        HomeEntry(int arrayId, int partition) {
            this.arrayId = arrayId;
            this.partition = partition;
        }

        /** Every directory state change passes here: checks the state's invariant and logs. */
        void transitionTo(DirectoryState next, String reason) {
            boolean ok = switch (next) {
                case HOME -> sharers.isEmpty() && owner == -1 && access == Access.READ_WRITE;
                case SHARED -> !sharers.isEmpty() && !sharers.get(nodeId) && owner == -1 && access == Access.READ;
                case EXCLUSIVE -> sharers.isEmpty() && owner >= 0 && owner != nodeId && access == Access.NONE;
            };
            if (!ok) throw new IllegalStateException("node " + nodeId + ": illegal transition to " + next + " (" + reason + ") in " + this);
            if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
                LOG.log(System.Logger.Level.DEBUG, "node {0} home {1}:{2} {3} -> {4}: {5}",
                        nodeId, arrayId, partition, state, next, reason);
            }
            state = next;
        }

        @Override
        public String toString() {
            return "node " + nodeId + " home " + arrayId + ":" + partition + " {" + state + " sharers " + sharers + " owner " + owner
                    + " access " + access + " txn " + txn + " queue " + queue + " local " + localPending
                    + (localWantWrite ? "+wantWrite" : "") + "}";
        }
    }

    /** Cache entry of a partition homed elsewhere. */
    private final class CacheEntry {
        final int arrayId;
        final int partition;
        final int home;
        CacheState state = CacheState.INVALID;
        Pending pending = Pending.NONE;
        boolean wantWrite;

        CacheEntry(int arrayId, int partition, int home) {
            if (home < 0 || home >= nodeCount) {
                throw new IllegalStateException("home " + home + " of " + arrayId + ":" + partition + " out of range [0, " + nodeCount + ")");
            }
            this.arrayId = arrayId;
            this.partition = partition;
            this.home = home;
        }

        Access access() {
            return switch (state) {
                case INVALID -> Access.NONE;
                case SHARED -> Access.READ;
                case EXCLUSIVE -> Access.READ_WRITE;
            };
        }

        /** Every cache state change passes here: each message moves the copy to a different state. */
        void transitionTo(CacheState next, String reason) {
            if (next == state) throw new IllegalStateException("node " + nodeId + ": no-op transition to " + next + " (" + reason + ") in " + this);
            if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
                LOG.log(System.Logger.Level.DEBUG, "node {0} cache {1}:{2} {3} -> {4}: {5}",
                        nodeId, arrayId, partition, state, next, reason);
            }
            state = next;
        }

        @Override
        public String toString() {
            return "node " + nodeId + " cache " + arrayId + ":" + partition + " {" + state + " home " + home + " pending " + pending
                    + (wantWrite ? "+wantWrite" : "") + "}";
        }
    }
}
