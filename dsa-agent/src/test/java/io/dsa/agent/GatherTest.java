package io.dsa.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.ArraySpec;
import io.dsa.ArrayUse;
import io.dsa.Distribution;
import io.dsa.DsaException;
import io.dsa.DsaProgram;
import io.dsa.DsaScope;
import io.dsa.DsaWorker;
import io.dsa.ElementType;
import io.dsa.SharedArray;
import io.dsa.SharedDoubleArray;
import io.dsa.SharedFloatArray;
import io.dsa.SharedIntArray;
import io.dsa.SharedLongArray;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code gather} (Global Arrays' {@code NGA_Gather}) of every element type, on two nodes: it
 * returns what element reads return, for indices in any order, repeated, across partitions homed
 * at either node (misses), across more partitions than one call checks at once, after the other
 * node rewrote them (the copies were invalidated), inside a release scope (this node's buffered
 * writes) and refused in an owner-computes one; bad arguments are refused before anything is
 * written; a gather from valid copies on a worker allocates nothing. The random indices and values
 * are seeded; the seed is printed and {@code -Ddsa.test.seed} replays it.
 */
@Timeout(120)
class GatherTest {
    private static final int ROWS = 37;
    private static final int COLS = 53;
    private static final int ROUNDS = 12;

    private static long seed(String what) {
        long seed = Long.getLong("dsa.test.seed", System.nanoTime());
        System.out.println("GatherTest " + what + ": seed " + seed + " (replay with -Ddsa.test.seed=" + seed + ")");
        return seed;
    }

    @ParameterizedTest
    @EnumSource(value = ElementType.class, names = {"DOUBLE", "FLOAT", "INT", "LONG"})
    void gathersWhatElementReadsReturnForEveryElementType(ElementType type) {
        long seed = seed(type.toString());
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(2).threadsPerNode(1).build())) {
            cluster.run(new DsaProgram() {
                @Override
                public void work(DsaWorker w) {
                    // 5 x 4 = 20 partitions (more than one call checks at once), a ragged last column, half homed remotely;
                    // and a 1-D vector of two partitions of 700 (NPB CG class S's p)
                    SharedArray grid = w.node().createSharedArray(ArraySpec.of("g", type, ROWS, COLS, 8, 16, Distribution.BLOCK_CYCLIC));
                    SharedArray vector = w.node().createSharedArray(ArraySpec.oneDimensional("v", type, 1400, 700, Distribution.BLOCK));
                    SplittableRandom random = new SplittableRandom(seed);   // the same draws on both nodes
                    for (int round = 0; round < ROUNDS; round++) {
                        for (SharedArray a : new SharedArray[] {grid, vector}) {
                            int length = (int) a.layout().length();
                            long[] model = new long[length];
                            for (int i = 0; i < length; i++) model[i] = random.nextInt(1 << 20) - (1 << 19);
                            // each round the other node writes: every copy of the previous round is invalidated
                            if (round % 2 == w.nodeId()) {
                                for (int i = 0; i < length; i++) write(a, i, model[i]);
                            }
                            w.barrier();
                            int[] indices = new int[1 + random.nextInt(3 * length)];
                            for (int k = 0; k < indices.length; k++) indices[k] = random.nextInt(length);
                            if (round % 3 == 2) Arrays.sort(indices);   // runs of one partition, as a sweep gathers
                            int from = random.nextInt(Math.min(5, indices.length));
                            int count = random.nextInt(indices.length - from + 1);
                            int offset = random.nextInt(4);
                            long[] got = gather(a, indices, from, count, offset + count + 3, offset);
                            for (int k = 0; k < count; k++) {
                                long expected = model[indices[from + k]];
                                if (got[offset + k] != expected) {
                                    throw new AssertionError(type + " seed " + seed + " round " + round + " array " + a.name() + ": element "
                                            + indices[from + k] + " gathered as " + got[offset + k] + ", expected " + expected);
                                }
                                if (read(a, indices[from + k]) != expected) throw new AssertionError("element read disagrees, seed " + seed);
                            }
                            for (int k = 0; k < offset; k++) if (got[k] != -7) throw new AssertionError("wrote before dstOffset");
                            for (int k = offset + count; k < got.length; k++) if (got[k] != -7) throw new AssertionError("wrote past count");
                            w.barrier();
                        }
                    }
                }
            });
        }
    }

    @Test
    void insideScopesAGatherReadsAsElementReadsDo() {
        AtomicReference<String> refused = new AtomicReference<>();
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(2).threadsPerNode(1).build())) {
            cluster.run(new DsaProgram() {
                @Override
                public void work(DsaWorker w) {
                    SharedDoubleArray a = w.node().createSharedDoubleArray("s", 64, 16);
                    if (w.threadId() == 0) for (int i = 0; i < 64; i++) a.write(i, i);
                    w.barrier();
                    int[] all = new int[64];
                    for (int i = 0; i < 64; i++) all[i] = 63 - i;
                    double[] got = new double[64];
                    try (DsaScope scope = w.scope(ArrayUse.readCache(a))) {
                        a.gather(all, got);
                        for (int k = 0; k < 64; k++) assertEquals(63 - k, got[k], "read cache, element " + all[k]);
                    }
                    w.barrier();
                    try (DsaScope scope = w.scope(ArrayUse.release(a))) {
                        // each node writes its own elements (16 apart), buffered, and gathers them back with the rest
                        for (int i = w.nodeId(); i < 64; i += 16) a.write(i, 1000 + i);
                        a.gather(all, got);
                        for (int k = 0; k < 64; k++) {
                            int i = all[k];
                            double expected = i % 16 == w.nodeId() ? 1000 + i : i;
                            assertEquals(expected, got[k], "release scope at node " + w.nodeId() + ", element " + i);
                        }
                    }
                    a.gather(all, got);   // after the scope: both nodes' diffs are at the homes
                    for (int k = 0; k < 64; k++) {
                        int i = all[k];
                        assertEquals(i % 16 <= 1 ? 1000 + i : i, got[k], "after the release scope, element " + i);
                    }
                    w.barrier();
                    try (DsaScope scope = w.scope(ArrayUse.ownerComputes(a))) {
                        IllegalStateException e = assertThrows(IllegalStateException.class, () -> a.gather(all, got));
                        if (w.threadId() == 0) refused.set(e.getMessage());
                    }
                }
            });
        }
        assertTrue(refused.get().contains("owner-computes"), refused.get());
    }

    @Test
    void badArgumentsAreRefusedBeforeAnythingIsWritten() {
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(1).threadsPerNode(1).build())) {
            cluster.run(new DsaProgram() {
                @Override
                public void work(DsaWorker w) {
                    SharedLongArray a = w.node().createSharedLongArray("b", 37, 53, 8);
                    long[] dst = new long[4];
                    Arrays.fill(dst, -7);
                    IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class,
                            () -> a.gather(new int[] {0, 5, 1961, 2}, dst));
                    assertEquals("gather: indices[2] = 1961 out of range [0, 1961) of array 'b'", e.getMessage());
                    e = assertThrows(IndexOutOfBoundsException.class, () -> a.gather(new int[] {3, -1}, dst));
                    assertTrue(e.getMessage().contains("indices[1] = -1 out of range [0, 1961)"), e.getMessage());
                    e = assertThrows(IndexOutOfBoundsException.class, () -> a.gather(new int[] {1, 2, 3}, 2, 2, dst, 0));
                    assertTrue(e.getMessage().contains("valid from: 0 to 1"), e.getMessage());
                    e = assertThrows(IndexOutOfBoundsException.class, () -> a.gather(new int[] {1, 2, 3}, 0, 3, dst, 2));
                    assertTrue(e.getMessage().contains("4-element destination (valid offsets: 0 to 1)"), e.getMessage());
                    IllegalArgumentException n = assertThrows(IllegalArgumentException.class,
                            () -> a.gather(new int[] {1}, 0, -1, dst, 0));
                    assertTrue(n.getMessage().contains("count -1"), n.getMessage());
                    for (long v : dst) assertEquals(-7, v, "a refused gather wrote into the destination");
                }
            });
        }
    }

    @Test
    void aGatherFromValidCopiesOnAWorkerDoesNotAllocate() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long[] allocated = new long[1];
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(1).threadsPerNode(1).build())) {
            cluster.run(new DsaProgram() {
                @Override
                public void work(DsaWorker w) {
                    SharedDoubleArray a = w.node().createSharedDoubleArray("h", 1400, 700);
                    for (int i = 0; i < 1400; i++) a.write(i, i);
                    int[] indices = new SplittableRandom(1).ints(1000, 0, 1400).toArray();
                    double[] dst = new double[1000];
                    double sum = 0;
                    for (int round = 0; round < 3000; round++) { a.gather(indices, dst); sum += dst[round % 1000]; }   // warm up
                    long before = threads.getCurrentThreadAllocatedBytes();
                    for (int round = 0; round < 1000; round++) { a.gather(indices, dst); sum += dst[round % 1000]; }
                    allocated[0] = threads.getCurrentThreadAllocatedBytes() - before;
                    if (sum < 0) throw new DsaException("unreachable: " + sum);
                }
            });
        }
        // a million elements: a per-call or per-element object would show as at least 16 KB or 16 MB
        assertTrue(allocated[0] < 8 * 1024, allocated[0] + " bytes allocated by 1000 gathers of 1000 elements");
    }

    private static void write(SharedArray a, int index, long value) {
        if (a instanceof SharedDoubleArray d) d.write(index, value);
        else if (a instanceof SharedFloatArray f) f.write(index, value);
        else if (a instanceof SharedIntArray i) i.write(index, (int) value);
        else ((SharedLongArray) a).write(index, value);
    }

    private static long read(SharedArray a, int index) {
        if (a instanceof SharedDoubleArray d) return (long) d.read(index);
        if (a instanceof SharedFloatArray f) return (long) f.read(index);
        if (a instanceof SharedIntArray i) return i.read(index);
        return ((SharedLongArray) a).read(index);
    }

    // gathers into a destination of dstLength elements filled with -7, converted to long
    private static long[] gather(SharedArray a, int[] indices, int from, int count, int dstLength, int dstOffset) {
        long[] out = new long[dstLength];
        if (a instanceof SharedDoubleArray d) {
            double[] dst = new double[dstLength];
            Arrays.fill(dst, -7);
            d.gather(indices, from, count, dst, dstOffset);
            for (int i = 0; i < dstLength; i++) out[i] = (long) dst[i];
        } else if (a instanceof SharedFloatArray f) {
            float[] dst = new float[dstLength];
            Arrays.fill(dst, -7);
            f.gather(indices, from, count, dst, dstOffset);
            for (int i = 0; i < dstLength; i++) out[i] = (long) dst[i];
        } else if (a instanceof SharedIntArray i) {
            int[] dst = new int[dstLength];
            Arrays.fill(dst, -7);
            i.gather(indices, from, count, dst, dstOffset);
            for (int k = 0; k < dstLength; k++) out[k] = dst[k];
        } else {
            long[] dst = new long[dstLength];
            Arrays.fill(dst, -7);
            ((SharedLongArray) a).gather(indices, from, count, dst, dstOffset);
            System.arraycopy(dst, 0, out, 0, dstLength);
        }
        return out;
    }
}
