package io.dsa.agent;

import io.dsa.DsaProgram;

/** Runs a program on a VM in this JVM, for tests whose workers check what they see. */
final class LocalRuns {
    private LocalRuns() {}

    /** Runs {@code program} on {@code nodes x threads} workers in this JVM and waits for it. */
    static void run(int nodes, int threads, DsaProgram program) {
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(nodes).threadsPerNode(threads).build())) {
            cluster.run(program);
        }
    }

    /** A worker's check: fails the worker, and so the job, with {@code what}. */
    static void check(boolean ok, String what) {
        if (!ok) throw new AssertionError(what);
    }
}
