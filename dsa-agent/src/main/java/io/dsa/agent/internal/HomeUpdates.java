package io.dsa.agent.internal;

import java.util.concurrent.RejectedExecutionException;

/**
 * What accumulates ({@link Accumulator}) and release diffs ({@link Diffs}) share, both updates
 * that travel to a partition's home: sending one (to this node's own I/O thread, without a
 * message, when this node is the home), answering it, and checking the partition it names.
 * Thread-safe.
 */
final class HomeUpdates {
    private final int nodeId;
    private final PeerNetwork network;
    private final PendingCalls calls;
    private final IoThread io;

    HomeUpdates(int nodeId, PeerNetwork network, PendingCalls calls, IoThread io) {
        this.nodeId = nodeId;
        this.network = network;
        this.calls = calls;
        this.io = io;
    }

    /** Sends {@code update} to node {@code home}, or runs {@code here} on this node's I/O thread if this node is the home. */
    void send(int home, Object update, Runnable here) {
        if (home != nodeId) {
            network.send(home, update);
            return;
        }
        try {
            io.execute(here);
        } catch (RejectedExecutionException e) {
            // the node is closing: its job has ended, and the waiting worker sees that
        }
    }

    /** Answers the update {@code requestId} of node {@code to} (this node included) with {@code reply}. */
    void answer(int to, long requestId, Object reply) {
        if (to == nodeId) calls.complete(requestId, reply);
        else network.send(to, reply);
    }

    /**
     * @param what the update as an error names it ("accumulate into", "diff of")
     * @return why partition {@code p} of {@code a} cannot take an update at node {@code nodeId}
     *         (out of range, or homed elsewhere), or null if it can
     */
    static String misplaced(int nodeId, ArrayState a, int p, String what) {
        String array = "array '" + a.spec.name() + "'";
        if (p < 0 || p >= a.slots.length) return what + " partition " + p + " of " + array + ": out of range [0, " + a.slots.length + ")";
        int home = a.layout.homeOf(p);
        if (home != nodeId) return what + " partition " + p + " of " + array + ": node " + nodeId + " is not its home (node " + home + " is)";
        return null;
    }
}
