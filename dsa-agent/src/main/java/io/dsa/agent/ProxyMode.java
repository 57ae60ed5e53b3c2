package io.dsa.agent;

/** Who sends a node's barrier messages (the paper's two proxy models). */
public enum ProxyMode {
    /** The last worker thread to arrive sends for its siblings. */
    FLOAT,
    /** A dedicated communication thread per node sends for all of them. */
    FIXED
}
