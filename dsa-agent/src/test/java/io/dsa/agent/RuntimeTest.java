package io.dsa.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.CacheState;
import io.dsa.DsaBarrier;
import io.dsa.DsaException;
import io.dsa.DsaLock;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ReduceOp;
import io.dsa.SharedDouble;
import io.dsa.SharedDoubleArray;
import io.dsa.SharedInteger;
import io.dsa.SharedLong;
import io.dsa.SharedLongArray;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** System tests of one VM of real agents over loopback inside this JVM. */
@Timeout(60)
class RuntimeTest {

    private static RunReport run(int nodes, int threads, DsaProgram program, String... args) {
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(nodes).threadsPerNode(threads).build())) {
            return cluster.run(program, args);
        }
    }

    @Test
    void mismatchedArrayShapesFailWithBothShapes() {
        DsaException e = assertThrows(DsaException.class, () -> run(2, 1, new DsaProgram() {
            @Override
            public void setup(DsaNode node) {
                int cols = node.network().nodeId() == 0 ? 16 : 8;
                node.createSharedDoubleArray("A", 16, cols, 4);
            }

            @Override
            public void work(DsaWorker w) {}
        }));
        assertTrue(e.getMessage().contains("DOUBLE[16x16]") && e.getMessage().contains("DOUBLE[16x8]"), e.getMessage());
    }

    @Test
    void sameArrayCreatedTwiceIsTheSameArray() {
        run(2, 1, new DsaProgram() {
            @Override
            public void work(DsaWorker w) {
                SharedDoubleArray a = w.node().createSharedDoubleArray("A", 8, 8, 4);
                SharedDoubleArray b = w.node().createSharedDoubleArray("A", 8, 8, 4);
                if (a != b) throw new AssertionError("second create returned another object");
            }
        });
    }

    @Test
    void outOfRangeIndexNamesTheValueAndTheRange() {
        DsaException e = assertThrows(DsaException.class, () -> run(2, 2, new DsaProgram() {
            @Override
            public void work(DsaWorker w) {
                SharedDoubleArray a = w.node().createSharedDoubleArray("A", 1024, 1024, 256);
                if (w.threadId() == 3) a.read(1030, 5);
                w.barrier();
            }
        }));
        assertTrue(e.getMessage().contains("row 1030 out of range [0, 1024) for array 'A'"), e.getMessage());
    }

    @Test
    void aFailingWorkerReleasesEveryoneAndTheFirstFailureIsRethrown() {
        DsaException e = assertThrows(DsaException.class, () -> run(3, 2, new DsaProgram() {
            @Override
            public void work(DsaWorker w) {
                if (w.threadId() == 4) throw new IllegalStateException("boom at 4");
                w.barrier(); // everyone else waits here until the failure releases them
            }
        }));
        assertTrue(e.getMessage().contains("boom at 4"), e.getMessage());
    }

    @Test
    void collectivesAreBitIdenticalAndScansInclusive() {
        Map<Integer, double[]> seen = new ConcurrentHashMap<>();
        run(4, 2, new DsaProgram() {
            @Override
            public void work(DsaWorker w) {
                int t = w.threadId();
                double x = 1.0 / (t + 3);
                double sum = w.allReduce(x, ReduceOp.SUM);
                double max = w.allReduce(x, ReduceOp.MAX);
                long lsum = w.allReduce((long) t, ReduceOp.SUM);
                long scan = w.scan((long) t + 1, ReduceOp.SUM);
                double b = w.broadcast(t * 10.0, 5);
                long xor = w.allReduce(1L << t, ReduceOp.XOR);
                seen.put(t, new double[] {sum, max, lsum, scan, b, xor, w.epoch()});
            }
        });
        assertEquals(8, seen.size());
        double expectedSum = 0;
        for (int t = 0; t < 8; t++) expectedSum += 1.0 / (t + 3);
        for (int t = 0; t < 8; t++) {
            double[] v = seen.get(t);
            assertEquals(Double.doubleToRawLongBits(expectedSum), Double.doubleToRawLongBits(v[0]), "sum bits at " + t);
            assertEquals(1.0 / 3, v[1]);
            assertEquals(28, v[2]);
            assertEquals((t + 1) * (t + 2) / 2, v[3], "inclusive scan at " + t);
            assertEquals(50.0, v[4]);
            assertEquals(255, v[5]);
            assertEquals(6, v[6], "epoch counts the collectives' barriers");
        }
    }

    @Test
    void sharedVariablesAreAtomicAcrossNodes() {
        RunReport r = run(3, 2, new DsaProgram() {
            @Override
            public void work(DsaWorker w) {
                SharedLong counter = w.node().createSharedLong("counter", 0);
                SharedDouble d = w.node().createSharedDouble("d", 0.5);
                SharedInteger cas = w.node().createSharedInteger("cas", 0);
                for (int i = 0; i < 50; i++) counter.getAndAdd(1);
                d.getAndAdd(1.0);
                int wins = 0;
                for (int i = 0; i < 20; i++) {
                    int v = cas.get();
                    if (cas.compareAndSet(v, v + 1)) wins++;
                }
                long totalWins = w.allReduce((long) wins, ReduceOp.SUM);
                if (w.threadId() == 0) {
                    w.node().report("counter=" + counter.get() + " d=" + d.get() + " casWins=" + totalWins
                            + " cas=" + cas.get());
                }
            }
        });
        String line = r.lines().stream().filter(l -> l.contains("counter=")).findFirst().orElseThrow();
        assertTrue(line.contains("counter=300 d=6.5"), line);
        String wins = line.replaceAll(".*casWins=(\\d+) cas=(\\d+).*", "$1 $2");
        String[] parts = wins.split(" ");
        assertEquals(parts[0], parts[1], "every successful compareAndSet is counted exactly once: " + line);
    }

    @Test
    void lockProtectedReadModifyWriteOfAnArrayElementGivesTheExactCount() {
        RunReport r = run(3, 2, new DsaProgram() {
            @Override
            public void work(DsaWorker w) {
                SharedLongArray a = w.node().createSharedLongArray("cell", 4, 4);
                DsaLock lock = w.node().createLock("L");
                for (int i = 0; i < 25; i++) {
                    lock.lock();
                    try {
                        a.write(1, a.read(1) + 1);
                    } finally {
                        lock.unlock();
                    }
                }
                w.barrier();
                if (w.threadId() == 0) w.node().report("count=" + a.read(1));
            }
        });
        assertTrue(r.lines().contains("node 0: count=150"), r.lines().toString());
    }

    @Test
    void groupBarriersAndLocalBarriers() {
        run(2, 3, new DsaProgram() {
            @Override
            public void work(DsaWorker w) {
                // two disjoint groups of 3 (even and odd thread ids) cycle independently
                DsaBarrier group = w.node().createBarrier(w.threadId() % 2 == 0 ? "even" : "odd", 3);
                SharedLongArray rounds = w.node().createSharedLongArray("rounds", 6, 1);
                for (int i = 1; i <= 20; i++) {
                    rounds.write(w.threadId(), i);
                    group.await();
                    for (int t = w.threadId() % 2; t < 6; t += 2) {
                        long other = rounds.read(t);
                        if (other < i) throw new AssertionError("thread " + t + " at round " + other + " < " + i);
                    }
                    group.await();
                }
                w.node().localBarrier().await();
            }
        });
    }

    @Test
    void partitionAndRegionOperationsAndCacheStates() {
        RunReport r = run(2, 1, new DsaProgram() {
            @Override
            public void work(DsaWorker w) {
                SharedDoubleArray a = w.node().createSharedDoubleArray("M", 10, 10, 4); // ragged 4,4,2
                int last = a.layout().partitionCount() - 1;
                if (w.nodeId() == 0) {
                    double[] src = new double[a.layout().partitionElements(last)];
                    for (int i = 0; i < src.length; i++) src[i] = i + 0.5;
                    a.writePartition(last, src);
                    for (int i = 0; i < 10; i++) for (int j = 0; j < 10; j++) if (a.partitionOf(i, j) != last) a.write(i, j, i * 10 + j);
                }
                w.barrier();
                if (w.nodeId() == 1) {
                    double[] region = new double[5 * 6];
                    a.read(3, 2, 5, 6, region);   // crosses four partitions
                    for (int i = 0; i < 5; i++) {
                        for (int j = 0; j < 6; j++) {
                            int row = 3 + i, col = 2 + j;
                            double expected = a.partitionOf(row, col) == last ? Double.NaN : row * 10 + col;
                            if (!Double.isNaN(expected) && region[i * 6 + j] != expected) {
                                throw new AssertionError("region (" + row + "," + col + ") = " + region[i * 6 + j]);
                            }
                        }
                    }
                    double[] back = new double[4];
                    a.readPartition(last, back);
                    if (back[3] != 3.5) throw new AssertionError("partition element 3 = " + back[3]);
                    w.node().report("state " + a.cacheState(last));
                    a.acquirePartition(0).join();
                    w.node().report("after acquire " + a.cacheState(0));
                }
            }
        });
        assertTrue(r.lines().contains("node 1: state SHARED"), r.lines().toString());
        assertTrue(r.lines().contains("node 1: after acquire EXCLUSIVE"), r.lines().toString());
    }

    @Test
    void homeAndRemoteReadsSeeZerosInANewArray() {
        run(3, 1, new DsaProgram() {
            @Override
            public void work(DsaWorker w) {
                SharedDoubleArray a = w.node().createSharedDoubleArray("Z", 9, 9, 3);
                double[] all = new double[81];
                a.read(0, 0, 9, 9, all);
                assertArrayEquals(new double[81], all);
                if (a.cacheState(0) == CacheState.INVALID) throw new AssertionError("read partition 0 is not cached");
            }
        });
    }

    @Test
    void badConfigValuesNameTheRange() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DsaConfig.builder().nodes(0).build());
        assertEquals("nodes 0 out of range [1, 1024]", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> DsaConfig.builder().nodes(2).nodeId(1).build());
        assertTrue(e.getMessage().contains("monitor address"), e.getMessage());
    }
}
