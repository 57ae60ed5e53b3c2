package io.dsa.coherence;

import java.util.ArrayDeque;
import java.util.BitSet;

/**
 * The directory entry of one partition at its home ({@link HomeSide}): the directory state, the
 * sharers and exclusive owner, the home workers' access, the transaction waiting for other nodes,
 * the requests queued behind it and the home's own request under way. Not thread-safe, as the engine.
 */
final class HomeEntry {
    private static final System.Logger LOG = System.getLogger(CoherenceEngine.class.getName());

    /**
     * A request queued at the home: a node's GET_S, GET_M or GET_M_OVERWRITE ({@code overwrite}: a
     * write that needs no data), or the home's own.
     */
    record Request(int requester, boolean write, boolean overwrite) {
        Request(int requester, boolean write) {
            this(requester, write, false);
        }

        @Override
        public String toString() { return (overwrite ? "O" : write ? "W" : "R") + requester; }
    }

    enum TxnKind { INVALIDATE, FORWARD_S, FORWARD_M, PUSH }

    /** A home transaction waiting for other nodes. */
    static final class Txn {
        final TxnKind kind;
        final int requester;
        /** INVALIDATE: sharers whose INV_ACK is outstanding; PUSH: pushed nodes whose PUSH_ACK is */
        final BitSet awaiting;
        /**
         * INVALIDATE and FORWARD_M for a remote requester: whether DATA_M carries data (the requester
         * was no sharer and did not ask to overwrite the partition)
         */
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
            return forward(kind, requester, kind == TxnKind.FORWARD_M);
        }

        static Txn forward(TxnKind kind, int requester, boolean withData) {
            return new Txn(kind, requester, null, withData);
        }

        /** A push to {@code nodes} (see {@link CoherenceEngine#push}), waiting for their PUSH_ACKs. */
        static Txn push(BitSet nodes) {
            return new Txn(TxnKind.PUSH, -1, nodes, false);
        }

        Txn copy() {
            return new Txn(kind, requester, awaiting == null ? null : (BitSet) awaiting.clone(), withData);
        }

        @Override
        public String toString() {
            if (kind == TxnKind.PUSH) return "PUSH awaiting " + awaiting;
            return kind + " for " + requester + (kind == TxnKind.INVALIDATE ? " awaiting " + awaiting : "");
        }
    }

    /** The home: this node. */
    final int nodeId;
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

    HomeEntry(int nodeId, int arrayId, int partition) {
        this.nodeId = nodeId;
        this.arrayId = arrayId;
        this.partition = partition;
    }

    /** @return a deep copy (model checking: a forked state) */
    HomeEntry copy() {
        HomeEntry to = new HomeEntry(nodeId, arrayId, partition);
        to.state = state;
        to.sharers.or(sharers);
        to.owner = owner;
        to.access = access;
        to.txn = txn == null ? null : txn.copy();
        to.queue.addAll(queue);
        to.localPending = localPending;
        to.localWantWrite = localWantWrite;
        return to;
    }

    /** @return whether nothing is under way or queued on the partition here */
    boolean quiescent() {
        return txn == null && queue.isEmpty() && localPending == Pending.NONE && !localWantWrite;
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
