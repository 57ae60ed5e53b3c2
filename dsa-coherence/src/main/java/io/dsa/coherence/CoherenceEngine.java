package io.dsa.coherence;

import io.dsa.CacheState;

import java.io.DataOutput;
import java.io.IOException;
import java.util.EnumSet;
import java.util.Objects;

/**
 * One node's side of the home-based MSI directory protocol: the directory entries of the
 * partitions homed here ({@link HomeSide}) and the cache entries of the others ({@link CacheSide});
 * this class checks what comes in and gives each message and request to its side. Pure protocol
 * logic: no threads, sockets or clock. Not thread-safe: the runtime calls it from one thread at a time.
 *
 * <p>See {@code docs/coherence.md} for the state and transition table.
 */
public final class CoherenceEngine {
    private final int nodeId;
    private int nodeCount;
    private final HomeResolver homes;
    /** protocol bugs switched on by the model checker's tests; always empty in the runtime */
    private final EnumSet<Fault> faults = EnumSet.noneOf(Fault.class);
    /** the directory entries of the partitions homed here and their transitions */
    private HomeSide home;
    /** the cache entries of the partitions homed elsewhere and their transitions */
    private CacheSide caches;

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
        this.home = new HomeSide(nodeId, Objects.requireNonNull(store, "store"), Objects.requireNonNull(outbox, "outbox"), faults);
        this.caches = new CacheSide(nodeId, () -> this.nodeCount, homes, store, outbox, faults);
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
        return isHome(arrayId, partition) ? home.request(arrayId, partition, needed) : caches.request(arrayId, partition, needed);
    }

    /**
     * A local worker will write every byte of a partition before it lets go of it (a region write
     * that covers the partition): as {@code request(arrayId, partition, READ_WRITE)}, except that
     * where this node holds no valid copy of a partition homed elsewhere and has no request under
     * way, the request (GET_M_OVERWRITE) asks for ownership without the partition's data. The home
     * invalidates the other copies as for a write but sends no data, and the store's
     * {@link PartitionStore#overwrite} then installs the worker's bytes with the access. Otherwise
     * (a partition homed here, a shared copy here, a request already under way) it is an ordinary
     * write request, and the worker writes its bytes once it has the access. Once asked without data,
     * the request is always answered through {@link PartitionStore#overwrite} (also when a copy
     * pushed meanwhile makes the grant an upgrade).
     *
     * @return {@code true} if this node already has write access (nothing is sent)
     */
    public boolean requestOverwrite(int arrayId, int partition) {
        return isHome(arrayId, partition) ? home.request(arrayId, partition, Access.READ_WRITE) : caches.requestOverwrite(arrayId, partition);
    }

    /**
     * @return whether {@link #requestOverwrite} would now ask without data (GET_M_OVERWRITE): the
     *         partition is homed elsewhere, this node holds no valid copy and has no request under way
     */
    public boolean overwriteAsksWithoutData(int arrayId, int partition) {
        return !isHome(arrayId, partition) && caches.asksWithoutData(arrayId, partition);
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
        boolean homed = isHome(message.arrayId(), message.partition());
        switch (message.op()) {
            case GET_S, GET_M, GET_M_OVERWRITE, INV_ACK, OWNER_DATA, OWNER_RELEASE, PUSH_ACK, PUT_S -> {
                if (!homed) throw new IllegalStateException("node " + nodeId + " received " + message + " but is not the home of "
                        + message.arrayId() + ":" + message.partition() + " (home is "
                        + homes.homeOf(message.arrayId(), message.partition()) + ")");
                home.onMessage(message);
            }
            case DATA_S, DATA_M, INV, FWD_GET_S, FWD_GET_M, FWD_GET_M_OVERWRITE, PUSH_S, PUT_ACK -> {
                if (homed) throw new IllegalStateException("node " + nodeId + " received " + message
                        + " but is the home of " + message.arrayId() + ":" + message.partition());
                caches.onMessage(message);
            }
        }
    }

    /**
     * Drops this node's shared copy of a partition homed elsewhere, unasked (self-invalidation): the
     * workers' access goes to NONE at once and the home hears of it (PUT_S), so its next write
     * needs no invalidation of this node; it answers PUT_ACK, until which this node is not
     * {@link #quiescent}. An INV the home sent before it saw the PUT_S is acknowledged as usual. A
     * later miss asks the home again, as after an invalidation. Only a copy that is SHARED with no
     * request of this node under way is dropped ({@link #canDrop}); anything else is left as it is.
     *
     * @return whether the copy was dropped
     */
    public boolean drop(int arrayId, int partition) {
        return !isHome(arrayId, partition) && caches.drop(arrayId, partition);
    }

    /**
     * @return whether {@link #drop} would drop: the partition is homed elsewhere, this node's copy
     *         is SHARED, and no request of this node (nor an earlier drop) is under way on it
     */
    public boolean canDrop(int arrayId, int partition) {
        return !isHome(arrayId, partition) && caches.canDrop(arrayId, partition);
    }

    /**
     * Pushes this node's copy of a partition homed here to each of {@code nodes} that holds no copy,
     * unasked (PUSH_S): each becomes a sharer, as if its GET_S had been served, and acknowledges
     * (PUSH_ACK); until every ack is in the partition takes no other request here. The home's own
     * access is lowered to READ first if it was READ_WRITE. A GET_S of a pushed node that crosses
     * the push is answered by it; a GET_M becomes an upgrade. Pushes only what a GET_S would get at
     * once: nothing under way or queued on the partition (no transaction, no request of the home's
     * workers) and no exclusive owner elsewhere; nodes already sharers are left out.
     *
     * @return how many nodes the copy was pushed to (0 if none: see {@link #canPush})
     * @throws IllegalArgumentException if this node is not the home, or a node is this node or out of range
     */
    public int push(int arrayId, int partition, int... nodes) {
        checkPushHome(arrayId, partition);
        java.util.BitSet targets = new java.util.BitSet();
        for (int node : nodes) {
            checkPushTarget(arrayId, partition, node);
            targets.set(node);
        }
        return home.push(arrayId, partition, targets);
    }

    /**
     * @return whether {@link #push} would send: the partition homed here is idle (no transaction,
     *         nothing queued, no request of the home's workers), in state HOME or SHARED, and
     *         {@code node} is not among its sharers
     * @throws IllegalArgumentException as {@link #push}
     */
    public boolean canPush(int arrayId, int partition, int node) {
        checkPushTarget(arrayId, partition, node);
        return home.canPush(arrayId, partition, node);
    }

    private void checkPushHome(int arrayId, int partition) {
        if (!isHome(arrayId, partition)) {
            throw new IllegalArgumentException("node " + nodeId + " cannot push " + arrayId + ":" + partition + ": its home is node "
                    + homes.homeOf(arrayId, partition));
        }
    }

    private void checkPushTarget(int arrayId, int partition, int node) {
        checkPushHome(arrayId, partition);
        if (node < 0 || node >= nodeCount || node == nodeId) {
            throw new IllegalArgumentException("push target " + node + " out of range [0, " + nodeCount + ") or the home " + nodeId);
        }
    }

    /** @return this node's current access to a partition */
    public Access access(int arrayId, int partition) {
        if (isHome(arrayId, partition)) {
            HomeEntry e = home.peek(arrayId, partition);
            return e == null ? Access.READ_WRITE : e.access;
        }
        CacheEntry c = caches.peek(arrayId, partition);
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
            HomeEntry e = home.peek(arrayId, partition);
            p = e == null ? Pending.NONE : e.localPending;
        } else {
            CacheEntry c = caches.peek(arrayId, partition);
            p = c == null ? Pending.NONE : c.pending;
        }
        return p.access;
    }

    /** @return whether a write is wanted after this node's read request under way on the partition */
    public boolean wantsWrite(int arrayId, int partition) {
        if (isHome(arrayId, partition)) {
            HomeEntry e = home.peek(arrayId, partition);
            return e != null && e.localWantWrite;
        }
        CacheEntry c = caches.peek(arrayId, partition);
        return c != null && c.wantWrite;
    }

    /** @return whether no transaction is in progress, none queued and no request of this node under way */
    public boolean quiescent() {
        return home.quiescent() && caches.quiescent();
    }

    /** @return a one-line description of this node's entry for a partition, for diagnostics */
    public String describe(int arrayId, int partition) {
        Object e = isHome(arrayId, partition) ? home.peek(arrayId, partition) : caches.peek(arrayId, partition);
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
        c.home = home.copy(store, outbox, c.faults);
        c.caches = caches.copy(() -> c.nodeCount, store, outbox, c.faults);
        return c;
    }

    /**
     * Writes the complete protocol state of this node's entry for a partition; an entry never
     * created writes the same bytes as a fresh one, so equal states encode equally.
     */
    void encodeEntry(int arrayId, int partition, DataOutput out) throws IOException {
        if (isHome(arrayId, partition)) {
            HomeEntry e = home.peek(arrayId, partition);
            if (e == null) e = new HomeEntry(nodeId, arrayId, partition);
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
            for (HomeEntry.Request r : e.queue) out.writeByte(r.requester() * 4 + (r.write() ? 1 : 0) + (r.overwrite() ? 2 : 0));
            out.writeByte(e.localPending.ordinal());
            out.writeBoolean(e.localWantWrite);
        } else {
            CacheEntry c = caches.peek(arrayId, partition);
            out.writeByte(c == null ? CacheState.INVALID.ordinal() : c.state.ordinal());
            out.writeByte(c == null ? Pending.NONE.ordinal() : c.pending.ordinal());
            out.writeBoolean(c != null && c.wantWrite);
            out.writeBoolean(c != null && c.overwrite);
            out.writeBoolean(c != null && c.dropping);
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
        for (HomeEntry e : home.directory.values()) visitor.visit(e.arrayId, e.partition, e.state, e.sharers.stream().toArray(), e.owner);
    }

    /** Visits every cache entry this node has created. */
    public void forEachCacheEntry(CacheEntryVisitor visitor) {
        for (CacheEntry c : caches.cache.values()) visitor.visit(c.arrayId, c.partition, c.state);
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
        for (int s : sharers) {
            if (s < 0 || s >= nodeCount || s == nodeId) {
                throw new IllegalArgumentException("sharer " + s + " of " + arrayId + ":" + partition + " out of range [0, " + nodeCount
                        + ") or the home " + nodeId);
            }
        }
        if (owner < -1 || owner >= nodeCount) {
            throw new IllegalArgumentException("owner " + owner + " of " + arrayId + ":" + partition + " out of range [-1, " + nodeCount + ")");
        }
        home.restore(arrayId, partition, state, sharers, owner);
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
        caches.restore(arrayId, partition, state);
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
        return home.addSharer(arrayId, partition, node);
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
        home.forgetNode(node);
    }

    /**
     * Grows the VM to {@code count} nodes (a clone joined with id {@code count - 1}); messages from
     * the new ids are then accepted.
     */
    public void admitNodes(int count) {
        if (count < nodeCount) throw new IllegalArgumentException("node count " + count + " below the current " + nodeCount);
        nodeCount = count;
    }

    // ------------------------------------------------------------------ plumbing

    private HomeEntry peekHome(int arrayId, int partition) {
        if (!isHome(arrayId, partition)) {
            throw new IllegalArgumentException("node " + nodeId + " is not the home of " + arrayId + ":" + partition
                    + " (home is " + homes.homeOf(arrayId, partition) + ")");
        }
        return home.peek(arrayId, partition);
    }

    /** @return the map key of a partition */
    static long key(int arrayId, int partition) {
        return ((long) arrayId << 32) | (partition & 0xFFFF_FFFFL);
    }

    /** @return the error for a message node {@code nodeId} did not expect in {@code entry}'s state */
    static IllegalStateException unexpected(int nodeId, CoherenceMessage m, Object entry, String expected) {
        return new IllegalStateException("node " + nodeId + ": unexpected " + m + " (" + expected + ") in " + entry);
    }
}
