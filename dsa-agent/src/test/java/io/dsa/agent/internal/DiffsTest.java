package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.ArraySpec;
import io.dsa.Distribution;
import io.dsa.DsaException;
import io.dsa.ElementType;
import io.dsa.agent.wire.DiffMessage;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A release buffer's diffs (runs of written elements and their values), the home's check of a diff
 * from the network, and the guard that keeps buffered writes out of a state image.
 */
@Timeout(10)
class DiffsTest {
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    /** 16 ints in 2 partitions of 8 on 2 nodes: partition 0 at node 0, 1 at node 1; as node 0 sees it. */
    final ArrayState a = new ArrayState(4, ArraySpec.oneDimensional("A", ElementType.INT, 16, 8, Distribution.BLOCK), 2, 1, 0);

    @Test
    void aDiffHoldsTheRunsOfWrittenElementsAndTheirValuesOnly() {
        ReleaseBuffer buffer = new ReleaseBuffer(a);
        ReleaseBuffer.Part part = buffer.part(1);
        for (int e : new int[] {0, 1, 2, 5, 7}) {
            INTS.set(part.values, e * 4, 100 + e);
            part.mark(e);
        }
        buffer.part(0); // made but never written: no diff
        List<ReleaseBuffer.Diff> diffs = buffer.diffs();
        assertEquals(1, diffs.size());
        ReleaseBuffer.Diff d = diffs.get(0);
        assertEquals(1, d.partition());
        assertArrayEquals(new long[] {DiffMessage.run(0, 3), DiffMessage.run(5, 1), DiffMessage.run(7, 1)}, d.runs());
        int[] values = new int[5];
        for (int k = 0; k < 5; k++) values[k] = (int) INTS.get(d.values(), k * 4);
        assertArrayEquals(new int[] {100, 101, 102, 105, 107}, values);
        assertTrue(part.marked(5) && !part.marked(6));
        assertEquals(32, buffer.written(0).values.length, "a partition's buffer has its bytes");
    }

    /**
     * The runs found eight marks at a time ({@link ReleaseBuffer#scan}) are those of a mark-by-mark
     * walk, for partitions of every length from 0 to 80 (ends inside and outside a word) and marks
     * of every density, from a printed seed; and the scattered diffs hold the same runs over the
     * partition's own buffer.
     */
    @Test
    void runsFoundEightMarksAtATimeAreThoseOfAWalkOverEveryMark() {
        long seed = Long.getLong("dsa.test.seed", System.nanoTime());
        System.out.println("DiffsTest runs seed " + seed + " (-Ddsa.test.seed=" + seed + " repeats it)");
        SplittableRandom random = new SplittableRandom(seed);
        for (int elements = 1; elements <= 80; elements++) {
            for (int trial = 0; trial < 30; trial++) {
                ArrayState b = new ArrayState(4, ArraySpec.oneDimensional("B", ElementType.INT, elements, elements, Distribution.BLOCK),
                        1, 1, 0);
                ReleaseBuffer buffer = new ReleaseBuffer(b);
                ReleaseBuffer.Part part = buffer.part(0);
                double density = random.nextDouble();
                int runLength = 1 + random.nextInt(12); // marks come in runs of about this length, as rows of a region do
                boolean[] marked = new boolean[elements];
                for (int e = 0; e < elements; ) {
                    boolean on = random.nextDouble() < density;
                    int len = 1 + random.nextInt(runLength);
                    for (int k = e; k < Math.min(elements, e + len); k++) marked[k] = on;
                    e += len;
                }
                for (int e = 0; e < elements; e++) {
                    if (!marked[e]) continue;
                    INTS.set(part.values, e * 4, 1000 + e);
                    part.mark(e);
                }
                List<Long> expected = new ArrayList<>();
                for (int e = 0; e < elements; e++) {
                    if (!marked[e] || (e > 0 && marked[e - 1])) continue;
                    int end = e;
                    while (end < elements && marked[end]) end++;
                    expected.add(DiffMessage.run(e, end - e));
                }
                String where = "seed " + seed + ", " + elements + " elements, trial " + trial;
                List<ReleaseBuffer.Diff> packed = buffer.diffs();
                List<ReleaseBuffer.Diff> scattered = buffer.scatteredDiffs();
                if (expected.isEmpty()) {
                    assertEquals(List.of(), packed, where);
                    assertEquals(List.of(), scattered, where);
                    continue;
                }
                long[] runs = expected.stream().mapToLong(Long::longValue).toArray();
                assertArrayEquals(runs, packed.get(0).runs(), where);
                assertArrayEquals(runs, scattered.get(0).runs(), where);
                assertFalse(packed.get(0).scattered(), where);
                assertTrue(scattered.get(0).scattered(), where);
                assertSame(part.values, scattered.get(0).values(), where + ": the scattered diff's values are the buffer itself");
                int v = 0;
                for (long run : runs) {
                    for (int k = 0; k < DiffMessage.count(run); k++, v++) {
                        assertEquals(1000 + DiffMessage.first(run) + k, (int) INTS.get(packed.get(0).values(), v * 4), where);
                    }
                }
                assertEquals(v * 4, packed.get(0).values().length, where);
            }
        }
    }

    /** A diff whose values stay in the writer's buffer is written at the home run by run from the runs' own elements. */
    @Test
    void theHomeWritesAScatteredDiffFromEachRunsOwnElements() {
        RecordingNetwork network = new RecordingNetwork(0, 2);
        ArrayDirectory arrays = new ArrayDirectory(0, 2, 2, 1, network, IoThread.CALLER, Workers.waiting(IoThread.CALLER));
        Diffs diffs = homeOfPartition0(network, arrays);
        byte[] partition = new byte[32];
        for (int e = 0; e < 8; e++) INTS.set(partition, e * 4, 50 + e);
        long[] runs = {DiffMessage.run(1, 2), DiffMessage.run(6, 1)};
        DiffMessage m = new DiffMessage(7, 4, 0, DiffMessage.WRITE, runs, partition, 4);
        assertEquals(12, m.packedBytes());
        assertNull(Diffs.check(0, arrays.array(4), m));
        assertTrue(Diffs.check(0, arrays.array(4), new DiffMessage(7, 4, 0, DiffMessage.WRITE, runs, new byte[12], 4))
                .contains("12 bytes of values, expected 32"), "scattered values are the partition's whole buffer");
        assertTrue(Diffs.check(0, arrays.array(4), new DiffMessage(7, 4, 0, DiffMessage.WRITE, runs, new byte[64], 8))
                .contains("scattered values of 8-byte elements, expected 4"));
        diffs.onDiff(1, m);
        assertEquals(List.of("to 1: DiffApplied(7, )"), network.take());
        byte[] data = arrays.array(4).slots[0].data;
        int[] got = new int[8];
        for (int e = 0; e < 8; e++) got[e] = (int) INTS.get(data, e * 4);
        assertArrayEquals(new int[] {0, 51, 52, 0, 0, 0, 56, 0}, got);
    }

    @Test
    void theHomeRefusesADiffThatDoesNotFitWithTheReason() {
        assertNull(Diffs.check(0, a, diff(0, new long[] {DiffMessage.run(0, 2), DiffMessage.run(3, 5)}, 7)));
        String[][] cases = {
            {Diffs.check(0, a, diff(2, new long[] {DiffMessage.run(0, 1)}, 1)), "diff of partition 2 of array 'A': out of range [0, 2)"},
            {Diffs.check(0, a, diff(1, new long[] {DiffMessage.run(0, 1)}, 1)), "node 0 is not its home (node 1 is)"},
            {Diffs.check(0, a, diff(0, new long[] {DiffMessage.run(6, 3)}, 3)), "run of 3 elements from element 6 is out of order or "
                    + "does not fit the partition's 8 elements"},
            {Diffs.check(0, a, diff(0, new long[] {DiffMessage.run(0, 2), DiffMessage.run(2, 1)}, 3)), "from element 2 is out of order"},
            {Diffs.check(0, a, diff(0, new long[] {DiffMessage.run(3, 1), DiffMessage.run(1, 1)}, 2)), "from element 1 is out of order"},
            {Diffs.check(0, a, diff(0, new long[] {DiffMessage.run(1, 0)}, 0)), "run of 0 elements"},
            {Diffs.check(0, a, diff(0, new long[] {DiffMessage.run(-1, 2)}, 2)), "from element -1"},
            {Diffs.check(0, a, diff(0, new long[] {DiffMessage.run(0, 2)}, 3)), "12 bytes of values, expected 8"},
        };
        for (String[] c : cases) assertTrue(c[0] != null && c[0].contains(c[1]), c[0] + " should contain: " + c[1]);
    }

    @Test
    void noStateImageIsTakenWhileAReleaseBufferHoldsWrites() {
        ArrayDirectory arrays = new ArrayDirectory(0, 2, 2, 1, new RecordingNetwork(0, 2), IoThread.CALLER, Workers.waiting(IoThread.CALLER));
        arrays.define(4, "A", Specs.toParams(a.spec));
        ArrayState defined = arrays.array(4);
        defined.release = new ReleaseBuffer(defined);
        DsaException e = assertThrows(DsaException.class, arrays::images);
        assertTrue(e.getMessage().contains("node 0 is not at a safe point: a release or accumulate scope holds buffered updates of array 'A'"),
                e.getMessage());
        defined.release = null;
        assertEquals(1, arrays.images().size());
    }

    /** Node 1's diffs at node 0, the home of partition 0: a bad one is answered with the reason and written nowhere. */
    @Test
    void theHomeAnswersADiffItRefusesWithTheReasonAndWritesTheOthers() {
        RecordingNetwork network = new RecordingNetwork(0, 2);
        ArrayDirectory arrays = new ArrayDirectory(0, 2, 2, 1, network, IoThread.CALLER, Workers.waiting(IoThread.CALLER));
        Diffs diffs = homeOfPartition0(network, arrays);
        byte[] values = new byte[8];
        INTS.set(values, 0, 7);
        INTS.set(values, 4, 9);
        diffs.onDiff(1, new DiffMessage(5, 4, 0, new long[] {DiffMessage.run(6, 3)}, new byte[12]));
        diffs.onDiff(1, new DiffMessage(6, 4, 0, new long[] {DiffMessage.run(1, 2)}, values));
        List<String> sent = network.take();
        assertEquals(List.of("to 1: DiffApplied(5, diff of partition 0 of array 'A': run of 3 elements from element 6 is out of "
                + "order or does not fit the partition's 8 elements (runs increase, do not touch and hold at least one element))",
                "to 1: DiffApplied(6, )"), sent);
        byte[] data = arrays.array(4).slots[0].data;
        assertEquals(List.of(0, 7, 9, 0), List.of((int) INTS.get(data, 0), (int) INTS.get(data, 4), (int) INTS.get(data, 8),
                (int) INTS.get(data, 12)));
    }

    // Node 0 with array A defined, its diffs handled on the caller's thread
    private Diffs homeOfPartition0(RecordingNetwork network, ArrayDirectory arrays) {
        arrays.define(4, "A", Specs.toParams(a.spec));
        JobLifecycle job = new JobLifecycle(0, network, text -> {});
        return new Diffs(0, arrays, network, new PendingCalls(network, job), job, IoThread.CALLER);
    }

    private static DiffMessage diff(int partition, long[] runs, int elements) {
        return new DiffMessage(1, 4, partition, runs, new byte[elements * 4]);
    }
}
