package io.dsa.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.dsa.ArraySpec;
import io.dsa.Distribution;
import io.dsa.DsaException;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ElementType;
import io.dsa.SharedArray;
import io.dsa.SharedDoubleArray;
import io.dsa.SharedFloatArray;
import io.dsa.SharedIntArray;
import io.dsa.SharedLongArray;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Region and partition copies of every element type, through both copy paths: row segments of at
 * least {@code BULK_MIN} (8) elements go through the bulk view of the partition's bytes, shorter
 * ones element by element. A 37 x 53 array in 8 x 16 partitions has full partitions 16 wide and a
 * ragged last column of partitions 5 wide. On two nodes (half the partitions homed remotely), each
 * worker in turn writes random regions (seeded; the seed is printed), region reads and element
 * reads of the other worker see exactly what a plain model array holds, and every partition read
 * whole and written back whole round-trips. A copy that put a segment at the wrong offset, took
 * the wrong length or another type's byte order fails an equality below.
 */
@Timeout(120)
class RegionCopyTest {
    private static final int ROWS = 37;
    private static final int COLS = 53;
    private static final int ROUNDS = 40;

    @ParameterizedTest
    @EnumSource(value = ElementType.class, names = {"DOUBLE", "FLOAT", "INT", "LONG"})
    void regionsAndPartitionsRoundTripForEveryElementType(ElementType type) {
        long seed = System.nanoTime();
        System.out.println("RegionCopyTest " + type + ": seed " + seed);
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(2).threadsPerNode(1).build())) {
            cluster.run(new DsaProgram() {
                @Override
                public void work(DsaWorker w) {
                    SharedArray a = w.node().createSharedArray(ArraySpec.of("r", type, ROWS, COLS, 8, 16, Distribution.BLOCK_CYCLIC));
                    long[] model = new long[ROWS * COLS];   // every worker draws the same regions: its model is everyone's
                    SplittableRandom random = new SplittableRandom(seed);
                    for (int round = 0; round < ROUNDS; round++) {
                        int row = random.nextInt(ROWS);
                        int col = random.nextInt(COLS);
                        int rows = 1 + random.nextInt(ROWS - row);
                        int cols = 1 + random.nextInt(COLS - col);
                        long[] values = new long[rows * cols];
                        for (int i = 0; i < values.length; i++) values[i] = random.nextInt(1 << 20) - (1 << 19);
                        for (int r = 0; r < rows; r++) System.arraycopy(values, r * cols, model, (row + r) * COLS + col, cols);
                        if (round % 2 == w.nodeId()) write(a, row, col, rows, cols, values);
                        w.barrier();
                        long[] got = read(a, row, col, rows, cols);
                        for (int i = 0; i < got.length; i++) {
                            check(type, seed, round, row + i / cols, col + i % cols, values[i], got[i]);
                        }
                        int r = random.nextInt(ROWS);
                        int c = random.nextInt(COLS);
                        check(type, seed, round, r, c, model[r * COLS + c], element(a, r, c));
                        w.barrier();
                    }
                    // whole partitions: read each, check it against the model, write it back from node (p % 2)
                    for (int p = 0; p < a.layout().partitionCount(); p++) {
                        long[] got = readPartition(a, p);
                        int r0 = a.layout().partitionFirstRow(p);
                        int c0 = a.layout().partitionFirstCol(p);
                        int width = a.layout().partitionCols(p);
                        for (int i = 0; i < got.length; i++) {
                            check(type, seed, -1, r0 + i / width, c0 + i % width, model[(r0 + i / width) * COLS + c0 + i % width], got[i]);
                        }
                        if (p % 2 == w.nodeId()) writePartition(a, p, got);
                    }
                    w.barrier();
                    long[] all = read(a, 0, 0, ROWS, COLS);
                    for (int i = 0; i < all.length; i++) check(type, seed, -2, i / COLS, i % COLS, model[i], all[i]);
                }
            });
        }
    }

    private static void check(ElementType type, long seed, int round, int row, int col, long expected, long got) {
        if (expected != got) {
            throw new DsaException(type + " seed " + seed + " round " + round + ": element (" + row + ", " + col + ") is " + got
                    + ", expected " + expected);
        }
    }

    private static void write(SharedArray a, int row, int col, int rows, int cols, long[] values) {
        if (a instanceof SharedDoubleArray d) {
            d.write(row, col, rows, cols, doubles(values));
        } else if (a instanceof SharedFloatArray f) {
            f.write(row, col, rows, cols, floats(values));
        } else if (a instanceof SharedIntArray n) {
            n.write(row, col, rows, cols, ints(values));
        } else {
            ((SharedLongArray) a).write(row, col, rows, cols, values.clone());
        }
    }

    private static void writePartition(SharedArray a, int p, long[] values) {
        if (a instanceof SharedDoubleArray d) {
            d.writePartition(p, doubles(values));
        } else if (a instanceof SharedFloatArray f) {
            f.writePartition(p, floats(values));
        } else if (a instanceof SharedIntArray n) {
            n.writePartition(p, ints(values));
        } else {
            ((SharedLongArray) a).writePartition(p, values.clone());
        }
    }

    private static long[] read(SharedArray a, int row, int col, int rows, int cols) {
        int length = rows * cols;
        if (a instanceof SharedDoubleArray d) {
            double[] v = new double[length];
            d.read(row, col, rows, cols, v);
            return longs(v);
        } else if (a instanceof SharedFloatArray f) {
            float[] v = new float[length];
            f.read(row, col, rows, cols, v);
            return longs(v);
        } else if (a instanceof SharedIntArray n) {
            int[] v = new int[length];
            n.read(row, col, rows, cols, v);
            return java.util.Arrays.stream(v).asLongStream().toArray();
        }
        long[] v = new long[length];
        ((SharedLongArray) a).read(row, col, rows, cols, v);
        return v;
    }

    private static long[] readPartition(SharedArray a, int p) {
        int length = a.layout().partitionElements(p);
        if (a instanceof SharedDoubleArray d) {
            double[] v = new double[length];
            d.readPartition(p, v);
            return longs(v);
        } else if (a instanceof SharedFloatArray f) {
            float[] v = new float[length];
            f.readPartition(p, v);
            return longs(v);
        } else if (a instanceof SharedIntArray n) {
            int[] v = new int[length];
            n.readPartition(p, v);
            return java.util.Arrays.stream(v).asLongStream().toArray();
        }
        long[] v = new long[length];
        ((SharedLongArray) a).readPartition(p, v);
        return v;
    }

    private static long element(SharedArray a, int row, int col) {
        if (a instanceof SharedDoubleArray d) return (long) d.read(row, col);
        if (a instanceof SharedFloatArray f) return (long) f.read(row, col);
        if (a instanceof SharedIntArray n) return n.read(row, col);
        return ((SharedLongArray) a).read(row, col);
    }

    private static double[] doubles(long[] values) { return java.util.Arrays.stream(values).asDoubleStream().toArray(); }

    private static float[] floats(long[] values) {
        float[] v = new float[values.length];
        for (int i = 0; i < v.length; i++) v[i] = values[i];   // |values| < 2^20: exact in a float
        return v;
    }

    private static int[] ints(long[] values) { return java.util.Arrays.stream(values).mapToInt(x -> (int) x).toArray(); }

    private static long[] longs(double[] v) {
        long[] out = new long[v.length];
        for (int i = 0; i < v.length; i++) out[i] = (long) v[i];
        return out;
    }

    private static long[] longs(float[] v) {
        long[] out = new long[v.length];
        for (int i = 0; i < v.length; i++) out[i] = (long) v[i];
        return out;
    }
}
