package io.dsa.bench;

import io.dsa.ArraySpec;
import io.dsa.ArrayUse;
import io.dsa.Distribution;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaScope;
import io.dsa.DsaWorker;
import io.dsa.ElementType;
import io.dsa.SharedDoubleArray;
import io.dsa.agent.DsaCluster;
import io.dsa.agent.DsaConfig;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
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
 * A release scope's own cost on one node (docs/consistency.md, "Release"): the VM's worker opens a
 * release scope over an {@code n x n} double array in bands of {@code rows} full rows, writes a
 * block of {@code n x width} elements into it with one region write (columns {@code [0, width)} of
 * every row: one run per row of every partition, as {@code fft-scoped}'s transpose writes), and
 * closes the scope, which finds the runs, hands the diffs to the node's own I/O thread and waits
 * until they are written into the partitions. One operation is that whole round trip, driven from
 * the benchmark thread through a hand-off to the worker (a scope belongs to its worker thread), so
 * it also holds two thread hand-offs; {@code handOff} measures those alone, an empty task.
 * {@code -prof gc} shows what a scope allocates once its buffers exist (they are kept between
 * scopes over the same array).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ReleaseScopeBenchmark {
    /** Side of the array. */
    @Param({"512"})
    int n;

    /** Rows of a partition. */
    @Param({"64"})
    int rows;

    /** Columns of the block written in each scope. */
    @Param({"256"})
    int width;

    private DsaCluster cluster;
    private CompletableFuture<Void> run;
    private final SynchronousQueue<Runnable> tasks = new SynchronousQueue<>();
    private final SynchronousQueue<Object> done = new SynchronousQueue<>();
    private static final Runnable STOP = () -> { };
    private Writer program;

    /** The VM's one worker: runs the benchmark's tasks one at a time until {@link #STOP}. */
    final class Writer implements DsaProgram {
        SharedDoubleArray array;
        DsaWorker worker;
        double[] block;

        @Override
        public void setup(DsaNode node) {
            array = (SharedDoubleArray) node.createSharedArray(
                    ArraySpec.of("release.bench", ElementType.DOUBLE, n, n, rows, n, Distribution.BLOCK));
        }

        @Override
        public void work(DsaWorker w) {
            worker = w;
            block = new double[n * width];
            for (int i = 0; i < block.length; i++) block[i] = i * 0.5;
            try {
                while (true) {
                    Runnable task = tasks.take();
                    if (task == STOP) return;
                    task.run();
                    done.put(Boolean.TRUE);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        void writeInReleaseScope() {
            try (DsaScope scope = worker.scope(ArrayUse.release(array))) {
                array.write(0, 0, n, width, block);
            }
        }
    }

    /** Starts the one-node VM and waits until its worker takes tasks. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        if (width < 1 || width > n || rows < 1 || rows > n) {
            throw new IllegalArgumentException("width " + width + " and rows " + rows + " must be in [1, " + n + "]");
        }
        cluster = DsaCluster.local(DsaConfig.builder().nodes(1).threadsPerNode(1).build());
        program = new Writer();
        run = CompletableFuture.runAsync(() -> cluster.run(program));
        handOff(() -> { });
    }

    private void handOff(Runnable task) throws InterruptedException {
        while (!tasks.offer(task, 100, TimeUnit.MILLISECONDS)) {
            if (run.isDone()) throw new IllegalStateException("the VM ended: " + run);
        }
        done.take();
    }

    /** Open a release scope, write the block, close it (diffs found, written and answered). */
    @Benchmark
    public void releaseWrite() throws InterruptedException {
        handOff(program::writeInReleaseScope);
    }

    /** The two hand-offs alone: an empty task. */
    @Benchmark
    public void handOff() throws InterruptedException {
        handOff(() -> { });
    }

    /** Stops the worker and the VM. */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        tasks.offer(STOP, 10, TimeUnit.SECONDS);
        try {
            run.get(60, TimeUnit.SECONDS);
        } finally {
            cluster.close();
        }
    }
}
