package io.dsa.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.ArraySpec;
import io.dsa.Distribution;
import io.dsa.DsaException;
import io.dsa.DsaLock;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ElementType;
import io.dsa.ReduceOp;
import io.dsa.SharedDoubleArray;
import io.dsa.SharedLong;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every wait strategy runs the operations that wait for the network (misses under false sharing,
 * barriers, collectives, a lock, a shared variable, partition copies in flight, a sequential
 * partition loop) to the same result, and releases every waiter when a worker fails (the test's
 * time-out bounds how promptly).
 */
@Timeout(120)
class WaitStrategyTest {
    static DsaConfig config(WaitStrategy strategy) {
        return DsaConfig.builder().nodes(2).threadsPerNode(2).waitStrategy(strategy).prefetchWindow(3).build();
    }

    @ParameterizedTest
    @EnumSource(WaitStrategy.class)
    void everyWaitingOperationGivesTheSameResult(WaitStrategy strategy) {
        try (DsaCluster cluster = DsaCluster.local(config(strategy))) {
            RunReport report = cluster.run(new Everything());
            assertEquals(List.of("node 0: sum 2080.0, counter 40, copies 16, partitions 2080.0"), report.lines());
        }
        try (DsaCluster cluster = DsaCluster.local(config(strategy))) {
            RunReport report = cluster.run(new FalseSharingTest.PhaseProgram(
                    ArraySpec.of("A", ElementType.DOUBLE, 16, 16, 8, 8, Distribution.BLOCK), 3));
            assertTrue(report.lines().get(0).contains("checked"), report.lines().toString());
        }
    }

    @ParameterizedTest
    @EnumSource(WaitStrategy.class)
    void aFailingWorkerReleasesWorkersWaitingAtABarrierAndForALock(WaitStrategy strategy) {
        DsaException e = assertThrows(DsaException.class, () -> {
            try (DsaCluster cluster = DsaCluster.local(config(strategy))) {
                cluster.run(new DsaProgram() {
                    SharedDoubleArray a;
                    DsaLock lock;

                    @Override
                    public void setup(DsaNode node) {
                        a = node.createSharedDoubleArray("A", 64, 8);
                        lock = node.createLock("L");
                    }

                    @Override
                    public void work(DsaWorker w) {
                        switch (w.threadId()) {
                            case 0 -> {
                                lock.lock(); // and never unlocks: thread 2 waits for it forever
                                w.barrier();
                            }
                            case 1 -> {
                                a.write(63, 1.0); // a remote miss, then the barrier
                                w.barrier();
                            }
                            case 2 -> lock.lock();
                            default -> throw new IllegalStateException("boom at 3");
                        }
                    }
                });
            }
        });
        assertTrue(e.getMessage().contains("boom at 3"), e.getMessage());
    }

    /** Sums through misses, collectives, a lock and a variable; node 0 reports what every worker agreed on. */
    static final class Everything implements DsaProgram {
        SharedDoubleArray a;
        SharedLong counter;
        DsaLock lock;

        @Override
        public void setup(DsaNode node) {
            a = node.createSharedDoubleArray("A", 1, 64, 4); // 16 partitions of 4, 8 homed per node
            counter = node.createSharedLong("counter", 0);
            lock = node.createLock("L");
        }

        @Override
        public void work(DsaWorker w) throws Exception {
            int threads = w.node().network().getGlobalThreadCount();
            for (int i = w.threadId(); i < 64; i += threads) a.write(i, i + 1); // false sharing: 4 writers per partition
            w.barrier();
            double mine = 0;
            for (int i = 0; i < 64; i++) mine += a.read(i);
            double sum = w.allReduce(mine, ReduceOp.SUM) / threads; // each worker read all 64 elements: 2080
            for (int k = 0; k < 10; k++) {
                lock.lock();
                try {
                    counter.getAndAdd(1);
                } finally {
                    lock.unlock();
                }
            }
            w.barrier();
            List<CompletableFuture<Void>> copies = new ArrayList<>();
            for (int p = 0; p < 16; p++) copies.add(a.requestPartitionCopy(p));
            for (CompletableFuture<Void> f : copies) f.get();
            double partitions = 0;
            double[] buf = new double[4];
            for (int p = 0; p < 16; p++) {
                a.readPartition(p, buf); // a sequential loop: the prefetch window keeps requests in flight
                for (double v : buf) partitions += v;
            }
            double[] agreed = w.allReduce(new double[] {sum, partitions}, ReduceOp.MAX);
            w.barrier();
            if (w.threadId() == 0) {
                w.node().report("sum " + agreed[0] + ", counter " + counter.get() + ", copies " + copies.size()
                        + ", partitions " + agreed[1]);
            }
        }
    }
}
