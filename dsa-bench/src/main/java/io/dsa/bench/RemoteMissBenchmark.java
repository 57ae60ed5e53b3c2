package io.dsa.bench;

import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.SharedDoubleArray;
import io.dsa.agent.DsaCluster;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.transport.TransportSecurity;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A remote read miss: node 1 reads a whole partition homed at node 0 that node 0 has just
 * written (so node 1's copy was invalidated): GET_S to the home, DATA_S back, over loopback TCP
 * between two agents in this JVM. The invalidation happens in the per-invocation setup, outside
 * the measured time. {@link ThinNettyRoundTripBenchmark} is the baseline of the same bytes.
 *
 * <pre>java -jar dsa-bench/target/benchmarks.jar "RemoteMiss|ThinNetty" -prof gc</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RemoteMissBenchmark {
    /** Partition bytes: 8 KiB (32x32 doubles) and 128 KiB (128x128 doubles). */
    @Param({"8192", "131072"})
    int bytes;

    /** How the connection is protected: ENCRYPT (AES-GCM, the default) or MAC; MAC leaves the runtime's own allocation. */
    @Param({"ENCRYPT", "MAC"})
    TransportSecurity security;

    private DsaCluster cluster;
    private SharedDoubleArray atHome;
    private SharedDoubleArray atReader;
    private double[] buffer;
    private double value;

    /** Hands each node's array to the benchmark thread. */
    public static final class Capture implements DsaProgram {
        static final AtomicReferenceArray<SharedDoubleArray> ARRAYS = new AtomicReferenceArray<>(2);
        static volatile int side;

        @Override
        public void setup(DsaNode node) {
            // two partitions in a row: BLOCK puts partition 0 at node 0 and partition 1 at node 1
            ARRAYS.set(node.network().nodeId(), node.createSharedDoubleArray("A", side, 2 * side, side));
        }

        @Override
        public void work(DsaWorker worker) {}
    }

    @Setup(Level.Trial)
    public void setUp() {
        int side = (int) Math.sqrt(bytes / 8.0);
        Capture.side = side;
        cluster = DsaCluster.local(DsaConfig.builder().nodes(2).threadsPerNode(1).transportSecurity(security).build());
        cluster.run(new Capture());
        atHome = Capture.ARRAYS.get(0);
        atReader = Capture.ARRAYS.get(1);
        if (atHome.homeOf(0) != 0) throw new IllegalStateException("partition 0 is not homed at node 0");
        buffer = new double[side * side];
    }

    /** The home writes, which invalidates the reader's copy: the next read is a miss. */
    @Setup(Level.Invocation)
    public void invalidate() {
        atHome.write(0, 0, ++value);
    }

    @Benchmark
    public double readMiss() {
        atReader.readPartition(0, buffer);
        return buffer[0];
    }

    @TearDown(Level.Trial)
    public void tearDown() { cluster.close(); }
}
