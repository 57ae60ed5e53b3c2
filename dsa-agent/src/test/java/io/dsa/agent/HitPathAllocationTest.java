package io.dsa.agent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.CacheState;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.SharedDoubleArray;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

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
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long[] allocated = new long[1];
        double[] checksum = new double[1];
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(1).threadsPerNode(1).build())) {
            cluster.run(new DsaProgram() {
                @Override
                public void work(DsaWorker w) {
                    SharedDoubleArray a = w.node().createSharedDoubleArray("A", 64, 64, 32);
                    if (a.cacheState(0) != CacheState.EXCLUSIVE) throw new AssertionError("home partition not exclusive");
                    double sum = 0;
                    for (int round = 0; round < 30; round++) sum += sweep(a); // warm up: let the JIT compile the hit path
                    long before = threads.getCurrentThreadAllocatedBytes();
                    sum += sweep(a);
                    allocated[0] = threads.getCurrentThreadAllocatedBytes() - before;
                    checksum[0] = sum;
                }
            });
        }
        assertTrue(allocated[0] < 64 * 1024, allocated[0] + " bytes allocated by " + ACCESSES
                + " hit accesses (checksum " + checksum[0] + ")");
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
}
