package io.dsa;

import java.util.List;

/** The shape of the virtual machine, as the paper's {@code DsaNetwork}. Immutable and thread-safe. */
public interface DsaNetwork {
    /** @return worker threads on this node */
    int getLocalThreadCount();

    /** @return worker threads in the whole virtual machine */
    int getGlobalThreadCount();

    /** @return nodes in the virtual machine */
    int nodeCount();

    /** @return this node's id, in {@code [0, nodeCount())} */
    int nodeId();

    /** @return the address ({@code host:port}) of every node, indexed by node id */
    List<String> getDsaNetIPs();
}
