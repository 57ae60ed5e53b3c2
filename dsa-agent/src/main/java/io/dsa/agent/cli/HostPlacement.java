package io.dsa.agent.cli;

import io.dsa.DsaException;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.HostPort;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Which host runs each node of a VM on hosts, and with checkpoints, which node keeps a copy of
 * each node's file on another host (its buddy; docs/failures.md, "Checkpoints on hosts"). At
 * first node k runs on host {@code k mod H}; after hosts are lost, each of their nodes moves to
 * the host of its buddy, whose directory holds the copy it restarts from. Immutable.
 */
final class HostPlacement {
    private final HostPort[] hostOf;

    private HostPlacement(HostPort[] hostOf) { this.hostOf = hostOf; }

    /** @return node k on host {@code k mod hosts.size()} */
    static HostPlacement roundRobin(List<HostPort> hosts, int nodes) {
        HostPort[] hostOf = new HostPort[nodes];
        for (int k = 0; k < nodes; k++) hostOf[k] = hosts.get(k % hosts.size());
        return new HostPlacement(hostOf);
    }

    /** @return nodes in the VM */
    int nodes() { return hostOf.length; }

    /** @return the host of node {@code node} */
    HostPort host(int node) { return hostOf[node]; }

    /** @return the hosts that run a node, in the order of their first node */
    List<HostPort> hosts() { return List.copyOf(new LinkedHashSet<>(Arrays.asList(hostOf))); }

    /**
     * @return element k: node k's buddy, the first node after k (cyclically) on another host; null
     *         when every node runs on one host, so no copy could be kept on another
     */
    int[] buddies() {
        int n = hostOf.length;
        int[] buddies = new int[n];
        for (int k = 0; k < n; k++) {
            buddies[k] = -1;
            for (int step = 1; step < n && buddies[k] < 0; step++) {
                if (!hostOf[(k + step) % n].equals(hostOf[k])) buddies[k] = (k + step) % n;
            }
            if (buddies[k] < 0) return null;
        }
        return buddies;
    }

    /**
     * A clone of a node that keeps the node's part of the newest complete checkpoint in memory
     * (docs/failures.md, "Clone promotion").
     *
     * @param node the node it copies
     * @param cloneId its id in the VM
     * @param host the host that runs it
     */
    record CurrentClone(int node, int cloneId, HostPort host) {
        /**
         * @return the clones of node 0's {@code CHECKPOINTED} event: node and clone id in pairs in
         *         {@code ids}, their hosts in {@code hosts}; one whose host does not parse is left
         *         out, saying so on {@code out}
         */
        static List<CurrentClone> of(long[] ids, List<String> hosts, java.io.PrintWriter out) {
            List<CurrentClone> clones = new ArrayList<>();
            for (int i = 0; 2 * i + 1 < ids.length && i < hosts.size(); i++) {
                try {
                    clones.add(new CurrentClone((int) ids[2 * i], (int) ids[2 * i + 1], HostPort.parse(hosts.get(i))));
                } catch (IllegalArgumentException bad) {
                    out.println("clone " + ids[2 * i + 1] + " of node " + ids[2 * i] + " cannot be promoted: its host '" + hosts.get(i)
                            + "' is no HOST:PORT");
                }
            }
            return clones;
        }
    }

    /**
     * The clones a restart promotes: for each node on a {@code lost} host, the first of its
     * {@code clones} on a host that is neither lost nor unusable (the launcher could not reach it).
     * Node 0 has none (it restarts from its files).
     *
     * @return node to the clone that takes its place, by node
     */
    Map<Integer, CurrentClone> promotions(Set<HostPort> lost, List<CurrentClone> clones, Predicate<HostPort> usable) {
        Map<Integer, CurrentClone> promoted = new TreeMap<>();
        for (CurrentClone c : clones) {
            if (c.node() < 1 || c.node() >= hostOf.length || promoted.containsKey(c.node())) continue;
            if (lost.contains(hostOf[c.node()]) && !lost.contains(c.host()) && usable.test(c.host())) promoted.put(c.node(), c);
        }
        return promoted;
    }

    /**
     * The placement of the VM restarted without the {@code lost} hosts: each node of a lost host
     * goes to the host of its buddy {@code buddies[k]}, which keeps its copy.
     *
     * @throws DsaException when a node and its buddy were both on lost hosts (no copy survives), naming both
     */
    HostPlacement without(Set<HostPort> lost, int[] buddies) { return without(lost, buddies, Map.of()); }

    /**
     * As {@link #without(Set, int[])}, but each node in {@code promoted} goes to the host of its clone,
     * which keeps its copy in memory (whether or not its buddy survived).
     */
    HostPlacement without(Set<HostPort> lost, int[] buddies, Map<Integer, CurrentClone> promoted) {
        HostPort[] next = hostOf.clone();
        for (int k = 0; k < hostOf.length; k++) {
            if (!lost.contains(hostOf[k])) continue;
            if (promoted.containsKey(k)) {
                next[k] = promoted.get(k).host();
                continue;
            }
            int b = buddies[k];
            if (lost.contains(hostOf[b])) {
                throw new DsaException("node " + k + " on host " + hostOf[k] + " and its buddy node " + b + " on host " + hostOf[b]
                        + " were both lost: no copy of node " + k + "'s checkpoint survives");
            }
            next[k] = hostOf[b];
        }
        return new HostPlacement(next);
    }

    /**
     * @return this placement with each host in {@code spares}' keys replaced by its value (a spare
     *         taking a lost host's place)
     */
    HostPlacement replacing(java.util.Map<HostPort, HostPort> spares) {
        HostPort[] next = hostOf.clone();
        for (int k = 0; k < next.length; k++) next[k] = spares.getOrDefault(next[k], next[k]);
        return new HostPlacement(next);
    }

    /** @return this placement with node {@code node} on {@code host} */
    HostPlacement with(int node, HostPort host) {
        HostPort[] next = hostOf.clone();
        next[node] = host;
        return new HostPlacement(next);
    }

    /**
     * @return the threads of this VM on node {@code node}'s host: its workers plus one I/O thread,
     *         over every node of the VM that host runs ({@link DsaConfig.Builder#machineThreads})
     */
    int machineThreads(int node, int threadsPerNode) {
        long onHost = Arrays.stream(hostOf).filter(h -> h.equals(hostOf[node])).count();
        return (int) Math.min(DsaConfig.MAX_MACHINE_THREADS, onHost * (threadsPerNode + 1));
    }

    /**
     * @return {@code {share, shares}}: node {@code node}'s index among the VM's nodes on its host,
     *         and their count, the share of the host's cores it binds to with {@code --bind-cores}
     *         ({@link DsaConfig.Builder#coreShare})
     */
    int[] coreShare(int node) {
        int share = 0;
        int shares = 0;
        for (int k = 0; k < hostOf.length; k++) {
            if (!hostOf[k].equals(hostOf[node])) continue;
            if (k < node) share++;
            shares++;
        }
        return new int[] {share, shares};
    }

    /** @return "node 0 on H, node 1 on H2, ..." */
    String describe() {
        List<String> parts = new ArrayList<>();
        for (int k = 0; k < hostOf.length; k++) parts.add("node " + k + " on " + hostOf[k]);
        return String.join(", ", parts);
    }

    /** @return the placement's host of each lost peer address {@code host:port} among {@code peers} */
    Set<HostPort> hostsAmong(Set<String> peers) {
        Set<HostPort> lost = new LinkedHashSet<>();
        for (HostPort h : hostOf) if (peers.contains(h.toString())) lost.add(h);
        return lost;
    }
}
