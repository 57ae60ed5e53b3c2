package io.dsa.agent;

/** How the global barrier (and the collectives riding on it) travels between nodes. */
public enum BarrierKind {
    /** The paper's two-level tree: one proxy per node reports to the monitor, which releases all. */
    TREE,
    /** Nodes form a k-ary tree ({@link DsaConfig#barrierFanout()}); arrivals combine up it, releases flow down. */
    KARY,
    /** Every worker thread messages the monitor itself; kept for comparison. */
    CENTRAL
}
