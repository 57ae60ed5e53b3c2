package io.dsa.examples;

import io.dsa.ArraySpec;
import io.dsa.DsaException;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.Distribution;
import io.dsa.ElementType;
import io.dsa.SharedArray;
import io.dsa.SharedDoubleArray;
import io.dsa.SharedIntArray;
import io.dsa.SharedLongArray;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A seeded random data-race-free workload with heavy false sharing, checked against a sequential
 * oracle computed from the same seed. In each phase every element of every array is given at
 * random to one worker thread (or to none: it keeps its value), so workers on different nodes
 * write different elements of the same partitions; each worker writes its elements in a random
 * order and reads each back at once; after a global barrier every worker reads every element of
 * every array and compares with the oracle; another barrier ends the phase. The arrays have
 * several partition shapes, including ragged edges, both distributions and three element types.
 *
 * <p>Arguments: {@code seed phases [corrupt]}. With {@code corrupt} the oracle is deliberately
 * wrong for one element in the last phase (the test that the check can fail). A mismatch fails the
 * job with the seed, phase, array, first mismatching index, the value read and the value expected.
 */
public final class FalseSharingWorkload implements DsaProgram {
    /** One array of the workload, read and written as longs whatever its element type. */
    private record Target(String name, SharedArray array, int rows, int cols) {
        long get(int r, int c) {
            if (array instanceof SharedIntArray a) return a.read(r, c);
            if (array instanceof SharedLongArray a) return a.read(r, c);
            return (long) ((SharedDoubleArray) array).read(r, c);
        }

        void set(int r, int c, long v) {
            if (array instanceof SharedIntArray a) a.write(r, c, (int) v);
            else if (array instanceof SharedLongArray a) a.write(r, c, v);
            else ((SharedDoubleArray) array).write(r, c, v);
        }
    }

    private long seed;
    private int phases;
    private int threads;
    private final List<Target> targets = new ArrayList<>();
    /** owner[phase][array][element]: the thread that writes it in that phase, or -1 */
    private int[][][] owner;
    /** expected[phase][array][element]: the sequential oracle after the phase */
    private long[][][] expected;

    /** Creates the program; {@link #setup(DsaNode)} reads the arguments. */
    public FalseSharingWorkload() {}

    @Override
    public void setup(DsaNode node) {
        List<String> args = node.args();
        if (args.size() < 2 || args.size() > 3 || args.size() == 3 && !args.get(2).equals("corrupt")) {
            throw new DsaException("usage: FalseSharingWorkload seed phases [corrupt]; got " + args);
        }
        seed = Long.parseLong(args.get(0));
        phases = Integer.parseInt(args.get(1));
        if (phases < 1 || phases > 100) throw new DsaException("phases " + phases + " out of range [1, 100]");
        threads = node.network().getGlobalThreadCount();
        // ragged 1-D, ragged 2-D block-cyclic, column strips, and one partition shared by everyone
        targets.add(target(node, ArraySpec.oneDimensional("fs.int1d", ElementType.INT, 1000, 64, Distribution.BLOCK)));
        targets.add(target(node, ArraySpec.of("fs.double2d", ElementType.DOUBLE, 30, 50, 7, 11, Distribution.BLOCK_CYCLIC)));
        targets.add(target(node, ArraySpec.of("fs.long2d", ElementType.LONG, 16, 16, 16, 4, Distribution.BLOCK)));
        targets.add(target(node, ArraySpec.oneDimensional("fs.tiny", ElementType.INT, 24, 24, Distribution.BLOCK)));
        computeOracle(args.size() == 3);
        if (node.network().nodeId() == 0) {
            System.out.println("false-sharing workload: seed " + seed + ", " + phases + " phases, " + threads + " threads");
            System.out.flush();
        }
    }

    private static Target target(DsaNode node, ArraySpec spec) {
        return new Target(spec.name(), node.createSharedArray(spec), spec.rows(), spec.cols());
    }

    /** The sequential run: the same random choices, applied in order, one phase after another. */
    private void computeOracle(boolean corrupt) {
        owner = new int[phases][targets.size()][];
        expected = new long[phases][targets.size()][];
        for (int t = 0; t < targets.size(); t++) {
            int n = targets.get(t).rows() * targets.get(t).cols();
            long[] value = new long[n];
            for (int p = 0; p < phases; p++) {
                Random rnd = new Random(seed * 1_000_003L + p * 101L + t);
                int[] own = new int[n];
                for (int i = 0; i < n; i++) {
                    // a third of the elements keep their value in a phase; the rest go to any thread
                    int o = rnd.nextInt(threads + threads / 2);
                    own[i] = o < threads ? o : -1;
                    if (own[i] >= 0) value[i] = valueOf(p, t, i);
                }
                owner[p][t] = own;
                expected[p][t] = value.clone();
            }
        }
        if (corrupt) expected[phases - 1][0][expected[phases - 1][0].length / 2] ^= 1;
    }

    /** The value written to element {@code i} of array {@code t} in phase {@code p}: exact in an int and a double. */
    private long valueOf(int p, int t, int i) {
        long h = (seed ^ (p * 0x9E3779B97F4A7C15L)) + t * 0xC2B2AE3D27D4EB4FL + i * 0x165667B19E3779F9L;
        h ^= h >>> 29;
        h *= 0xBF58476D1CE4E5B9L;
        h ^= h >>> 32;
        return (int) h;
    }

    @Override
    public void work(DsaWorker worker) {
        int me = worker.threadId();
        for (int p = 0; p < phases; p++) {
            Random order = new Random(seed * 31 + p * 7919L + me);
            for (int t = 0; t < targets.size(); t++) {
                Target target = targets.get(t);
                int[] own = owner[p][t];
                List<Integer> mine = new ArrayList<>();
                for (int i = 0; i < own.length; i++) if (own[i] == me) mine.add(i);
                java.util.Collections.shuffle(mine, order);
                for (int i : mine) {
                    int r = i / target.cols();
                    int c = i % target.cols();
                    long v = valueOf(p, t, i);
                    target.set(r, c, v);
                    long back = target.get(r, c);
                    if (back != v) throw mismatch(p, target, i, back, v, "reading back its own write, thread " + me);
                }
            }
            worker.barrier();
            for (int t = 0; t < targets.size(); t++) {
                Target target = targets.get(t);
                long[] want = expected[p][t];
                for (int i = 0; i < want.length; i++) {
                    long got = target.get(i / target.cols(), i % target.cols());
                    if (got != want[i]) {
                        throw mismatch(p, target, i, got, want[i], "written by thread " + owner[p][t][i] + ", read by thread " + me);
                    }
                }
            }
            worker.barrier();
        }
        if (me == 0) {
            worker.node().report("false-sharing workload seed " + seed + ": " + phases + " phases x " + targets.size()
                    + " arrays verified against the sequential oracle");
        }
    }

    private DsaException mismatch(int phase, Target target, int i, long got, long want, String who) {
        return new DsaException("false-sharing workload seed " + seed + ": phase " + phase + ", array '" + target.name()
                + "': first mismatch at index " + i + " (row " + i / target.cols() + ", col " + i % target.cols()
                + "): read " + got + ", expected " + want + " (" + who + ")");
    }
}
