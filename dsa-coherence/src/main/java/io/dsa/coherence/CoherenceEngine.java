package io.dsa.coherence;

import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

/**
 * One node's side of the home-based MSI directory protocol: the directory entries of the
 * partitions homed here and the cache entries of the others. Pure protocol logic: no threads,
 * sockets or clock. Not thread-safe: the runtime calls it from one thread at a time.
 *
 * <p>Transactions on one partition are serialised at its home (the paper's home lock): while one
 * is in progress, later requests wait in the entry's queue, so no request is ever refused. The
 * home's own workers go through the same entry and queue. See {@code docs/coherence.md} for the
 * state and transition table.
 */
public final class CoherenceEngine {
    private final int nodeId;
    private final int nodeCount;
    private final HomeResolver homes;
    private final PartitionStore store;
    private final Outbox outbox;
    private final Map<Long, Directory> directories = new HashMap<>();
    private final Map<Long, Cache> caches = new HashMap<>();

    /** Directory states at the home. */
    public enum DirectoryState {
        /** only the home has a valid copy; the home's workers may read and write */
        HOME,
        /** the home and the sharers have read-only copies */
        SHARED,
        /** one other node owns the only valid copy */
        EXCLUSIVE
    }

    /** Cache states at a node that is not the partition's home. */
    public enum CacheLine { INVALID, SHARED, EXCLUSIVE }

    private static final int NONE = 0;
    private static final int READ = 1;
    private static final int WRITE = 2;

    private static final class Directory {
        final int arrayId;
        final int partition;
        DirectoryState state = DirectoryState.HOME;
        final BitSet sharers = new BitSet();
        int owner = -1;
        /** the transaction in progress: its requester and kind, or kind NONE */
        int busyRequester = -1;
        int busyKind = NONE;
        int acksPending;
        byte[] grantData;
        final ArrayDeque<int[]> queue = new ArrayDeque<>();

        Directory(int arrayId, int partition) {
            this.arrayId = arrayId;
            this.partition = partition;
        }
    }

    private static final class Cache {
        CacheLine state = CacheLine.INVALID;
        int pending = NONE;
        boolean wantWrite;
    }

    /**
     * @param nodeId this node
     * @param nodeCount nodes in the VM
     * @param homes the home of each partition
     * @param store this node's partition data and access rights
     * @param outbox messages to other nodes
     */
    public CoherenceEngine(int nodeId, int nodeCount, HomeResolver homes, PartitionStore store, Outbox outbox) {
        if (nodeCount < 1 || nodeId < 0 || nodeId >= nodeCount) {
            throw new IllegalArgumentException("node id " + nodeId + " out of range [0, " + nodeCount + ")");
        }
        this.nodeId = nodeId;
        this.nodeCount = nodeCount;
        this.homes = homes;
        this.store = store;
        this.outbox = outbox;
    }

    private static long key(int arrayId, int partition) {
        return ((long) arrayId << 32) | (partition & 0xFFFF_FFFFL);
    }

    private boolean isHome(int arrayId, int partition) {
        return homes.homeOf(arrayId, partition) == nodeId;
    }

    private Directory directory(int arrayId, int partition) {
        return directories.computeIfAbsent(key(arrayId, partition), k -> new Directory(arrayId, partition));
    }

    private Cache cache(int arrayId, int partition) {
        return caches.computeIfAbsent(key(arrayId, partition), k -> new Cache());
    }

    /**
     * A local worker needs {@code needed} ({@link Access#READ} or {@link Access#READ_WRITE}) on a
     * partition. If this node already has it, returns {@code true} and does nothing. Otherwise
     * makes sure a request is under way (at most one per partition per node: concurrent misses
     * coalesce) and returns {@code false}; the store's {@code install}/{@code setAccess} later
     * grants the access.
     */
    public boolean request(int arrayId, int partition, Access needed) {
        if (needed == Access.NONE) return true;
        if (access(arrayId, partition).allows(needed)) return true;
        int kind = needed == Access.READ_WRITE ? WRITE : READ;
        if (isHome(arrayId, partition)) {
            Directory d = directory(arrayId, partition);
            if (d.busyRequester == nodeId && d.busyKind >= kind) return false;
            for (int[] q : d.queue) {
                if (q[0] == nodeId && q[1] >= kind) return false; // coalesce with the local request already queued
            }
            enqueue(d, nodeId, kind);
            return false;
        }
        Cache c = cache(arrayId, partition);
        if (c.pending == WRITE || c.pending == kind) return false;
        if (c.pending == READ) { // kind == WRITE: ask for ownership once the shared copy arrives
            c.wantWrite = true;
            return false;
        }
        c.pending = kind;
        send(kind == WRITE ? CoherenceOp.GET_M : CoherenceOp.GET_S, arrayId, partition,
                homes.homeOf(arrayId, partition), nodeId, null);
        return false;
    }

    /** @return this node's current access to a partition */
    public Access access(int arrayId, int partition) {
        if (isHome(arrayId, partition)) {
            Directory d = directories.get(key(arrayId, partition));
            if (d == null) return Access.READ_WRITE;
            switch (d.state) {
                case HOME: return Access.READ_WRITE;
                case SHARED: return Access.READ;
                default: return Access.NONE;
            }
        }
        Cache c = caches.get(key(arrayId, partition));
        if (c == null) return Access.NONE;
        switch (c.state) {
            case SHARED: return Access.READ;
            case EXCLUSIVE: return Access.READ_WRITE;
            default: return Access.NONE;
        }
    }

    /** @return the directory state of a partition homed here (for tests and status) */
    public DirectoryState directoryState(int arrayId, int partition) {
        Directory d = directories.get(key(arrayId, partition));
        return d == null ? DirectoryState.HOME : d.state;
    }

    /** @return the sharers (excluding the home) of a partition homed here */
    public BitSet sharers(int arrayId, int partition) {
        Directory d = directories.get(key(arrayId, partition));
        return d == null ? new BitSet() : (BitSet) d.sharers.clone();
    }

    /** @return the exclusive owner of a partition homed here, or -1 */
    public int owner(int arrayId, int partition) {
        Directory d = directories.get(key(arrayId, partition));
        return d == null || d.state != DirectoryState.EXCLUSIVE ? -1 : d.owner;
    }

    /** @return whether a partition homed here has a transaction in progress or queued */
    public boolean busy(int arrayId, int partition) {
        Directory d = directories.get(key(arrayId, partition));
        return d != null && (d.busyKind != NONE || !d.queue.isEmpty());
    }

    /** @return whether this node (not the home) waits for a reply about a partition */
    public boolean pending(int arrayId, int partition) {
        Cache c = caches.get(key(arrayId, partition));
        return c != null && c.pending != NONE;
    }

    /** Handles a message from another node. */
    public void onMessage(CoherenceMessage m) {
        if (m.destination() != nodeId) {
            throw new IllegalStateException("node " + nodeId + " received " + m + " addressed to node " + m.destination());
        }
        switch (m.op()) {
            case GET_S: onRequest(m, READ); break;
            case GET_M: onRequest(m, WRITE); break;
            case INV_ACK: onInvAck(m); break;
            case OWNER_DATA: onOwnerData(m); break;
            case OWNER_RELEASE: onOwnerRelease(m); break;
            case DATA_S: onDataS(m); break;
            case DATA_M: onDataM(m); break;
            case INV: onInv(m); break;
            case FWD_GET_S: onFwdGetS(m); break;
            case FWD_GET_M: onFwdGetM(m); break;
            default: throw new IllegalStateException("unknown op in " + m);
        }
    }

    // ---- home side ---------------------------------------------------------------------------------

    private Directory homeEntry(CoherenceMessage m) {
        if (!isHome(m.arrayId(), m.partition())) {
            throw new IllegalStateException("node " + nodeId + " is not the home of " + m.arrayId() + ":" + m.partition()
                    + " but received " + m);
        }
        return directory(m.arrayId(), m.partition());
    }

    private void onRequest(CoherenceMessage m, int kind) {
        if (m.source() == nodeId) throw new IllegalStateException("request from self: " + m);
        enqueue(homeEntry(m), m.source(), kind);
    }

    private void enqueue(Directory d, int requester, int kind) {
        d.queue.add(new int[] {requester, kind});
        if (d.busyKind == NONE) drain(d);
    }

    /** Starts queued transactions until one has to wait for another node. */
    private void drain(Directory d) {
        while (d.busyKind == NONE && !d.queue.isEmpty()) {
            int[] q = d.queue.poll();
            if (q[0] == nodeId) {
                startLocal(d, q[1]);
            } else if (q[1] == READ) {
                startGetS(d, q[0]);
            } else {
                startGetM(d, q[0]);
            }
        }
    }

    private void startGetS(Directory d, int r) {
        switch (d.state) {
            case HOME:
                store.setAccess(d.arrayId, d.partition, Access.READ);
                d.state = DirectoryState.SHARED;
                // fall through: now shared by the home
            case SHARED:
                d.sharers.set(r);
                send(CoherenceOp.DATA_S, d, r, r, store.snapshot(d.arrayId, d.partition));
                break;
            case EXCLUSIVE:
                if (d.owner == r) {
                    throw new IllegalStateException("owner " + r + " asked for a shared copy of " + d.arrayId + ":" + d.partition);
                }
                begin(d, r, READ);
                send(CoherenceOp.FWD_GET_S, d, d.owner, r, null);
                break;
            default:
                throw new AssertionError(d.state);
        }
    }

    private void startGetM(Directory d, int r) {
        switch (d.state) {
            case HOME:
                store.setAccess(d.arrayId, d.partition, Access.NONE);
                grantExclusive(d, r, store.snapshot(d.arrayId, d.partition));
                break;
            case SHARED: {
                store.setAccess(d.arrayId, d.partition, Access.NONE);
                byte[] data = d.sharers.get(r) ? null : store.snapshot(d.arrayId, d.partition);
                invalidateThen(d, r, WRITE, data);
                break;
            }
            case EXCLUSIVE:
                if (d.owner == r) {
                    throw new IllegalStateException("owner " + r + " asked again for " + d.arrayId + ":" + d.partition);
                }
                begin(d, r, WRITE);
                send(CoherenceOp.FWD_GET_M, d, d.owner, r, null);
                break;
            default:
                throw new AssertionError(d.state);
        }
    }

    private void startLocal(Directory d, int kind) {
        switch (d.state) {
            case HOME:
                return; // already satisfied
            case SHARED:
                if (kind == READ) return;
                invalidateThen(d, nodeId, WRITE, null);
                return;
            case EXCLUSIVE:
                begin(d, nodeId, kind);
                send(kind == READ ? CoherenceOp.FWD_GET_S : CoherenceOp.FWD_GET_M, d, d.owner, nodeId, null);
                return;
            default:
                throw new AssertionError(d.state);
        }
    }

    /** Invalidates every sharer except {@code r}, then grants {@code r} ownership. */
    private void invalidateThen(Directory d, int r, int kind, byte[] data) {
        int acks = 0;
        for (int s = d.sharers.nextSetBit(0); s >= 0; s = d.sharers.nextSetBit(s + 1)) {
            if (s == r) continue;
            send(CoherenceOp.INV, d, s, r, null);
            acks++;
        }
        if (acks == 0) {
            d.sharers.clear();
            grantAfterInvalidation(d, r, data);
            return;
        }
        begin(d, r, kind);
        d.acksPending = acks;
        d.grantData = data;
    }

    private void grantAfterInvalidation(Directory d, int r, byte[] data) {
        if (r == nodeId) {
            d.state = DirectoryState.HOME;
            d.owner = -1;
            store.setAccess(d.arrayId, d.partition, Access.READ_WRITE);
        } else {
            grantExclusive(d, r, data);
        }
    }

    private void grantExclusive(Directory d, int r, byte[] dataOrNull) {
        d.state = DirectoryState.EXCLUSIVE;
        d.owner = r;
        d.sharers.clear();
        send(CoherenceOp.DATA_M, d, r, r, dataOrNull);
    }

    private void begin(Directory d, int requester, int kind) {
        d.busyRequester = requester;
        d.busyKind = kind;
    }

    private void end(Directory d) {
        d.busyRequester = -1;
        d.busyKind = NONE;
        d.acksPending = 0;
        d.grantData = null;
        drain(d);
    }

    private void expectBusy(Directory d, CoherenceMessage m, int kind) {
        if (d.busyKind != kind || (m.op() != CoherenceOp.INV_ACK && m.source() != d.owner)) {
            throw new IllegalStateException("unexpected " + m + " at home " + nodeId + " (state " + d.state + ", busy "
                    + d.busyKind + " for " + d.busyRequester + ", owner " + d.owner + ")");
        }
    }

    private void onInvAck(CoherenceMessage m) {
        Directory d = homeEntry(m);
        expectBusy(d, m, WRITE);
        if (d.acksPending <= 0) throw new IllegalStateException("extra " + m + " at home " + nodeId);
        if (--d.acksPending > 0) return;
        int r = d.busyRequester;
        byte[] data = d.grantData;
        d.sharers.clear();
        grantAfterInvalidation(d, r, data);
        end(d);
    }

    private void onOwnerData(CoherenceMessage m) {
        Directory d = homeEntry(m);
        expectBusy(d, m, READ);
        int r = d.busyRequester;
        int oldOwner = d.owner;
        byte[] data = m.data();
        if (r == nodeId) {
            store.install(d.arrayId, d.partition, data, Access.READ);
        } else {
            store.install(d.arrayId, d.partition, data.clone(), Access.READ);
            send(CoherenceOp.DATA_S, d, r, r, data);
        }
        d.state = DirectoryState.SHARED;
        d.owner = -1;
        d.sharers.clear();
        d.sharers.set(oldOwner);
        if (r != nodeId) d.sharers.set(r);
        end(d);
    }

    private void onOwnerRelease(CoherenceMessage m) {
        Directory d = homeEntry(m);
        expectBusy(d, m, WRITE);
        int r = d.busyRequester;
        if (r == nodeId) {
            store.install(d.arrayId, d.partition, m.data(), Access.READ_WRITE);
            d.state = DirectoryState.HOME;
            d.owner = -1;
            d.sharers.clear();
        } else {
            grantExclusive(d, r, m.data());
        }
        end(d);
    }

    // ---- cache side ----------------------------------------------------------------------------------

    private Cache cacheEntry(CoherenceMessage m) {
        if (isHome(m.arrayId(), m.partition())) {
            throw new IllegalStateException("home " + nodeId + " received cache message " + m);
        }
        return cache(m.arrayId(), m.partition());
    }

    private void onDataS(CoherenceMessage m) {
        Cache c = cacheEntry(m);
        if (c.pending != READ || m.data() == null) throw unexpected(m, c);
        store.install(m.arrayId(), m.partition(), m.data(), Access.READ);
        c.state = CacheLine.SHARED;
        c.pending = NONE;
        if (c.wantWrite) {
            c.wantWrite = false;
            c.pending = WRITE;
            send(CoherenceOp.GET_M, m.arrayId(), m.partition(), m.source(), nodeId, null);
        }
    }

    private void onDataM(CoherenceMessage m) {
        Cache c = cacheEntry(m);
        if (c.pending != WRITE) throw unexpected(m, c);
        if (m.data() != null) {
            store.install(m.arrayId(), m.partition(), m.data(), Access.READ_WRITE);
        } else if (c.state == CacheLine.SHARED) {
            store.setAccess(m.arrayId(), m.partition(), Access.READ_WRITE); // upgrade: our copy is current
        } else {
            throw unexpected(m, c);
        }
        c.state = CacheLine.EXCLUSIVE;
        c.pending = NONE;
        c.wantWrite = false;
    }

    private void onInv(CoherenceMessage m) {
        Cache c = cacheEntry(m);
        if (c.state != CacheLine.SHARED) throw unexpected(m, c);
        store.setAccess(m.arrayId(), m.partition(), Access.NONE);
        c.state = CacheLine.INVALID;
        send(CoherenceOp.INV_ACK, m.arrayId(), m.partition(), m.source(), m.requester(), null);
    }

    private void onFwdGetS(CoherenceMessage m) {
        Cache c = cacheEntry(m);
        if (c.state != CacheLine.EXCLUSIVE) throw unexpected(m, c);
        store.setAccess(m.arrayId(), m.partition(), Access.READ);
        c.state = CacheLine.SHARED;
        send(CoherenceOp.OWNER_DATA, m.arrayId(), m.partition(), m.source(), m.requester(),
                store.snapshot(m.arrayId(), m.partition()));
    }

    private void onFwdGetM(CoherenceMessage m) {
        Cache c = cacheEntry(m);
        if (c.state != CacheLine.EXCLUSIVE) throw unexpected(m, c);
        store.setAccess(m.arrayId(), m.partition(), Access.NONE);
        c.state = CacheLine.INVALID;
        send(CoherenceOp.OWNER_RELEASE, m.arrayId(), m.partition(), m.source(), m.requester(),
                store.snapshot(m.arrayId(), m.partition()));
    }

    private IllegalStateException unexpected(CoherenceMessage m, Cache c) {
        return new IllegalStateException("unexpected " + m + " at node " + nodeId + " (cache " + c.state + ", pending "
                + c.pending + ", wantWrite " + c.wantWrite + ")");
    }

    // ---- sending ---------------------------------------------------------------------------------------

    private void send(CoherenceOp op, Directory d, int to, int requester, byte[] data) {
        send(op, d.arrayId, d.partition, to, requester, data);
    }

    private void send(CoherenceOp op, int arrayId, int partition, int to, int requester, byte[] data) {
        if (to == nodeId) throw new IllegalStateException("engine " + nodeId + " tried to send " + op + " to itself");
        if (to < 0 || to >= nodeCount) throw new IllegalStateException(op + " to node " + to + " of " + nodeCount);
        outbox.send(new CoherenceMessage(op, arrayId, partition, nodeId, to, requester, data));
    }
}
