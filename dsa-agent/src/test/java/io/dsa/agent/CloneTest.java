package io.dsa.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.CacheState;
import io.dsa.DsaException;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.SharedDoubleArray;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Cloning: a new node from a copy of an agent's partitions, held as shared copies the homes know about. */
@Timeout(60)
class CloneTest {
    /** Says so in the report: a fault test prints its seed, or that it has none. */
    @org.junit.jupiter.api.BeforeAll
    static void sayThereIsNoSeed() {
        System.out.println("CloneTest: no randomness (the clones are taken at chosen points)");
    }


    /** Every iteration each thread writes its 8 elements {@code t * 100 + i} and reads its right neighbour's first one. */
    public static final class Sweep implements DsaProgram {
        private SharedDoubleArray a;
        private int iterations;

        /** For the cluster's per-node instances. */
        public Sweep() {}

        @Override
        public void setup(DsaNode node) {
            iterations = Integer.parseInt(node.args().get(0));
            a = node.createSharedDoubleArray("clone.A", node.network().getGlobalThreadCount() * 8, 8);
        }

        @Override
        public void work(DsaWorker w) {
            int tid = w.threadId();
            int length = (int) a.layout().length();
            for (int t = 0; t < iterations; t++) {
                for (int i = tid * 8; i < tid * 8 + 8; i++) a.write(i, t * 100.0 + i);
                w.barrier();
                double seen = a.read((tid * 8 + 8) % length);
                if (seen != t * 100.0 + (tid * 8 + 8) % length) throw new AssertionError("read " + seen + " at iteration " + t);
                w.barrier();
            }
        }
    }

    private static DsaConfig config(int nodes) {
        return DsaConfig.builder().nodes(nodes).threadsPerNode(2).build();
    }

    @Test
    void aCloneServesReadsAndLaterWritesInvalidateIt() {
        try (DsaCluster cluster = DsaCluster.local(config(2))) {
            cluster.run(new Sweep(), "3");
            CloneReport report = cluster.cloneNode(1, "127.0.0.1");
            assertEquals(2, report.cloneNode());
            DsaAgent clone = cluster.clone(2);
            assertEquals(2, clone.nodeId());
            SharedDoubleArray c = (SharedDoubleArray) clone.array("clone.A");
            // node 1 homes partitions 2 and 3 and caches partition 0 (its thread 3 reads element 0)
            for (int p : new int[] {0, 2, 3}) assertEquals(CacheState.SHARED, c.cacheState(p), "partition " + p);
            assertEquals(CacheState.INVALID, c.cacheState(1));
            assertEquals(3 * 8 * Double.BYTES, report.dataBytes(), report.toString());
            for (int i = 16; i < 32; i++) assertEquals(200.0 + i, c.read(i), "element " + i);
            assertEquals(200.0, c.read(0));
            // the homes know the clone: node 1's own partitions are now SHARED there, so node 1 reads but cannot write without
            // invalidating the clone
            SharedDoubleArray home = (SharedDoubleArray) cluster.agent(1).array("clone.A");
            assertEquals(CacheState.SHARED, home.cacheState(2));
            home.write(17, -1.0);
            assertEquals(CacheState.INVALID, c.cacheState(2), "the home's write invalidated the clone's copy");
            assertEquals(CacheState.SHARED, c.cacheState(3), "other partitions stay valid");
            // a write by node 0 to partition 0 (homed there) invalidates the clone's copy of it too
            SharedDoubleArray n0 = (SharedDoubleArray) cluster.agent(0).array("clone.A");
            n0.write(3, -3.0);
            assertEquals(CacheState.INVALID, c.cacheState(0));
            // the clone reads the new values through the protocol
            assertEquals(-1.0, c.read(17));
            assertEquals(-3.0, c.read(3));
            assertEquals(CacheState.SHARED, c.cacheState(0));
            // partition 1 (homed at node 0, never cached at node 1) was not copied: a miss fetches it
            assertEquals(209.0, c.read(9));
        }
    }

    @ParameterizedTest
    @EnumSource(value = WaitStrategy.class, names = {"ADAPTIVE", "SPIN"})
    void aCloneTakenDuringARunEndsWithTheFinalValues(WaitStrategy wait) throws Exception {
        int iterations = 200;
        // SPIN: the nodes' waiting threads drive their event loops (docs/runtime.md, "SPIN: the waiting thread does the I/O")
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(3).threadsPerNode(2).waitStrategy(wait).build())) {
            CompletableFuture<RunReport> run = CompletableFuture.supplyAsync(() -> cluster.run(new Sweep(), String.valueOf(iterations)));
            while (!cluster.running()) {
                assertTrue(!run.isDone(), "the run ended before it was seen running");
                Thread.onSpinWait();
            }
            CloneReport report = cluster.cloneNode(2, "127.0.0.1");
            assertEquals(3, report.cloneNode());
            run.get(50, TimeUnit.SECONDS);
            SharedDoubleArray c = (SharedDoubleArray) cluster.clone(3).array("clone.A");
            // stale copies would show an older iteration's values: every later write invalidated them
            for (int i = 0; i < 48; i++) assertEquals((iterations - 1) * 100.0 + i, c.read(i), "element " + i + " after " + report);
        }
    }

    @Test
    void whenACloneLeavesItsHomesForgetItAndWritesGoOn() throws Exception {
        try (DsaCluster cluster = DsaCluster.local(config(2))) {
            cluster.run(new Sweep(), "2");
            cluster.cloneNode(1, "127.0.0.1");
            SharedDoubleArray home = (SharedDoubleArray) cluster.agent(1).array("clone.A");
            assertEquals(CacheState.SHARED, home.cacheState(2), "node 1's partition 2 is shared with the clone");
            cluster.clone(2).close();
            // the write needs the clone's copy gone: the home either completes the invalidation without it or
            // has already dropped it from the sharers; either way the write completes and the entry is the home's again
            CompletableFuture<Void> write = CompletableFuture.runAsync(() -> home.write(17, -1.0));
            write.get(20, TimeUnit.SECONDS);
            assertEquals(-1.0, home.read(17));
            SharedDoubleArray n0 = (SharedDoubleArray) cluster.agent(0).array("clone.A");
            assertEquals(-1.0, n0.read(17), "node 0 reads the write");
            n0.write(16, -2.0);   // partition 2 moves to node 0 exclusively: no clone in the way either
            assertEquals(-2.0, home.read(16));
        }
    }

    @Test
    void aVmWithACloneRefusesMigration() throws Exception {
        try (DsaCluster cluster = DsaCluster.local(config(2))) {
            cluster.cloneNode(1, "127.0.0.1");
            DsaException e = assertThrows(DsaException.class, () -> cluster.migrate(1, "127.0.0.1"));
            assertTrue(e.getMessage().contains("the VM has 1 clone(s) (ids 2..2)"), e.getMessage());
        }
    }

    @Test
    void cloningAnUnknownNodeIsRefused() {
        try (DsaCluster cluster = DsaCluster.local(config(2))) {
            DsaException e = assertThrows(DsaException.class, () -> cluster.cloneNode(2, "127.0.0.1"));
            assertEquals("node 2 out of range [0, 2)", e.getMessage());
        }
    }
}
