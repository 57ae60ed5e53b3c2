package io.dsa.agent.cli;

import io.dsa.agent.HostPort;
import io.dsa.agent.wire.HostJobEventMessage;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One VM formed on the hosts: where each node runs, the buddies of its checkpoints, and what
 * its hosts reported. Job ids are {@code base + node}, so events of an earlier VM (or a failed promotion's) are told apart.
 */
final class HostsAttempt {
    final long base;
    /** Where the nodes run; after the moves to spares, where they run then. */
    volatile HostPlacement placement;
    /** With spares: where the nodes run once the restarted VM resumed and they moved to the spares; else null. */
    final HostPlacement target;
    /** Completed when node 0 said the restarted VM formed again and resumes. */
    final CompletableFuture<Long> resumed = new CompletableFuture<>();
    /** Element k: node k's checkpoint buddy; null without checkpoints or buddies. */
    final int[] buddies;
    /** The checkpoint epoch the nodes restart from; 0 for a fresh start; {@link HostsRun#NEWEST}: node 0's newest. */
    final long restartEpoch;
    final Map<Integer, CompletableFuture<HostJobEventMessage>> started = new ConcurrentHashMap<>();
    final Map<Integer, CompletableFuture<HostJobEventMessage>> finished = new ConcurrentHashMap<>();
    /** Stop tokens by node, from each node's host. */
    final Map<Integer, String> stopTokens = new ConcurrentHashMap<>();
    /** Failures in the order they arrived. */
    final List<HostJobEventMessage> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Hosts ({@code host:port}) whose connection closed or went silent while this VM ran. */
    final java.util.Set<String> lostPeers = ConcurrentHashMap.newKeySet();
    /** The nodes of a restart that clones take the places of, by node (docs/failures.md, "Clone promotion"). */
    final Map<Integer, HostPlacement.CurrentClone> promoted;
    /** Whether its nodes were submitted (a restart's are, by the restart). */
    volatile boolean launched;

    HostsAttempt(int index, HostPlacement placement, HostPlacement target, int[] buddies, long restartEpoch,
            Map<Integer, HostPlacement.CurrentClone> promoted) {
        this.promoted = Map.copyOf(promoted);
        this.base = (long) index << 20;
        this.placement = placement;
        this.target = target;
        this.buddies = buddies;
        this.restartEpoch = restartEpoch;
        for (int n = 0; n < placement.nodes(); n++) {
            started.put(n, new CompletableFuture<>());
            finished.put(n, new CompletableFuture<>());
        }
    }

    HostPort host(int node) { return placement.host(node); }

    /** @return the node of job id {@code jobId} in this VM, or -1 for a job of another */
    int node(long jobId) {
        long node = jobId - base;
        return node >= 0 && node < placement.nodes() ? (int) node : -1;
    }

    /** @return whether a node or host was lost: a node's JVM ended, a host went away, or a failure names a lost node */
    boolean nodeLost() {
        if (!lostPeers.isEmpty()) return true;
        for (HostJobEventMessage f : failures) {
            if (f.event() == HostJobEventMessage.EXITED || Restarts.namesLostNode(f.text())) return true;
        }
        return false;
    }
}
