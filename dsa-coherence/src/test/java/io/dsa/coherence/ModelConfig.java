package io.dsa.coherence;

import java.util.ArrayList;
import java.util.List;

/**
 * The configuration of a {@link ClusterModel}, the small cluster the explorer explores.
 *
 * @param nodes nodes; partition p is homed at node p % nodes
 * @param partitions partitions of the one array
 * @param workloads per worker, the ops it runs in order
 * @param workerNode per worker, the node it runs on
 * @param eager whether a waiting worker performs its op in the same step that grants the access
 *        (the state graph is then acyclic); otherwise retrying is a step of its own, which lets
 *        the access be taken away again first
 * @param faults protocol bugs every engine commits
 * @param delivery the order in which messages in flight between two nodes may arrive
 * @param pushes how many times in a run a home may push a partition to a node that holds no copy
 *        ({@link CoherenceEngine#push}), at any moment the engine allows it
 * @param updateFaults bugs every home commits with the updates it receives ({@link UpdateModel})
 * @param scopeFaults bugs every node commits entering and exiting owner-computes scopes ({@link ModelOp}'s {@code E} and {@code X})
 * @param drops how many times in a run a node may drop its shared copy of a partition unasked
 *        ({@link CoherenceEngine#drop}, self-invalidation), at any moment the engine allows it
 */
record ModelConfig(int nodes, int partitions, List<List<ModelOp>> workloads, int[] workerNode, boolean eager,
                   java.util.Set<Fault> faults, Delivery delivery, int pushes, java.util.Set<UpdateModel.Fault> updateFaults,
                   java.util.Set<ScopeFault> scopeFaults, int drops) {
    /** Which messages in flight between two nodes may be delivered next. */
    enum Delivery {
        /** FIFO per ordered pair of nodes: the protocol's stated assumption (docs/coherence.md). */
        PAIR_FIFO,
        /**
         * FIFO per ordered pair of nodes and partition: messages about different partitions may
         * overtake each other, as the transport lets small messages overtake a chunked transfer
         * (docs/runtime.md, "Bulk transfers").
         */
        PARTITION_FIFO,
        /** Any message in flight from one node to another may arrive next: no order at all. */
        UNORDERED
    }

    ModelConfig {
        if (workloads.size() != workerNode.length) {
            throw new IllegalArgumentException(workloads.size() + " workloads for " + workerNode.length + " workers");
        }
        for (int node : workerNode) {
            if (node < 0 || node >= nodes) throw new IllegalArgumentException("worker node " + node + " out of range [0, " + nodes + ")");
        }
        for (int w = 0; w < workloads.size(); w++) {
            for (ModelOp o : workloads.get(w)) {
                if (o.partition() < 0 || o.partition() >= partitions) {
                    throw new IllegalArgumentException("partition " + o.partition() + " out of range [0, " + partitions + ")");
                }
                if (o.scope() && o.partition() % nodes != workerNode[w]) {
                    throw new IllegalArgumentException("op " + o + " of a worker on node " + workerNode[w] + ": owner computes covers"
                            + " only the node's home partitions, and partition " + o.partition() + " is homed at node " + o.partition() % nodes);
                }
            }
        }
    }

    /** @param workloads one string of ops per node (one worker each), e.g. {@code "R0 W0 W1"} */
    static ModelConfig of(int nodes, int partitions, boolean eager, String... workloads) {
        if (workloads.length != nodes) throw new IllegalArgumentException(workloads.length + " workloads for " + nodes + " nodes");
        String[] w = new String[nodes];
        for (int i = 0; i < nodes; i++) w[i] = i + ":" + workloads[i];
        return workers(nodes, partitions, eager, w);
    }

    /** @param workers one string per worker: its node, a colon and its ops, e.g. {@code "1:R0 W1"} */
    static ModelConfig workers(int nodes, int partitions, boolean eager, String... workers) {
        List<List<ModelOp>> w = new ArrayList<>();
        int[] node = new int[workers.length];
        for (int i = 0; i < workers.length; i++) {
            int colon = workers[i].indexOf(':');
            if (colon < 0) throw new IllegalArgumentException("worker " + workers[i] + ": expected <node>:<ops>");
            node[i] = Integer.parseInt(workers[i].substring(0, colon).trim());
            w.add(ModelOp.parse(workers[i].substring(colon + 1)));
        }
        return new ModelConfig(nodes, partitions, w, node, eager, java.util.Set.of(), Delivery.PAIR_FIFO, 0, java.util.Set.of(), java.util.Set.of(), 0);
    }

    /** @return this configuration with every engine committing {@code fault} */
    ModelConfig withFault(Fault fault) {
        return new ModelConfig(nodes, partitions, workloads, workerNode, eager, java.util.EnumSet.of(fault), delivery, pushes, updateFaults, scopeFaults, drops);
    }

    /** @return this configuration with every home committing {@code fault} with the updates it receives */
    ModelConfig withFault(UpdateModel.Fault fault) {
        return new ModelConfig(nodes, partitions, workloads, workerNode, eager, faults, delivery, pushes, java.util.EnumSet.of(fault), scopeFaults, drops);
    }

    /** @return this configuration with every node committing {@code fault} in its owner-computes scopes */
    ModelConfig withFault(ScopeFault fault) {
        return new ModelConfig(nodes, partitions, workloads, workerNode, eager, faults, delivery, pushes, updateFaults, java.util.EnumSet.of(fault), drops);
    }

    /** @return this configuration with messages delivered as {@code d} says */
    ModelConfig withDelivery(Delivery d) {
        return new ModelConfig(nodes, partitions, workloads, workerNode, eager, faults, d, pushes, updateFaults, scopeFaults, drops);
    }

    /** @return this configuration with up to {@code n} pushes in a run */
    ModelConfig withPushes(int n) {
        return new ModelConfig(nodes, partitions, workloads, workerNode, eager, faults, delivery, n, updateFaults, scopeFaults, drops);
    }

    /** @return this configuration with up to {@code n} drops of shared copies in a run */
    ModelConfig withDrops(int n) {
        return new ModelConfig(nodes, partitions, workloads, workerNode, eager, faults, delivery, pushes, updateFaults, scopeFaults, n);
    }

    /** @return the number of channels: one per ordered pair, or per ordered pair and partition */
    int channels() { return nodes * nodes * (delivery == Delivery.PARTITION_FIFO ? partitions : 1); }

    /** @return the channel that carries a message from {@code source} to {@code destination} about {@code partition} */
    int channel(int source, int destination, int partition) {
        int pair = source * nodes + destination;
        return delivery == Delivery.PARTITION_FIFO ? pair * partitions + partition : pair;
    }

    int workers() { return workerNode.length; }

    /** @return the workloads as {@code node:ops} strings */
    String describeWorkers() {
        List<String> s = new ArrayList<>();
        for (int w = 0; w < workerNode.length; w++) s.add(workerNode[w] + ":" + workloads.get(w));
        return s + (eager ? " eager" : " lazy") + (delivery == Delivery.PAIR_FIFO ? "" : ", " + delivery)
                + (pushes == 0 ? "" : ", " + pushes + " push(es)") + (drops == 0 ? "" : ", " + drops + " drop(s)") + (faults.isEmpty() && updateFaults.isEmpty() && scopeFaults.isEmpty() ? ""
                : ", faults " + java.util.stream.Stream.of(faults, updateFaults, scopeFaults).flatMap(java.util.Set::stream).toList());
    }

    int home(int partition) { return partition % nodes; }
}
