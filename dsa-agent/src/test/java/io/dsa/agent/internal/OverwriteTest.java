package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.ArraySpec;
import io.dsa.Distribution;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.SharedArray;
import io.dsa.SharedDoubleArray;
import io.dsa.SharedFloatArray;
import io.dsa.SharedIntArray;
import io.dsa.SharedLongArray;
import io.dsa.agent.Await;
import io.dsa.agent.BarrierKind;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.ProxyMode;
import io.dsa.agent.RunReport;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import io.dsa.ElementType;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Writes that cover whole partitions a node holds no valid copy of ask for them without data
 * (GET_M_OVERWRITE; docs/runtime.md, "Writes that cover a partition"), on whole nodes wired by an
 * {@link InMemoryNetwork}: every coherence message is logged, and every phase is checked by every
 * node reading the whole array back.
 */
@Timeout(60)
class OverwriteTest {
    final InMemoryNetwork network = new InMemoryNetwork();

    private static DsaConfig config(int nodes) {
        return DsaConfig.builder().nodes(nodes).threadsPerNode(1).barrier(BarrierKind.TREE).barrierFanout(2).proxy(ProxyMode.FLOAT)
                .randomSecret().startupTimeoutMs(20_000).build();
    }

    private List<InMemoryNetwork.Sent> run(int nodes, DsaProgram program) {
        network.record(m -> m instanceof CoherenceMessage);
        try (InMemoryVm vm = new InMemoryVm(network, config(nodes))) {
            List<CompletableFuture<RunReport>> runs = Workers.start(0, nodes, i -> JobRunner.run(vm.node(i), program, List.of()));
            for (CompletableFuture<RunReport> r : runs) Workers.result(r, 30);
            return network.recorded();
        }
    }

    /** One node writes a fresh 8x8 array of 4x4 partitions in one region: the other node's partitions come without data. */
    @Test
    void aRegionWriteOfPartitionsHeldNowhereElseTakesThemWithoutData() {
        List<InMemoryNetwork.Sent> log = run(2, new DsaProgram() {
            @Override
            public void work(DsaWorker w) {
                SharedDoubleArray a = w.node().createSharedDoubleArray("A", 8, 8, 4);
                if (w.threadId() == 1) a.write(0, 0, 8, 8, values(8 * 8, 100));
                w.barrier();
                verify(a, values(8 * 8, 100), "after node 1's region write");
            }
        });
        long homedAt0 = log.stream().filter(s -> op(s) == CoherenceOp.GET_M_OVERWRITE).count();
        assertEquals(2, homedAt0, "node 1 asks for node 0's two partitions without data: " + ops(log));
        for (InMemoryNetwork.Sent s : log) {
            CoherenceMessage m = (CoherenceMessage) s.message();
            if (m.op() == CoherenceOp.GET_M || m.op() == CoherenceOp.GET_S && m.source() == 1) {
                throw new AssertionError("node 1 asked with data or for a read: " + m + " in " + ops(log));
            }
            if (m.op() == CoherenceOp.DATA_M) assertNull(m.data(), "an overwrite's grant carries no data: " + m);
        }
    }

    /**
     * For every element type: node 1 writes a fresh 8x12 array of 4x4 partitions in one region and
     * then rewrites node 0's partitions one by one with {@code writePartition} after node 0 read
     * them back (so those are upgrades of shared copies); node 0 checks every element each time.
     * The first write asks for node 0's partitions without data, and the grant writes the worker's
     * bytes of that type ({@link Overwrite#writeInto}).
     */
    @ParameterizedTest
    @EnumSource(value = ElementType.class, names = {"DOUBLE", "FLOAT", "INT", "LONG"})
    void everyElementTypeIsWrittenAtTheGrant(ElementType type) {
        List<InMemoryNetwork.Sent> log = run(2, new DsaProgram() {
            @Override
            public void work(DsaWorker w) {
                SharedArray a = w.node().createSharedArray(ArraySpec.of("T", type, 8, 12, 4, 4, Distribution.BLOCK));
                long[] first = new long[96];
                for (int i = 0; i < first.length; i++) first[i] = 3 * i - 50;
                if (w.threadId() == 1) write(a, -1, first);
                w.barrier();
                check(a, first, "after the region write");
                w.barrier();
                long[] second = first.clone();
                if (w.threadId() == 1) {
                    for (int p = 0; p < a.layout().partitionCount(); p++) {
                        if (a.layout().homeOf(p) != 0) continue;
                        long[] part = new long[16];
                        for (int i = 0; i < 16; i++) part[i] = 1000 * (p + 1) + i;
                        write(a, p, part);
                    }
                }
                for (int p = 0; p < a.layout().partitionCount(); p++) {
                    if (a.layout().homeOf(p) != 0) continue;
                    int r0 = a.layout().partitionFirstRow(p), c0 = a.layout().partitionFirstCol(p);
                    for (int i = 0; i < 16; i++) second[(r0 + i / 4) * 12 + c0 + i % 4] = 1000 * (p + 1) + i;
                }
                w.barrier();
                check(a, second, "after writePartition");
            }
        });
        long overwrites = log.stream().filter(s -> op(s) == CoherenceOp.GET_M_OVERWRITE).count();
        assertEquals(3, overwrites, "node 1 asks for node 0's three partitions without data, once: " + ops(log));
    }

    /** {@code values} into the whole of {@code a} (partition -1) or into partition {@code p}, as {@code a}'s element type. */
    private static void write(SharedArray a, int p, long[] values) {
        int rows = a.layout().rows(), cols = a.layout().cols();
        if (a instanceof SharedDoubleArray d) {
            double[] v = java.util.Arrays.stream(values).asDoubleStream().toArray();
            if (p < 0) d.write(0, 0, rows, cols, v); else d.writePartition(p, v);
        } else if (a instanceof SharedFloatArray f) {
            float[] v = new float[values.length];
            for (int i = 0; i < v.length; i++) v[i] = values[i];
            if (p < 0) f.write(0, 0, rows, cols, v); else f.writePartition(p, v);
        } else if (a instanceof SharedIntArray n) {
            int[] v = java.util.Arrays.stream(values).mapToInt(x -> (int) x).toArray();
            if (p < 0) n.write(0, 0, rows, cols, v); else n.writePartition(p, v);
        } else {
            SharedLongArray l = (SharedLongArray) a;
            if (p < 0) l.write(0, 0, rows, cols, values.clone()); else l.writePartition(p, values.clone());
        }
    }

    private static void check(SharedArray a, long[] expected, String when) {
        int cols = a.layout().cols();
        for (int i = 0; i < expected.length; i++) {
            int r = i / cols, c = i % cols;
            long got = a instanceof SharedDoubleArray d ? (long) d.read(r, c) : a instanceof SharedFloatArray f ? (long) f.read(r, c)
                    : a instanceof SharedIntArray n ? n.read(r, c) : ((SharedLongArray) a).read(r, c);
            if (got != expected[i]) {
                throw new IllegalStateException(when + ": " + a.layout().spec().elementType() + " element (" + r + ", " + c + ") is " + got
                        + ", expected " + expected[i]);
            }
        }
    }

    /**
     * Three nodes, one thread each, on a 12x12 array of 4x4 partitions, each band of four rows homed
     * at one node ({@link Distribution#BLOCK}: partitions 0-2 at node 0, 3-5 at node 1, 6-8 at node
     * 2): overwrites of partitions held nowhere else, upgrades of shared copies (the engine asks an
     * ordinary write: the worker writes its bytes itself), an overwrite that recalls an exclusive
     * owner (FWD_GET_M_OVERWRITE: the owner releases it without data, and none goes to the writer), overwrites that invalidate a
     * sharer ({@code writePartition}), and writes that cover partitions only in part (their data is
     * fetched, the other elements kept). Every node reads everything back after each phase.
     */
    @Test
    void overwritesInvalidateSharersRecallOwnersAndKeepWhatAWriteDoesNotCover() {
        List<InMemoryNetwork.Sent> log = run(3, new DsaProgram() {
            @Override
            public void work(DsaWorker w) {
                int me = w.threadId();
                SharedDoubleArray a = (SharedDoubleArray) w.node().createSharedArray(
                        ArraySpec.of("A", ElementType.DOUBLE, 12, 12, 4, 4, Distribution.BLOCK));
                double[] expected = new double[144];
                // 1: node 0 writes everything (fresh: its requests for the six partitions of nodes 1 and 2 carry no data)
                writeAt(me, 0, a, expected, 0, 0, 12, 12, 1000);
                phase(w, a, expected, "1");
                // 2: node 0 writes rows and columns 2..9: partition 4 (node 1's) whole, eight in part; all upgrades of shared copies
                writeAt(me, 0, a, expected, 2, 2, 8, 8, 2000);
                w.barrier();
                // 3: node 2, invalid there, overwrites partition 4, which node 0 holds exclusive: a recall
                writeAt(me, 2, a, expected, 4, 4, 4, 4, 3000);
                phase(w, a, expected, "3");
                // 4: node 1 rewrites rows 8..11 (node 2's, upgrades), then node 2 reads them: node 1 and node 2 share them
                writeAt(me, 1, a, expected, 8, 0, 4, 12, 4000);
                w.barrier();
                if (me == 2) verify(a, expected, "phase 4 at node 2");
                w.barrier();
                // 5: node 0, invalid on them, overwrites partitions 6..8 one by one: node 1's copies are invalidated
                if (me == 0) {
                    for (int p = 6; p < 9; p++) a.writePartition(p, values(4 * 4, 5000 + 100 * p));
                }
                for (int p = 6; p < 9; p++) apply(expected, 8, 4 * (p - 6), 4, 4, 5000 + 100 * p);
                phase(w, a, expected, "5");
            }
        });
        // per requester and partition, the request under way: each DATA_M answering an overwrite carries no data
        Map<Long, CoherenceOp> underWay = new HashMap<>();
        int overwrites = 0, answered = 0, invalidating = 0, recalling = 0;
        for (InMemoryNetwork.Sent s : log) {
            CoherenceMessage m = (CoherenceMessage) s.message();
            long key = (long) m.requester() << 32 | m.partition();
            switch (m.op()) {
                case GET_S, GET_M, GET_M_OVERWRITE -> {
                    underWay.put(key, m.op());
                    if (m.op() == CoherenceOp.GET_M_OVERWRITE) overwrites++;
                }
                case INV -> invalidating += underWay.get(key) == CoherenceOp.GET_M_OVERWRITE ? 1 : 0;
                case FWD_GET_M -> assertTrue(underWay.get(key) != CoherenceOp.GET_M_OVERWRITE, "an overwrite's recall asks for data: " + m);
                case FWD_GET_M_OVERWRITE -> recalling += underWay.get(key) == CoherenceOp.GET_M_OVERWRITE ? 1 : 0;
                case OWNER_RELEASE -> {
                    if (underWay.get(key) == CoherenceOp.GET_M_OVERWRITE) assertNull(m.data(), "an overwrite's recall carries no data: " + m);
                }
                case DATA_M -> {
                    if (underWay.remove(key) == CoherenceOp.GET_M_OVERWRITE) {
                        answered++;
                        assertNull(m.data(), "the grant of an overwrite carries no data: " + m);
                    }
                }
                default -> { }
            }
        }
        String summary = overwrites + " overwrites, " + answered + " answered, " + invalidating + " invalidations and " + recalling
                + " recalls for them: " + ops(log);
        assertEquals(overwrites, answered, summary);
        assertTrue(overwrites >= 6 && invalidating > 0 && recalling > 0, summary);
    }

    /** Released by the test once the grant of node 1's overwrite is lost on its way. */
    static final java.util.concurrent.CountDownLatch GRANT_HELD = new java.util.concurrent.CountDownLatch(1);

    /**
     * The job fails while a worker waits for the grant of its overwrite (dropped on its way, so it
     * never comes): the worker leaves its region write with the job's failure, naming it, and
     * nothing hangs. Node 1's thread 2 writes node 0's partitions of a fresh array; once the first
     * grant is dropped, node 1's thread 3 throws.
     */
    @Test
    void aJobThatFailsWhileAnOverwriteWaitsForItsGrantEndsNamingTheFailure() throws Exception {
        FaultPlan plan = new FaultPlan(FaultPlan.seed());
        FaultPlan.Rule lost = plan.on("COHERENCE").ops(CoherenceOp.DATA_M).from(0).to(1).times(1).drop();
        DsaConfig config = config(2).toBuilder().threadsPerNode(2).build();
        try (InMemoryVm vm = new InMemoryVm(new InMemoryNetwork(plan), config)) {
            List<CompletableFuture<RunReport>> runs = Workers.start(0, 2, i -> JobRunner.run(vm.node(i), new DsaProgram() {
                @Override
                public void work(DsaWorker w) {
                    SharedDoubleArray a = w.node().createSharedDoubleArray("A", 8, 8, 4);
                    if (w.threadId() == 2) a.write(0, 0, 8, 8, values(8 * 8, 100));
                    if (w.threadId() == 3) {
                        try {
                            GRANT_HELD.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        throw new IllegalStateException("planned failure while the overwrite waits");
                    }
                    w.barrier();
                }
            }, List.of()));
            Await.until("the grant of node 1's overwrite, dropped on its way", 20_000, () -> lost.fired() >= 1);
            GRANT_HELD.countDown();
            for (CompletableFuture<RunReport> r : runs) {
                Throwable failure = Workers.failure(r);
                assertTrue(String.valueOf(failure.getMessage()).contains("planned failure while the overwrite waits"), String.valueOf(failure));
            }
        }
    }

    /** Every node reads the whole array and checks it, then the barrier. */
    private static void phase(DsaWorker w, SharedDoubleArray a, double[] expected, String phase) {
        w.barrier();
        verify(a, expected, "phase " + phase + " at node " + w.threadId());
        w.barrier();
    }

    /** Reads all of the square array {@code a} and checks it equals {@code expected} (row-major). */
    private static void verify(SharedDoubleArray a, double[] expected, String when) {
        int side = a.layout().rows();
        double[] got = new double[side * side];
        a.read(0, 0, side, side, got);
        for (int i = 0; i < got.length; i++) {
            if (got[i] != expected[i]) {
                throw new IllegalStateException(when + ": element (" + i / side + ", " + i % side + ") is " + got[i] + ", expected "
                        + expected[i]);
            }
        }
    }

    /** @return {@code count} values, element i being {@code base + i} (a region's, row-major) */
    private static double[] values(int count, int base) {
        double[] v = new double[count];
        for (int i = 0; i < count; i++) v[i] = base + i;
        return v;
    }

    /**
     * Node {@code writer} (when it is {@code me}) writes {@code values(rows * cols, base)} at
     * {@code (row, col)} of {@code a}; every node records the write in its {@code expected} copy.
     */
    private static void writeAt(int me, int writer, SharedDoubleArray a, double[] expected, int row, int col, int rows, int cols,
                                int base) {
        if (me == writer) a.write(row, col, rows, cols, values(rows * cols, base));
        apply(expected, row, col, rows, cols, base);
    }

    /** What {@code a.write(row, col, rows, cols, values(rows * cols, base))} leaves in a row-major 12x12 copy. */
    private static void apply(double[] expected, int row, int col, int rows, int cols, int base) {
        for (int r = 0; r < rows; r++) for (int c = 0; c < cols; c++) expected[(row + r) * 12 + col + c] = base + r * cols + c;
    }

    private static CoherenceOp op(InMemoryNetwork.Sent s) {
        return ((CoherenceMessage) s.message()).op();
    }

    private static String ops(List<InMemoryNetwork.Sent> log) {
        StringBuilder b = new StringBuilder();
        for (InMemoryNetwork.Sent s : log) b.append("\n  ").append(s.message());
        return b.toString();
    }
}
