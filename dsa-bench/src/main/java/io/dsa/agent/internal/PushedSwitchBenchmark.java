package io.dsa.agent.internal;

import io.dsa.ArraySpec;
import io.dsa.Distribution;
import io.dsa.ElementType;
import io.dsa.coherence.Access;
import java.nio.DoubleBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The data path of a scope switch that pushes release diffs (docs/consistency.md, "Diffs pushed
 * in the switch"), as one node of two does it in every step of {@code cg-scoped}: its worker
 * writes its block of a vector of {@code 2 x block} doubles into the release buffer with one
 * region write, the switch's last worker encodes the node's payload ({@link PushedDiffs#encode}),
 * node 0 joins the two nodes' payloads into the release's, and the switch's first worker decodes
 * them and writes both blocks into the node's copies ({@link PushedDiffs#decode},
 * {@link PushedDiffs#apply}), then the buffer is cleared for the next release scope. No thread
 * hand-off and no wire codec: only the copies and checks the switch does on its CPU, which a scratch
 * timer put at about 3 us before and 3 us after the round on each node (BENCHMARKS.md, session 38).
 * {@code -prof gc} shows what each switch allocates.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PushedSwitchBenchmark {
    /** Elements of each node's block (700: NPB CG class S on two nodes). */
    @Param({"700"})
    int block;

    private ArrayState here;
    private long[] otherPayload;
    private double[] values;

    @Setup
    public void setUp() {
        ArraySpec spec = ArraySpec.oneDimensional("r", ElementType.DOUBLE, 2 * block, block, Distribution.BLOCK);
        here = new ArrayState(1, spec, 2, 1, 1);
        // node 1 holds its home partition and a read copy of node 0's, as in cg-scoped's read cache of r
        here.slots[1].materialize(block * Double.BYTES);
        here.slots[0].install(new byte[block * Double.BYTES], Access.READ);
        values = new double[block];
        for (int i = 0; i < block; i++) values[i] = 1.0 / (i + 1);
        ArrayState other = new ArrayState(1, spec, 2, 1, 0);
        other.openRelease();
        write(other, 0);
        otherPayload = PushedDiffs.encode(List.of(other));
        here.openRelease();
    }

    // The worker's region write of its block of partition p into the release buffer.
    private void write(ArrayState a, int p) {
        ReleaseBuffer.Part part = a.release.part(p);
        ((DoubleBuffer) part.bulk).put(0, values, 0, block);
        part.markRows(0, block, 1, block);
    }

    /** One switch at node 1: the region write, the encoding, node 0's join, the decoding and the writes into both copies. */
    @Benchmark
    public int pushedSwitch() {
        write(here, 1);
        long[] mine = PushedDiffs.encode(List.of(here));
        long[] release = new long[2 + otherPayload.length + mine.length];
        release[0] = otherPayload.length;
        System.arraycopy(otherPayload, 0, release, 1, otherPayload.length);
        release[1 + otherPayload.length] = mine.length;
        System.arraycopy(mine, 0, release, 2 + otherPayload.length, mine.length);
        var byArray = PushedDiffs.decode(release, id -> here);
        int written = PushedDiffs.apply(here, byArray.get(here.id), null);
        here.patch = null;
        here.closeRelease();
        here.openRelease();
        return written;
    }
}
