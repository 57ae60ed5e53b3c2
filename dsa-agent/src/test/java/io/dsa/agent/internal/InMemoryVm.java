package io.dsa.agent.internal;

import io.dsa.agent.BarrierKind;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.ProxyMode;
import java.util.ArrayList;
import java.util.List;

/**
 * Test helper: a VM of whole nodes on an {@link InMemoryNetwork}, node 0 first and then the
 * others joining it, each node {@code base} with its id; closes them all and the network.
 */
final class InMemoryVm implements AutoCloseable {
    final InMemoryNetwork network;
    final List<NodeRuntime> nodes = new ArrayList<>();

    /** Starts {@code base.nodes()} nodes of {@code base} on {@code network}; waits for each to join. */
    InMemoryVm(InMemoryNetwork network, DsaConfig base) {
        this.network = network;
        nodes.add(NodeRuntime.start(base, network));
        for (int k = 1; k < base.nodes(); k++) {
            nodes.add(NodeRuntime.start(base.toBuilder().nodeId(k).monitorAddress(nodes.get(0).address()).build(), network));
        }
    }

    /**
     * @return a VM of {@code nodes} x {@code threads} on a network faulted by {@code plan}, with the
     *         TREE barrier and the FLOAT proxy (so global rounds carry node payloads) and a random secret
     */
    static InMemoryVm tree(FaultPlan plan, int nodes, int threads) {
        return new InMemoryVm(new InMemoryNetwork(plan), DsaConfig.builder().nodes(nodes).threadsPerNode(threads)
                .barrier(BarrierKind.TREE).proxy(ProxyMode.FLOAT).randomSecret().startupTimeoutMs(20_000)
                .build());
    }

    /** @return node {@code k}'s runtime */
    NodeRuntime node(int k) { return nodes.get(k); }

    @Override
    public void close() {
        for (NodeRuntime n : nodes) n.close();
        network.close();
    }
}
