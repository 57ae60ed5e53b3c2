package io.dsa.coherence;

import io.dsa.coherence.HomeEntry.Request;
import io.dsa.coherence.HomeEntry.Txn;
import io.dsa.coherence.HomeEntry.TxnKind;
import java.util.BitSet;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The home side of one node's {@link CoherenceEngine}: the directory entries of the partitions
 * homed here and every transition of the home (docs/coherence.md): requests queued per partition
 * and started one at a time, invalidations of the sharers, forwards to the exclusive owner, and
 * the home workers' own requests among them. Not thread-safe, as the engine.
 */
final class HomeSide {
    private final int nodeId;
    private final PartitionStore store;
    private final Outbox outbox;
    /** protocol bugs switched on by the model checker's tests (the engine's set); always empty in the runtime */
    private final EnumSet<Fault> faults;
    /** directory entries of the partitions homed here, created on first use */
    final Map<Long, HomeEntry> directory = new HashMap<>();

    HomeSide(int nodeId, PartitionStore store, Outbox outbox, EnumSet<Fault> faults) {
        this.nodeId = nodeId;
        this.store = store;
        this.outbox = outbox;
        this.faults = faults;
    }

    /** @return the entry of a partition homed here, made on first use */
    HomeEntry entry(int arrayId, int partition) {
        return directory.computeIfAbsent(CoherenceEngine.key(arrayId, partition), k -> new HomeEntry(nodeId, arrayId, partition));
    }

    /** @return the entry of a partition homed here, or null if it was never used */
    HomeEntry peek(int arrayId, int partition) {
        return directory.get(CoherenceEngine.key(arrayId, partition));
    }

    /** The home's own workers need {@code needed}: see {@link CoherenceEngine#request}. */
    boolean request(int arrayId, int partition, Access needed) {
        HomeEntry e = entry(arrayId, partition);
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

    /** A message for the home of its partition (checked by the engine). */
    void onMessage(CoherenceMessage m) {
        HomeEntry e = entry(m.arrayId(), m.partition());
        switch (m.op()) {
            case GET_S, GET_M, GET_M_OVERWRITE -> {
                if (m.requester() != m.source()) throw CoherenceEngine.unexpected(nodeId, m, e, "requester must be the source");
                Txn t = e.txn;
                if (m.op() == CoherenceOp.GET_S && t != null && t.kind == TxnKind.PUSH && t.awaiting.get(m.source())) {
                    // sent before the node received the push (it acknowledges a push at once, and its messages keep
                    // their order): the pushed copy answers it
                    break;
                }
                e.queue.addLast(new Request(m.source(), m.op() != CoherenceOp.GET_S, m.op() == CoherenceOp.GET_M_OVERWRITE));
            }
            case PUSH_ACK -> {
                Txn t = e.txn;
                if (t == null || t.kind != TxnKind.PUSH || !t.awaiting.get(m.source())) {
                    throw CoherenceEngine.unexpected(nodeId, m, e, "no push awaiting this ack");
                }
                t.awaiting.clear(m.source());
                if (t.awaiting.isEmpty()) e.txn = null;
            }
            case PUT_S -> {
                int n = m.source();
                Txn t = e.txn;
                if (m.requester() != n) throw CoherenceEngine.unexpected(nodeId, m, e, "requester must be the source");
                if (t != null && t.kind == TxnKind.INVALIDATE && t.awaiting.get(n)) {
                    // crossed our INV: the node acks that too (it finds its copy gone), and the ack completes the invalidation
                } else if (e.sharers.get(n) && (t == null || t.kind == TxnKind.PUSH)) {
                    if (faults.contains(Fault.DROP_FORGETS_OTHER_SHARERS)) e.sharers.clear();
                    e.sharers.clear(n);
                    // (a push under way keeps the nodes it awaits among the sharers, so the state stays SHARED then)
                    if (e.sharers.isEmpty() && e.state == DirectoryState.SHARED) {
                        setHomeAccess(e, Access.READ_WRITE);
                        e.transitionTo(DirectoryState.HOME, "sharer " + n + " dropped its copy");
                    }
                } else {
                    throw CoherenceEngine.unexpected(nodeId, m, e, "PUT_S from a node that is no sharer");
                }
                send(CoherenceOp.PUT_ACK, e.arrayId, e.partition, n, n, null);
            }
            case INV_ACK -> {
                Txn t = e.txn;
                if (t == null || t.kind != TxnKind.INVALIDATE || !t.awaiting.get(m.source()) || m.requester() != t.requester) {
                    throw CoherenceEngine.unexpected(nodeId, m, e, "no invalidation awaiting this ack");
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
                    throw CoherenceEngine.unexpected(nodeId, m, e, "no " + (kind == TxnKind.FORWARD_S ? "FWD_GET_S" : "FWD_GET_M")
                            + " awaiting this reply");
                }
                boolean dataExpected = kind == TxnKind.FORWARD_S || t.withData || t.requester == nodeId;
                if ((m.data() != null) != dataExpected) {
                    throw CoherenceEngine.unexpected(nodeId, m, e, dataExpected ? "the owner's data is missing"
                            : "no data from the owner of a partition being overwritten");
                }
                if (kind == TxnKind.FORWARD_S) completeForwardS(e, t, m.data());
                else completeForwardM(e, t, m.data());
            }
            default -> throw CoherenceEngine.unexpected(nodeId, m, e, "not a message for a home");
        }
        drain(e);
    }

    /** @return whether no transaction is in progress, none queued and no request of the home's workers under way */
    boolean quiescent() {
        for (HomeEntry e : directory.values()) if (!e.quiescent()) return false;
        return true;
    }

    /** Installs a moved directory entry (the engine checked the arguments): see {@link CoherenceEngine#restoreHome}. */
    void restore(int arrayId, int partition, DirectoryState state, int[] sharers, int owner) {
        HomeEntry e = new HomeEntry(nodeId, arrayId, partition);
        for (int s : sharers) e.sharers.set(s);
        e.owner = owner;
        e.access = switch (state) {
            case HOME -> Access.READ_WRITE;
            case SHARED -> Access.READ;
            case EXCLUSIVE -> Access.NONE;
        };
        e.transitionTo(state, "restored after migration");
        directory.put(CoherenceEngine.key(arrayId, partition), e);
    }

    /** See {@link CoherenceEngine#addSharer}. */
    boolean addSharer(int arrayId, int partition, int node) {
        HomeEntry e = entry(arrayId, partition);
        if (e.txn != null || !e.queue.isEmpty() || e.state == DirectoryState.EXCLUSIVE) return false;
        e.sharers.set(node);
        if (e.state == DirectoryState.HOME) {
            e.access = Access.READ;
            store.setAccess(arrayId, partition, Access.READ);
            e.transitionTo(DirectoryState.SHARED, "clone " + node + " registered as a sharer");
        }
        return true;
    }

    /** See {@link CoherenceEngine#canPush}. */
    boolean canPush(int arrayId, int partition, int node) {
        HomeEntry e = peek(arrayId, partition);
        return e != null && e.quiescent() && e.state != DirectoryState.EXCLUSIVE && !e.sharers.get(node);
    }

    /** See {@link CoherenceEngine#push}. */
    int push(int arrayId, int partition, BitSet nodes) {
        HomeEntry e = peek(arrayId, partition);
        if (e == null || !e.quiescent() || e.state == DirectoryState.EXCLUSIVE) return 0;
        BitSet targets = (BitSet) nodes.clone();
        targets.andNot(e.sharers);
        if (targets.isEmpty()) return 0;
        if (e.state == DirectoryState.HOME) setHomeAccess(e, Access.READ);   // before the snapshot, as for a GET_S
        byte[] data = store.snapshot(e.arrayId, e.partition);
        e.sharers.or(targets);
        e.transitionTo(DirectoryState.SHARED, "push to " + targets);
        e.txn = Txn.push(targets);
        for (int x = targets.nextSetBit(0); x >= 0; x = targets.nextSetBit(x + 1)) {
            // each message owns its data (the store owns what it installs): the last one takes the snapshot
            int next = targets.nextSetBit(x + 1);
            send(CoherenceOp.PUSH_S, e.arrayId, e.partition, x, x, next < 0 ? data : data.clone());
        }
        return targets.cardinality();
    }

    /** See {@link CoherenceEngine#forgetNode}. */
    void forgetNode(int node) {
        for (HomeEntry e : List.copyOf(directory.values())) {
            e.queue.removeIf(r -> r.requester() == node);
            Txn t = e.txn;
            if (t != null && t.kind == TxnKind.PUSH && t.awaiting.get(node)) {
                t.awaiting.clear(node);   // its copy is gone with it: dropped from the sharers below
                if (t.awaiting.isEmpty()) {
                    e.txn = null;
                    t = null;
                }
            }
            if (t != null && t.kind == TxnKind.INVALIDATE && t.awaiting.get(node)) {
                t.awaiting.clear(node);
                if (t.awaiting.isEmpty()) completeInvalidation(e, t);
            } else if ((t == null || t.kind == TxnKind.PUSH) && e.sharers.get(node)) {
                // (a push under way keeps the nodes it awaits among the sharers, so the state stays SHARED then)
                e.sharers.clear(node);
                if (e.sharers.isEmpty() && e.state == DirectoryState.SHARED) {
                    setHomeAccess(e, Access.READ_WRITE);
                    e.transitionTo(DirectoryState.HOME, "sharer " + node + " left");
                }
            }
            drain(e);
        }
    }

    /** @return a deep copy working on {@code store} and {@code outbox} with {@code faults} (model checking) */
    HomeSide copy(PartitionStore store, Outbox outbox, EnumSet<Fault> faults) {
        HomeSide c = new HomeSide(nodeId, store, outbox, faults);
        for (Map.Entry<Long, HomeEntry> d : directory.entrySet()) c.directory.put(d.getKey(), d.getValue().copy());
        return c;
    }

    /** Starts queued transactions until one has to wait for other nodes. */
    private void drain(HomeEntry e) {
        while (e.txn == null && !e.queue.isEmpty()) {
            Request r = e.queue.removeFirst();
            if (r.requester() == nodeId) startLocal(e, r.write());
            else if (r.write()) startGetM(e, r.requester(), r.overwrite());
            else startGetS(e, r.requester());
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
                if (e.sharers.get(r)) throw unexpectedRequest(e, r, "GET_S");
                byte[] data = store.snapshot(e.arrayId, e.partition);
                e.sharers.set(r);
                e.transitionTo(DirectoryState.SHARED, "GET_S from " + r);
                send(CoherenceOp.DATA_S, e.arrayId, e.partition, r, r, data);
            }
            case EXCLUSIVE -> {
                if (e.owner == r) throw unexpectedRequest(e, r, "GET_S");
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

    /** A node's write request ({@code overwrite}: it will write every byte, so it needs no data). */
    private void startGetM(HomeEntry e, int r, boolean overwrite) {
        String request = (overwrite ? "GET_M_OVERWRITE from " : "GET_M from ") + r;
        switch (e.state) {
            case HOME -> {
                setHomeAccess(e, Access.NONE);
                byte[] data = overwrite ? null : store.snapshot(e.arrayId, e.partition);
                grantExclusive(e, r, data, request);
            }
            case SHARED -> {
                setHomeAccess(e, Access.NONE);
                // an upgrading sharer keeps its copy, which equals the home memory: no data needed
                boolean upgrade = e.sharers.get(r);
                boolean withData = !upgrade && !overwrite;
                BitSet others = (BitSet) e.sharers.clone();
                others.clear(r);
                if (others.isEmpty() || overwrite && faults.contains(Fault.OVERWRITE_SKIPS_INVALIDATION)) {
                    byte[] data = withData ? store.snapshot(e.arrayId, e.partition) : null;
                    e.sharers.clear();
                    grantExclusive(e, r, data, request + (upgrade ? " (upgrade)" : ""));
                } else {
                    e.txn = Txn.invalidate(r, others, withData);
                    for (int s = others.nextSetBit(0); s >= 0; s = others.nextSetBit(s + 1)) {
                        send(CoherenceOp.INV, e.arrayId, e.partition, s, r, null);
                    }
                }
            }
            case EXCLUSIVE -> {
                if (e.owner == r) throw unexpectedRequest(e, r, overwrite ? "GET_M_OVERWRITE" : "GET_M");
                if (faults.contains(Fault.FORWARD_NOT_BLOCKING)) {
                    // the bug: the new owner is recorded at once and the partition is not blocked
                    // until the old owner's data has passed through the home
                    send(CoherenceOp.FWD_GET_M, e.arrayId, e.partition, e.owner, r, null);
                    e.owner = r;
                    return;
                }
                // for an overwrite the owner sends no data: the home memory stays stale (and inaccessible) as ever
                e.txn = Txn.forward(TxnKind.FORWARD_M, r, !overwrite);
                send(overwrite ? CoherenceOp.FWD_GET_M_OVERWRITE : CoherenceOp.FWD_GET_M, e.arrayId, e.partition, e.owner, r, null);
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
            if (t.withData) {
                // the home memory stays stale and inaccessible: the data goes straight to the new owner
                grantExclusive(e, t.requester, data, "GET_M from " + t.requester + ", owner " + previousOwner + " released");
            } else {
                // the new owner overwrites every byte: the old one released without data, and none goes on
                grantExclusive(e, t.requester, null, "GET_M_OVERWRITE from " + t.requester + ", owner " + previousOwner + " released");
            }
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

    private void send(CoherenceOp op, int arrayId, int partition, int destination, int requester, byte[] data) {
        outbox.send(new CoherenceMessage(op, arrayId, partition, nodeId, destination, requester, data));
    }

    private IllegalStateException unexpectedRequest(HomeEntry e, int r, String op) {
        return new IllegalStateException("node " + nodeId + ": unexpected " + op + " from " + r
                + " (the requester already has that access) in " + e);
    }
}
