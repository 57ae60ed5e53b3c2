package io.dsa.agent;

import io.dsa.DsaProgram;

/**
 * A whole virtual machine inside this JVM: {@code config.nodes()} real agents talking over
 * loopback sockets.
 *
 * <pre>{@code
 * try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(4).threadsPerNode(2).build())) {
 *     cluster.run(new InnerProduct(), "1024", "32");
 * }
 * }</pre>
 */
public final class DsaCluster implements AutoCloseable {
    private DsaCluster() {}

    /**
     * Starts {@code config.nodes()} agents on loopback. A config without a secret gets a random one.
     */
    public static DsaCluster local(DsaConfig config) {
        throw new UnsupportedOperationException();
    }

    /**
     * Runs {@code program} on every node (a fresh instance per node when the class has a public
     * no-argument constructor, else the given instance) and returns when every worker finished.
     *
     * @throws io.dsa.DsaException carrying the first worker failure
     */
    public RunReport run(DsaProgram program, String... args) {
        throw new UnsupportedOperationException();
    }

    /** Stops every agent. Idempotent. */
    @Override
    public void close() { throw new UnsupportedOperationException(); }
}
