package io.dsa.agent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.metrics.ArrayCounts;
import org.junit.jupiter.api.Timeout;

/**
 * Self-invalidation ({@link DsaConfig#selfInvalidation()}, docs/runtime.md): two nodes, each
 * rewriting its own partition every epoch and reading the other's after a barrier, as CG does
 * with {@code p} ({@link ReaderPushesTest.ProducerConsumer}, every read checked against the value
 * its epoch wrote). Without it, each node's first write of an epoch finds the other node's copy
 * and waits for its invalidation: a write miss per epoch. With it, the reader drops its copy at
 * the collective after its reads (a PUT_S sent before its arrival), so the writer's next write
 * hits, except in the first two epochs (the first invalidation makes the partition a candidate)
 * and once every {@code SelfDrops.STREAK} epochs (a copy kept). With the FIXED proxy the arrival
 * follows the PUT_S on the same connection, so the home has seen it before the release; with
 * FLOAT the arrival may overtake it over a barrier lane, and the write then meets the PUT_S
 * crossing its invalidation, which the protocol answers as any other (the values are checked).
 */
@Timeout(120)
class SelfInvalidationTest {
    /**
     * With the FIXED proxy the node's I/O thread sends its arrival, and sends the drops' PUT_S first on the same
     * connection, so the home has seen them before the release: node 0's write misses are exactly those of the policy.
     */
    @org.junit.jupiter.api.Test
    void withTheFixedProxyTheWriterMissesOnlyWhenThePolicyKeepsACopy() {
        long with = writeMissesOfNode0(DsaConfig.builder().proxy(ProxyMode.FIXED).selfInvalidation(true));
        long without = writeMissesOfNode0(DsaConfig.builder().proxy(ProxyMode.FIXED));
        int epochs = ReaderPushesTest.EPOCHS;
        System.out.println("SelfInvalidationTest: FIXED: node 0's write misses in " + epochs + " epochs: " + with
                + " with self-invalidation, " + without + " without");
        assertTrue(without >= epochs - 1, "a write miss per epoch without self-invalidation (the first may be its first touch): "
                + without);
        // epochs 0 and 1 miss, then every STREAK-th copy is kept and invalidated: 2 + 62 / 8 = 9, give or take the first touch
        long policy = 2 + (epochs - 2) / 8;
        assertTrue(with >= policy - 1 && with <= policy + 1, "write misses with self-invalidation: " + with + ", expected "
                + (policy - 1) + " to " + (policy + 1));
    }

    /**
     * With FLOAT (the default) the arrival goes over a barrier lane, sent by the worker, and the drops run on the I/O
     * thread after it: with a round between the reads and the next writes (as in CG) the PUT_S is mostly at the home
     * before the write; when it is not, the write's invalidation crosses it, which the protocol answers as any other
     * (every value is checked). The count is a race, so the test asks only for fewer misses than without.
     */
    @org.junit.jupiter.api.Test
    void withBarrierLanesTheWriterMissesLessOften() {
        long with = writeMissesOfNode0(DsaConfig.builder().selfInvalidation(true), 1);
        long without = writeMissesOfNode0(DsaConfig.builder(), 1);
        int epochs = ReaderPushesTest.EPOCHS;
        System.out.println("SelfInvalidationTest: FLOAT, one more round: node 0's write misses in " + epochs + " epochs: " + with
                + " with self-invalidation, " + without + " without");
        assertTrue(without >= epochs - 1, "a write miss per epoch without self-invalidation: " + without);
        assertTrue(with < without, "fewer write misses with self-invalidation: " + with + " against " + without);
    }

    private static long writeMissesOfNode0(DsaConfig.Builder config) {
        return writeMissesOfNode0(config, 0);
    }

    private static long writeMissesOfNode0(DsaConfig.Builder config, int extraRounds) {
        try (DsaCluster cluster = DsaCluster.local(config.nodes(2).threadsPerNode(1).build())) {
            RunReport report = cluster.run(new ReaderPushesTest.ProducerConsumer(), Integer.toString(extraRounds));
            assertTrue(report.lines().stream().anyMatch(l -> l.contains("read " + ReaderPushesTest.EPOCHS + " epochs")),
                    report.lines().toString());
            for (ArrayCounts a : cluster.agent(0).counts().arrays()) {
                if (a.array().equals("pushed")) return a.writeMisses();
            }
            throw new AssertionError("no counts for array 'pushed' at node 0");
        }
    }
}
