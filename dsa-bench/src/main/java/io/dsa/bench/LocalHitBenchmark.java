package io.dsa.bench;

import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.SharedDoubleArray;
import io.dsa.agent.DsaCluster;
import io.dsa.agent.DsaConfig;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Element reads and writes that hit a valid local partition, beside the same access pattern on a
 * plain {@code double[]} in the same run. Run with {@code -prof gc} to see the allocation rate.
 *
 * <p>{@code partitionSize} 64 takes the shift-and-mask index path (power-of-two partitions); 48
 * the reciprocal one (any other size). {@code sharedGather}/{@code plainGather} are a sparse
 * matrix-vector product's inner loop, as in NPB CG: a 1-D vector of {@value #VECTOR} doubles in
 * partitions of {@code VECTOR / 2} (not a power of two), read at {@value #GATHER} random
 * positions; figures are per element. {@code sharedGatherCall} is the same loop with the vector's
 * elements taken by one {@code gather} call first (each partition checked once per call, not once
 * per element). {@code sharedScatter}/{@code sharedScatterCall}/{@code plainScatter} write the
 * weights to the same positions, element by element, in one {@code scatter} call, and on the plain
 * array. {@code sharedRegionRead}/{@code sharedRegionWrite} copy the
 * whole array in one region access, beside {@code System.arraycopy} a row at a time on the plain
 * array; figures are per element. {@code sharedGatherMissesSeen} is {@code sharedGather} in a JVM
 * whose profile has seen read misses ({@link MissesSeen}), as in a program whose loops miss now and
 * then (CG on two nodes misses once per step); {@code sharedGatherCallMissesSeen} the same for
 * {@code sharedGatherCall}. {@code hitCounts} false runs every benchmark in a VM that does not
 * count hits ({@code DsaConfig.hitCounts}).
 *
 * <pre>java -jar dsa-bench/target/benchmarks.jar LocalHit -prof gc</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LocalHitBenchmark {
    @Param({"64", "48"})
    int partitionSize;

    /** {@code DsaConfig.hitCounts}: whether each hit increments its counter ({@code -p hitCounts=true,false} to compare). */
    @Param({"true"})
    boolean hitCounts;

    /** Length of the gathered vector: NPB CG class S's {@code na}, two partitions of 700. */
    static final int VECTOR = 1400;
    /** Elements read per gather. */
    static final int GATHER = 4096;
    private SharedDoubleArray vector;
    private double[] plainVector;
    private final int[] columns = new int[GATHER];
    private final double[] weights = new double[GATHER];
    private final double[] gathered = new double[GATHER];

    private static final int N = 256;
    /** Partitions of the array whose first reads {@link MissesSeen} makes. */
    static final int COLD_PARTITIONS = 512;
    private DsaCluster cluster;
    private SharedDoubleArray shared;
    private double[] plain;
    /** A region's buffer: the whole array, row-major. */
    private final double[] region = new double[N * N];
    private int i;

    /** Captures the array a one-node VM creates, so the benchmark thread can hit it. */
    public static final class Capture implements DsaProgram {
        static volatile SharedDoubleArray array;
        final int partition;

        public Capture() { this(64); }

        Capture(int partition) { this.partition = partition; }

        @Override
        public void setup(DsaNode node) {
            array = node.createSharedDoubleArray("A", N, N, partition);
            vector = node.createSharedDoubleArray("v", VECTOR, VECTOR / 2);
            cold = node.createSharedDoubleArray("cold", COLD_PARTITIONS * 8, 8);
        }

        /** {@value #COLD_PARTITIONS} partitions nobody touched: each first read misses ({@link MissesSeen}). */
        static volatile SharedDoubleArray cold;

        static volatile SharedDoubleArray vector;

        @Override
        public void work(DsaWorker worker) {}
    }

    @Setup(Level.Trial)
    public void setUp() {
        cluster = DsaCluster.local(DsaConfig.builder().nodes(1).threadsPerNode(1).hitCounts(hitCounts).build());
        cluster.run(new Capture(partitionSize));
        shared = Capture.array;
        plain = new double[N * N];
        vector = Capture.vector;
        plainVector = new double[VECTOR];
        java.util.SplittableRandom random = new java.util.SplittableRandom(42);
        for (int k = 0; k < VECTOR; k++) {
            vector.write(k, k);   // materialises both partitions: the reads below are hits
            plainVector[k] = k;
        }
        for (int k = 0; k < GATHER; k++) {
            columns[k] = random.nextInt(VECTOR);
            weights[k] = random.nextDouble();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() { cluster.close(); }

    @Benchmark
    public double sharedRead() {
        int k = i++;
        return shared.read(k & (N - 1), (k >> 8) & (N - 1));
    }

    @Benchmark
    public double plainRead() {
        int k = i++;
        return plain[(k & (N - 1)) * N + ((k >> 8) & (N - 1))];
    }

    @Benchmark
    public void sharedWrite() {
        int k = i++;
        shared.write(k & (N - 1), (k >> 8) & (N - 1), k);
    }

    @Benchmark
    public void plainWrite() {
        int k = i++;
        plain[(k & (N - 1)) * N + ((k >> 8) & (N - 1))] = k;
    }

    /** The whole {@code N x N} array as one region read (every partition a local hit), per element. */
    @Benchmark
    @OperationsPerInvocation(N * N)
    public double[] sharedRegionRead() {
        shared.read(0, 0, N, N, region);
        return region;
    }

    /** The same copy from a plain row-major {@code double[]}, a row at a time. */
    @Benchmark
    @OperationsPerInvocation(N * N)
    public double[] plainRegionRead() {
        for (int r = 0; r < N; r++) System.arraycopy(plain, r * N, region, r * N, N);
        return region;
    }

    /** The whole array as one region write (this node owns every partition), per element. */
    @Benchmark
    @OperationsPerInvocation(N * N)
    public void sharedRegionWrite() {
        shared.write(0, 0, N, N, region);
    }

    /** The same copy into a plain row-major {@code double[]}, a row at a time. */
    @Benchmark
    @OperationsPerInvocation(N * N)
    public void plainRegionWrite() {
        for (int r = 0; r < N; r++) System.arraycopy(region, r * N, plain, r * N, N);
    }

    /**
     * Before the measurement, reads the first element of {@value #COLD_PARTITIONS} untouched
     * partitions: each read misses (the partition gets its bytes on first use), so the read's
     * profile has seen its miss branch taken and the JIT compiles the miss call into the gather
     * loop instead of a trap (docs/runtime.md, "A miss in the loop").
     */
    @State(Scope.Thread)
    public static class MissesSeen {
        /** @param b the benchmark's own state, named so that JMH sets it up (and its VM's arrays) first */
        @Setup(Level.Trial)
        public void touch(LocalHitBenchmark b) {
            double sum = 0;
            for (int k = 0; k < COLD_PARTITIONS; k++) sum += Capture.cold.read(k * 8);
            if (sum != 0) throw new IllegalStateException("untouched partitions read " + sum + ", not zeros");
        }
    }

    /** {@link #sharedGather} after read misses were seen ({@link MissesSeen}); runs in its own fork like every benchmark. */
    @Benchmark
    @OperationsPerInvocation(GATHER)
    public double sharedGatherMissesSeen(MissesSeen seen) {
        return sharedGather();
    }

    @Benchmark
    @OperationsPerInvocation(GATHER)
    public double sharedGather() {
        double sum = 0;
        for (int k = 0; k < GATHER; k++) sum += weights[k] * vector.read(columns[k]);
        return sum;
    }

    /** {@link #sharedGatherCall} after read misses were seen ({@link MissesSeen}): the call's own loop has no miss path in it. */
    @Benchmark
    @OperationsPerInvocation(GATHER)
    public double sharedGatherCallMissesSeen(MissesSeen seen) {
        return sharedGatherCall();
    }

    @Benchmark
    @OperationsPerInvocation(GATHER)
    public double sharedGatherCall() {
        vector.gather(columns, gathered);
        double sum = 0;
        for (int k = 0; k < GATHER; k++) sum += weights[k] * gathered[k];
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(GATHER)
    public void sharedScatter() {
        for (int k = 0; k < GATHER; k++) vector.write(columns[k], weights[k]);
    }

    @Benchmark
    @OperationsPerInvocation(GATHER)
    public void sharedScatterCall() {
        vector.scatter(columns, weights);
    }

    @Benchmark
    @OperationsPerInvocation(GATHER)
    public void plainScatter() {
        for (int k = 0; k < GATHER; k++) plainVector[columns[k]] = weights[k];
    }

    @Benchmark
    @OperationsPerInvocation(GATHER)
    public double plainGather() {
        double sum = 0;
        for (int k = 0; k < GATHER; k++) sum += weights[k] * plainVector[columns[k]];
        return sum;
    }
}
