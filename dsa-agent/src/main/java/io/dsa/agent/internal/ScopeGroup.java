package io.dsa.agent.internal;

import io.dsa.agent.wire.RegisterMessage;
import java.util.Arrays;

/**
 * The nodes a group scope synchronises (docs/consistency.md, "Group scopes"): every worker of
 * each, and no other worker. Its opening and closing rounds are a VM-wide group barrier of those
 * workers, registered at node 0 under a name made of the nodes, so every member node finds the
 * same one. Immutable.
 */
final class ScopeGroup {
    final int[] nodes;
    final String name;
    final int barrierId;

    private ScopeGroup(int[] nodes, String name, int barrierId) {
        this.nodes = nodes;
        this.name = name;
        this.barrierId = barrierId;
    }

    /**
     * @return the group of {@code nodes} for a worker of node {@code rt.nodeId}, its barrier
     *         registered (a round trip to node 0 the first time a node names the group)
     * @throws IllegalArgumentException if {@code nodes} is empty, not ascending and distinct, out
     *         of {@code [0, rt.nodes)}, or lacks the caller's node
     */
    static ScopeGroup of(NodeRuntime rt, int[] nodes) {
        if (nodes == null) throw new NullPointerException("nodes");
        boolean mine = false;
        for (int i = 0; i < nodes.length; i++) {
            if (nodes[i] < 0 || nodes[i] >= rt.nodes || i > 0 && nodes[i] <= nodes[i - 1]) {
                throw new IllegalArgumentException("group scope nodes " + Arrays.toString(nodes) + ": node ids must be ascending, distinct"
                        + " and in [0, " + rt.nodes + ")");
            }
            mine |= nodes[i] == rt.nodeId;
        }
        if (!mine) {
            throw new IllegalArgumentException("group scope nodes " + Arrays.toString(nodes) + " do not include this worker's node "
                    + rt.nodeId + ": only the group's workers open its scopes");
        }
        String name = "dsa.scope.group" + Arrays.toString(nodes);
        int id = rt.registry.register(RegisterMessage.BARRIER, name, new long[] {(long) nodes.length * rt.threadsPerNode}).objectId();
        return new ScopeGroup(nodes.clone(), name, id);
    }

    /** The group's round: every worker of the group's nodes arrives; orders memory like a barrier. */
    void round(NodeRuntime rt) {
        rt.barriers.group(barrierId, name);
    }

    @Override
    public String toString() { return "nodes " + Arrays.toString(nodes); }
}
