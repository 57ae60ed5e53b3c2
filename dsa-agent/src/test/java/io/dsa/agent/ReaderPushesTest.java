package io.dsa.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.ArraySpec;
import io.dsa.Distribution;
import io.dsa.DsaException;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ElementType;
import io.dsa.ReduceOp;
import io.dsa.SharedDoubleArray;
import io.dsa.agent.metrics.ArrayCounts;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Pushes to returning readers ({@link DsaConfig#readerPushes()}, docs/runtime.md): two nodes, each
 * rewriting its own partition every epoch and reading the other's after a barrier, as CG does
 * with {@code p}. A node with pushes to make runs its push round and then sends its arrival, both
 * on its I/O thread, so every push leaves before the release. With the FIXED proxy the release
 * then comes on the same connection as the push, after it, and the misses are those of the
 * policy alone: the reader misses in the first two epochs (it has not returned yet), then once
 * in every {@code ReaderPushes.SAMPLE} rounds (a round in which the reader already holds the copy
 * counts too, which shifts the sampled rounds by one): 9 or 10 in 64 epochs. With FLOAT (the default) the release comes over a
 * barrier lane and may overtake a push still on its way: a read then waits for the push and
 * counts as a miss. Every read is checked against the value its epoch wrote, so a push of a
 * stale copy fails the program.
 */
@Timeout(120)
class ReaderPushesTest {
    static final int EPOCHS = 64;
    static final int ELEMENTS = 256;

    @ParameterizedTest
    @EnumSource(ProxyMode.class)
    void aPartitionRewrittenAndReadAgainEveryEpochIsPushedAndTheReadsAfterTheBarrierHit(ProxyMode proxy) {
        long withPushes = readMissesOfNode1(DsaConfig.builder().proxy(proxy).readerPushes(true));
        long without = readMissesOfNode1(DsaConfig.builder().proxy(proxy));
        System.out.println("ReaderPushesTest: " + proxy + ": node 1's read misses in " + EPOCHS + " epochs: " + withPushes
                + " with pushes, " + without + " without");
        assertEquals(EPOCHS, without, "one miss per epoch without pushes");
        // epochs 0 and 1 miss, then every 8th round samples (and misses): 2 + 62 / 8 = 9
        long policy = 2 + (EPOCHS - 2) / 8;
        long most = proxy == ProxyMode.FIXED ? policy + 2 : EPOCHS - 8;
        assertTrue(withPushes >= policy && withPushes <= most, "read misses with pushes: " + withPushes + ", expected " + policy
                + " to " + most);
    }

    private static long readMissesOfNode1(DsaConfig.Builder config) {
        try (DsaCluster cluster = DsaCluster.local(config.nodes(2).threadsPerNode(1).build())) {
            RunReport report = cluster.run(new ProducerConsumer());
            assertTrue(report.lines().stream().anyMatch(l -> l.contains("read " + EPOCHS + " epochs")), report.lines().toString());
            for (ArrayCounts a : cluster.agent(1).counts().arrays()) {
                if (a.array().equals("pushed")) return a.readMisses();
            }
            throw new AssertionError("no counts for array 'pushed' at node 1");
        }
    }

    /**
     * Epoch e: each worker writes its partition, barrier, reads the other's and checks it, allReduce (the other may write
     * again), then as many more barriers as the program's argument says (default 0), as CG has rounds between its reads of
     * {@code p} and the next writes.
     */
    public static final class ProducerConsumer implements DsaProgram {
        private SharedDoubleArray array;
        private int extraRounds;

        @Override
        public void setup(DsaNode node) {
            extraRounds = node.args().isEmpty() ? 0 : Integer.parseInt(node.args().get(0));
            array = (SharedDoubleArray) node.createSharedArray(
                    ArraySpec.oneDimensional("pushed", ElementType.DOUBLE, 2 * ELEMENTS, ELEMENTS, Distribution.BLOCK));
        }

        static double value(int epoch, int partition, int i) { return epoch * 1_000_000.0 + partition * 1_000.0 + i; }

        @Override
        public void work(DsaWorker w) {
            int mine = w.threadId();
            int other = 1 - mine;
            double sum = 0;
            for (int e = 0; e < EPOCHS; e++) {
                for (int i = 0; i < ELEMENTS; i++) array.write(mine * ELEMENTS + i, value(e, mine, i));
                w.barrier();
                for (int i = 0; i < ELEMENTS; i++) {
                    double v = array.read(other * ELEMENTS + i);
                    if (v != value(e, other, i)) {
                        throw new DsaException("epoch " + e + ": element " + (other * ELEMENTS + i) + " = " + v + ", expected "
                                + value(e, other, i));
                    }
                    sum += v;
                }
                sum = w.allReduce(sum, ReduceOp.SUM);   // nobody writes the next epoch before both have read this one
                for (int k = 0; k < extraRounds; k++) w.barrier();
            }
            if (mine == 0) w.node().report("read " + EPOCHS + " epochs, sum " + sum);
        }
    }
}
