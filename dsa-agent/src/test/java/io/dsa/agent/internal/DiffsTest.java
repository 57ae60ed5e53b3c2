package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
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
import java.util.List;
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
        arrays.define(4, "A", Specs.toParams(a.spec));
        JobLifecycle job = new JobLifecycle(0, network, text -> {});
        Diffs diffs = new Diffs(0, arrays, network, new PendingCalls(network, job), job, IoThread.CALLER);
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

    private static DiffMessage diff(int partition, long[] runs, int elements) {
        return new DiffMessage(1, 4, partition, runs, new byte[elements * 4]);
    }
}
