package io.dsa.coherence;

import io.dsa.CacheState;

/**
 * The cache entry of one partition homed elsewhere ({@link CacheSide}): the copy's state and this
 * node's request under way. Not thread-safe, as the engine.
 */
final class CacheEntry {
    private static final System.Logger LOG = System.getLogger(CoherenceEngine.class.getName());

    /** This node. */
    final int nodeId;
    final int arrayId;
    final int partition;
    final int home;
    CacheState state = CacheState.INVALID;
    Pending pending = Pending.NONE;
    boolean wantWrite;
    /** the write under way asked to overwrite the partition (GET_M_OVERWRITE): its grant comes without data */
    boolean overwrite;
    /** this node dropped its shared copy (PUT_S) and awaits the home's PUT_ACK; an INV sent before the home saw it may still come */
    boolean dropping;

    /** @throws IllegalStateException if {@code home} is not in [0, {@code nodeCount}) */
    CacheEntry(int nodeId, int nodeCount, int arrayId, int partition, int home) {
        if (home < 0 || home >= nodeCount) {
            throw new IllegalStateException("home " + home + " of " + arrayId + ":" + partition + " out of range [0, " + nodeCount + ")");
        }
        this.nodeId = nodeId;
        this.arrayId = arrayId;
        this.partition = partition;
        this.home = home;
    }

    /** @return a copy (model checking: a forked state) */
    CacheEntry copy(int nodeCount) {
        CacheEntry to = new CacheEntry(nodeId, nodeCount, arrayId, partition, home);
        to.state = state;
        to.pending = pending;
        to.wantWrite = wantWrite;
        to.overwrite = overwrite;
        to.dropping = dropping;
        return to;
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
                + (wantWrite ? "+wantWrite" : "") + (overwrite ? "+overwrite" : "")
                + (dropping ? "+dropping" : "") + "}";
    }
}
