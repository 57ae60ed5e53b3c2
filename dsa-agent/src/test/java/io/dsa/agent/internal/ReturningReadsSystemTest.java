package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.ArraySpec;
import io.dsa.CacheState;
import io.dsa.Distribution;
import io.dsa.DsaException;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ElementType;
import io.dsa.ReduceOp;
import io.dsa.SharedDoubleArray;
import io.dsa.agent.DsaCluster;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.RunReport;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Returning reads ({@link DsaConfig#returningReads()}, docs/runtime.md): two nodes; node 0 rewrites
 * its eight partitions every epoch, node 1 then reads them element by element, as CG's product
 * reads {@code p}. From the second epoch on, node 1's first miss (on partition 0, which it missed
 * on before) requests the other seven, which then become SHARED at node 1 before it reads any of
 * them; except in every eighth wave, which requests nothing and forgets. Without the option
 * none of them is requested until it is read. Which epochs requested how many is read from the
 * array's {@link ReturningReads#requested()} before and after node 1's first read of each epoch,
 * and every value read is checked against its epoch's.
 */
@Timeout(120)
class ReturningReadsSystemTest {
    static final int EPOCHS = 20;
    static final int PARTITIONS = 8;
    static final int ELEMENTS = 128;

    @Test
    void aReturningMissRequestsTheOtherPartitionsTheNodeReadBeforeAndEveryEighthWaveForgets() {
        List<Integer> expected = new ArrayList<>();
        for (int e = 1; e < EPOCHS; e++) if (e % 8 != 0) expected.add(e);
        assertEquals(expected, prefetchedEpochs(DsaConfig.builder()), "the epochs whose first miss requested the other seven");
    }

    @Test
    void withoutReturningReadsEachPartitionIsRequestedWhenRead() {
        assertEquals(List.of(), prefetchedEpochs(DsaConfig.builder().returningReads(false)));
    }

    private static List<Integer> prefetchedEpochs(DsaConfig.Builder config) {
        try (DsaCluster cluster = DsaCluster.local(config.nodes(2).threadsPerNode(1).build())) {
            RunReport report = cluster.run(new Rewritten());
            for (String line : report.lines()) {
                int at = line.indexOf("prefetched in epochs [");
                if (at < 0) continue;
                String list = line.substring(at + "prefetched in epochs [".length(), line.indexOf(']', at));
                List<Integer> epochs = new ArrayList<>();
                if (!list.isBlank()) for (String e : list.split(", ")) epochs.add(Integer.parseInt(e));
                return epochs;
            }
            throw new AssertionError("no report of node 1: " + report.lines());
        }
    }

    /** Node 0 writes partitions 0..7 each epoch; node 1 reads one element of partition 0, looks at 1..7, reads them all. */
    public static final class Rewritten implements DsaProgram {
        private SharedDoubleArray array;

        @Override
        public void setup(DsaNode node) {
            array = (SharedDoubleArray) node.createSharedArray(ArraySpec.oneDimensional("rewritten", ElementType.DOUBLE,
                    2 * PARTITIONS * ELEMENTS, ELEMENTS, Distribution.BLOCK));
        }

        static double value(int epoch, int index) { return epoch * 1_000_000.0 + index; }

        @Override
        public void work(DsaWorker w) {
            List<Integer> prefetched = new ArrayList<>();
            for (int e = 0; e < EPOCHS; e++) {
                if (w.nodeId() == 0) {
                    for (int i = 0; i < PARTITIONS * ELEMENTS; i++) array.write(i, value(e, i));
                }
                w.barrier();
                if (w.nodeId() == 1) {
                    ReturningReads marks = ((AbstractSharedArray) array).state.returningReads;
                    long before = marks.requested();
                    check(e, 0);
                    long requested = marks.requested() - before;
                    if (requested == PARTITIONS - 1) {
                        awaitOthers();
                        prefetched.add(e);
                    } else if (requested != 0) {
                        throw new DsaException("epoch " + e + ": the first miss requested " + requested + " partitions, not 0 or "
                                + (PARTITIONS - 1));
                    }
                    for (int i = 0; i < PARTITIONS * ELEMENTS; i++) check(e, i);
                }
                w.allReduce(e, ReduceOp.SUM); // node 0 writes the next epoch once node 1 has read this one
            }
            if (w.nodeId() == 1) w.node().report("prefetched in epochs " + prefetched);
        }

        private void check(int epoch, int index) {
            double v = array.read(index);
            if (v != value(epoch, index)) {
                throw new DsaException("epoch " + epoch + ": element " + index + " = " + v + ", expected " + value(epoch, index));
            }
        }

        // Partitions 1..7, requested by the wave and not read yet this epoch, arrive without a read.
        private void awaitOthers() {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            for (int p = 1; p < PARTITIONS; p++) {
                while (array.cacheState(p) != CacheState.SHARED) {
                    if (System.nanoTime() > deadline) throw new DsaException("partition " + p + " requested but not here after 30 s");
                    Thread.onSpinWait();
                }
            }
        }
    }
}
