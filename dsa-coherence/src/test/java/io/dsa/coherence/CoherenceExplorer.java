package io.dsa.coherence;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An explicit-state model checker over {@link ClusterModel}: breadth-first search of every state the
 * real {@link CoherenceEngine}s reach under every delivery order the configuration allows
 * ({@link ModelConfig.Delivery}: by default FIFO per ordered pair of nodes, any order across pairs)
 * and every interleaving of the workers' steps. Each new state
 * is checked ({@link ClusterModel#checkInvariants}); a state without successors must be finished
 * (every worker done, nothing in flight, every engine quiescent), otherwise it is a deadlock or a
 * request that never completes. Because the search is breadth-first, the first violation found has a
 * shortest trace, which is rebuilt by replaying the recorded transitions from the initial state.
 */
final class CoherenceExplorer {
    /** The outcome of an exploration. */
    record Result(long states, long transitions, int maxDepth, long finishedStates, long homeCoalescedStates, long cacheCoalescedStates,
            long overtakingDeliveries, long overwriteGrants, long overwriteFallbacks, long updatesAtGrant, String violation,
            List<String> trace) {
        boolean ok() { return violation == null; }

        String summary() {
            return String.format("%,d states, %,d transitions, max depth %d, %,d finished states, %,d/%,d states with a write"
                    + " coalesced behind a read at a home/cache, %,d deliveries overtaking an older message of their pair,"
                    + " %,d/%,d transitions granting an overwrite without data / giving an overwriting worker the access another way,"
                    + " %,d transitions writing an update at the grant its home asked for%s",
                    states, transitions, maxDepth, finishedStates, homeCoalescedStates, cacheCoalescedStates, overtakingDeliveries,
                    overwriteGrants, overwriteFallbacks, updatesAtGrant, ok() ? "" : ", VIOLATION: " + violation);
        }

        /** @return the counterexample, one numbered step per line */
        String traceText() {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < trace.size(); i++) sb.append(String.format("%3d. %s%n", i + 1, trace.get(i)));
            return sb.toString();
        }
    }

    /** A state's identity in the visited set. */
    private record Key(byte[] bytes, int hash) {
        static Key of(byte[] b) { return new Key(b, Arrays.hashCode(b)); }

        @Override
        public boolean equals(Object o) { return o instanceof Key k && k.hash == hash && Arrays.equals(k.bytes, bytes); }

        @Override
        public int hashCode() { return hash; }
    }

    private final ModelConfig config;
    private final long maxStates;

    /** @param maxStates the search fails rather than explore more states than this */
    CoherenceExplorer(ModelConfig config, long maxStates) {
        this.config = config;
        this.maxStates = maxStates;
    }

    Result explore() {
        ClusterModel initial = new ClusterModel(config);
        Map<Key, Integer> ids = new HashMap<>();
        // per state id: its parent's id and the transition that led to it, to rebuild a trace
        int[] parent = new int[1 << 16];
        int[] via = new int[1 << 16];
        int[] depth = new int[1 << 16];
        ids.put(Key.of(initial.encode()), 0);
        parent[0] = -1;
        ArrayDeque<ClusterModel> frontier = new ArrayDeque<>();
        ArrayDeque<Integer> frontierIds = new ArrayDeque<>();
        frontier.add(initial);
        frontierIds.add(0);
        long transitions = 0, finished = 0, homeCoalesced = 0, cacheCoalesced = 0, overtaking = 0, grants = 0, fallbacks = 0, atGrant = 0;
        int maxDepth = 0;
        while (!frontier.isEmpty()) {
            ClusterModel state = frontier.removeFirst();
            int id = frontierIds.removeFirst();
            if (state.writeCoalesced(true)) homeCoalesced++;
            if (state.writeCoalesced(false)) cacheCoalesced++;
            int[] enabled = state.enabled();
            if (enabled.length == 0) {
                if (!state.finished()) {
                    String what = "no transition is enabled but the run is not finished (deadlock or a request that never completes):"
                            + state.stuck();
                    return new Result(ids.size(), transitions, maxDepth, finished, homeCoalesced, cacheCoalesced, overtaking, grants, fallbacks, atGrant, what, trace(path(parent, via, id), -1));
                }
                finished++;
                continue;
            }
            for (int t : enabled) {
                transitions++;
                ClusterModel next;
                try {
                    next = state.successor(t, false);
                } catch (ClusterModel.Violation v) {
                    return new Result(ids.size(), transitions, maxDepth, finished, homeCoalesced, cacheCoalesced, overtaking, grants, fallbacks, atGrant, v.getMessage(), trace(path(parent, via, id), t));
                }
                if (next.overtook) overtaking++;
                if (next.overwriteGranted) grants++;
                if (next.overwriteFellBack) fallbacks++;
                if (next.updateWrittenAtGrant) atGrant++;
                Key key = Key.of(next.encode());
                if (ids.containsKey(key)) continue;
                int nid = ids.size();
                if (nid >= maxStates) {
                    throw new IllegalStateException("more than " + maxStates + " states: configuration too large for " + config);
                }
                if (nid == parent.length) {
                    parent = Arrays.copyOf(parent, nid * 2);
                    via = Arrays.copyOf(via, nid * 2);
                    depth = Arrays.copyOf(depth, nid * 2);
                }
                ids.put(key, nid);
                parent[nid] = id;
                via[nid] = t;
                depth[nid] = depth[id] + 1;
                maxDepth = Math.max(maxDepth, depth[nid]);
                frontier.addLast(next);
                frontierIds.addLast(nid);
            }
        }
        return new Result(ids.size(), transitions, maxDepth, finished, homeCoalesced, cacheCoalesced, overtaking, grants, fallbacks, atGrant, null, List.of());
    }

    private static List<Integer> path(int[] parent, int[] via, int id) {
        List<Integer> steps = new ArrayList<>();
        for (int s = id; parent[s] >= 0; s = parent[s]) steps.add(0, via[s]);
        return steps;
    }

    /** Replays {@code steps} (then {@code last}, if not -1) from the initial state, describing each. */
    private List<String> trace(List<Integer> steps, int last) {
        List<Integer> all = new ArrayList<>(steps);
        if (last >= 0) all.add(last);
        List<String> lines = new ArrayList<>();
        ClusterModel state = new ClusterModel(config);
        for (int t : all) {
            try {
                state = state.successor(t, true);
                lines.add(String.join("; ", state.log));
            } catch (ClusterModel.Violation v) {
                lines.add(v.getMessage());
                break;
            }
        }
        return lines;
    }
}
