package io.dsa.agent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.CacheState;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.SharedDoubleArray;
import java.lang.management.ManagementFactory;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Reads and writes that hit a valid local partition allocate nothing. Measured with the JVM's
 * per-thread allocation counter after warm-up, so boxing or a per-access object would show as
 * at least 16 bytes per access (16 MB over the measured loop); the bound allows for nothing but
 * incidental JVM noise.
 */
@Timeout(120)
class HitPathAllocationTest {
    private static final int ACCESSES = 1_000_000;

    @Test
    void hitsOnALocalPartitionDoNotAllocate() {
        assertNoAllocation("2-D reads and writes of a 64 x 64 array in partitions of 32 x 32",
                w -> w.node().createSharedDoubleArray("A", 64, 64, 32), HitPathAllocationTest::sweep);
    }

    /** A vector's flat reads take their own index path (docs/runtime.md, "A vector's own index path"): both of its ways. */
    @ParameterizedTest(name = "partitions of {0}")
    @ValueSource(ints = {1024, 1000})
    void flatReadsOfAVectorDoNotAllocate(int partition) {
        assertNoAllocation("flat reads of a vector of 4096 in partitions of " + partition,
                w -> w.node().createSharedDoubleArray("v", 1, 4096, partition), HitPathAllocationTest::vectorSweep);
    }

    /**
     * Runs {@code sweep} on a one-node VM's array, after 30 warm-up rounds, and fails if the measured
     * round allocated more than incidental JVM noise.
     */
    private static void assertNoAllocation(String what, Function<DsaWorker, SharedDoubleArray> create,
                                           ToDoubleFunction<SharedDoubleArray> sweep) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long[] allocated = new long[1];
        double[] checksum = new double[1];
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(1).threadsPerNode(1).build())) {
            cluster.run(new DsaProgram() {
                @Override
                public void work(DsaWorker w) {
                    SharedDoubleArray a = create.apply(w);
                    for (int p = 0; p < a.layout().partitionCount(); p++) {
                        if (a.cacheState(p) != CacheState.EXCLUSIVE) throw new AssertionError("home partition " + p + " not exclusive");
                    }
                    double sum = 0;
                    for (int round = 0; round < 30; round++) sum += sweep.applyAsDouble(a); // warm up: let the JIT compile the hit path
                    long before = threads.getCurrentThreadAllocatedBytes();
                    sum += sweep.applyAsDouble(a);
                    allocated[0] = threads.getCurrentThreadAllocatedBytes() - before;
                    checksum[0] = sum;
                }
            });
        }
        assertTrue(allocated[0] < 64 * 1024, allocated[0] + " bytes allocated by " + ACCESSES
                + " hit accesses, " + what + " (checksum " + checksum[0] + ")");
    }

    private static double sweep(SharedDoubleArray a) {
        double sum = 0;
        for (int k = 0; k < ACCESSES / 2; k++) {
            int i = k & 63;
            int j = (k >> 6) & 63;
            a.write(i, j, k);
            sum += a.read(j, i);
        }
        return sum;
    }

    private static double vectorSweep(SharedDoubleArray v) {
        int n = v.layout().cols();
        double sum = 0;
        for (int k = 0; k < ACCESSES; k++) sum += v.read((k * 7) % n);
        return sum;
    }
}
