package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.coherence.Access;
import io.dsa.coherence.CoherenceOp;
import io.dsa.agent.wire.DiffMessage;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The diffs a scope switch pushes in its round ({@link PushedDiffs}), at node 1 of 2 on a
 * recording network (the fixture of {@link ArrayDirectoryTest}: array "A", 8 doubles in two
 * partitions of 4, partition 0 homed at node 0, partition 1 here). The payload's encoding round
 * trip and its refusals; the diffs written into the copies valid at the switch, a home partition
 * never touched included; a copy asked for before the switch and served by a home that had not
 * written the diffs yet, patched when it is installed; and the two seeded bugs, each of which
 * these checks find.
 */
@Timeout(10)
class PushedDiffsTest {
    final ArrayDirectoryTest fixture = new ArrayDirectoryTest();
    final ArrayDirectory arrays = fixture.arrays;

    /** The 32 bytes of doubles {@code values}. */
    static byte[] doubles(double... values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * Double.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (double v : values) b.putDouble(v);
        return b.array();
    }

    static double element(byte[] data, int e) {
        return ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN).getDouble(e * Double.BYTES);
    }

    /** A release diff of partition {@code p} of array A writing {@code values} from element {@code first}. */
    static PushedDiffs.Pushed diff(int p, int first, double... values) {
        return PushedDiffs.Pushed.of(p, new long[] {DiffMessage.run(first, values.length)}, doubles(values));
    }

    /** What a switch's opening does with the pushed diffs: {@link PushedDiffs#apply} on node 1's I/O thread. @return partitions written */
    static int applyPushed(ArrayDirectory arrays, ArrayState a, Map<Integer, List<PushedDiffs.Pushed>> diffs, PushedDiffs.Fault fault) {
        return arrays.onIoThread(() -> PushedDiffs.apply(a, diffs, fault));
    }

    /** Node 1 asks for a read copy of partition 0: the GET_S is on its way to node 0. */
    private ArrayState withACopyRequested() {
        ArrayState a = fixture.defined();
        arrays.post(a, 0, Access.READ);
        fixture.io.runAll();
        assertEquals(List.of("to 0: Coherence(GET_S, 4, 0, 1, 0, 1, null)"), fixture.network.take());
        return a;
    }

    @Test
    void aNodesBufferedWritesTravelAsItsPayloadAndComeBackAsTheSameDiffsInNodeOrder() {
        ArrayState a = fixture.defined();
        a.openRelease();
        ReleaseBuffer.Part p0 = a.release.part(0);
        System.arraycopy(doubles(5.5, 6.5), 0, p0.values, 8, 16);
        p0.mark(1);
        p0.mark(2);
        ReleaseBuffer.Part p1 = a.release.part(1);
        System.arraycopy(doubles(-1), 0, p1.values, 24, 8);
        p1.mark(3);
        long[] node1 = PushedDiffs.encode(List.of(a));
        long[] node0 = PushedDiffs.encode(List.of());
        // the release: each node's payload as its length and its longs, node 0 first
        long[] release = new long[2 + node0.length + node1.length];
        release[0] = node0.length;
        System.arraycopy(node0, 0, release, 1, node0.length);
        release[1 + node0.length] = node1.length;
        System.arraycopy(node1, 0, release, 2 + node0.length, node1.length);
        Map<Integer, Map<Integer, List<PushedDiffs.Pushed>>> decoded = PushedDiffs.decode(release, arrays::array);
        Map<Integer, List<PushedDiffs.Pushed>> byPartition = decoded.get(ArrayDirectoryTest.A);
        assertEquals(2, byPartition.size());
        PushedDiffs.Pushed d0 = byPartition.get(0).get(0);
        assertArrayEquals(new long[] {DiffMessage.run(1, 2)}, d0.runs());
        assertArrayEquals(doubles(5.5, 6.5), d0.values());
        PushedDiffs.Pushed d1 = byPartition.get(1).get(0);
        assertArrayEquals(new long[] {DiffMessage.run(3, 1)}, d1.runs());
        assertArrayEquals(doubles(-1), d1.values());
    }

    @Test
    void valuesThatDoNotFillTheirLastLongComeBackByteForByte() {
        // floats: 1, 3 and 4 elements make 4, 12 and 16 bytes, so two of the three diffs end inside a long
        ArrayState f = new ArrayState(9, Specs.fromParams("F",
                Specs.toParams(io.dsa.ArraySpec.oneDimensional("F", io.dsa.ElementType.FLOAT, 12, 4, io.dsa.Distribution.BLOCK))), 2, 1, 1);
        f.openRelease();
        byte[][] written = new byte[3][];
        for (int p = 0; p < 3; p++) {
            ReleaseBuffer.Part part = f.release.part(p);
            int count = new int[] {1, 3, 4}[p];
            written[p] = new byte[count * Float.BYTES];
            for (int i = 0; i < written[p].length; i++) written[p][i] = (byte) (0x11 * (p + 1) + i);
            System.arraycopy(written[p], 0, part.values, 0, written[p].length);
            for (int e = 0; e < count; e++) part.mark(e);
        }
        long[] node0 = PushedDiffs.encode(List.of(f));
        long[] release = new long[1 + node0.length];
        release[0] = node0.length;
        System.arraycopy(node0, 0, release, 1, node0.length);
        Map<Integer, List<PushedDiffs.Pushed>> byPartition = PushedDiffs.decode(release, id -> f).get(9);
        for (int p = 0; p < 3; p++) assertArrayEquals(written[p], byPartition.get(p).get(0).values(), "partition " + p);
    }

    @Test
    void aMalformedPayloadIsRefusedNamingWhatIsWrong() {
        fixture.defined();
        // node 0: one array (A), one diff of partition 5, which A does not have
        long[] badPartition = {8, 1, ArrayDirectoryTest.A, 1, 5, 1, DiffMessage.run(0, 1), 8, 0};
        assertEquals("pushed diff of partition 5 of array 'A': out of range [0, 2) from node 0",
                assertThrows(DsaException.class, () -> PushedDiffs.decode(badPartition, arrays::array)).getMessage());
        long[] shortValues = {8, 1, ArrayDirectoryTest.A, 1, 0, 1, DiffMessage.run(0, 2), 8, 0};
        assertTrue(assertThrows(DsaException.class, () -> PushedDiffs.decode(shortValues, arrays::array)).getMessage()
                .contains("8 bytes of values, expected 16"));
        long[] truncated = {9, 1, ArrayDirectoryTest.A, 1, 0};
        assertEquals("pushed diffs end before the runs of node 0's diff of partition 0 (5 longs)",
                assertThrows(DsaException.class, () -> PushedDiffs.decode(truncated, arrays::array)).getMessage());
        long[] negativeCount = {4, 1, ArrayDirectoryTest.A, -3};
        assertEquals("node 0's diff count of array " + ArrayDirectoryTest.A + " of pushed diffs is -3, out of range [0, 2147483647]",
                assertThrows(DsaException.class, () -> PushedDiffs.decode(negativeCount, arrays::array)).getMessage());
    }

    @Test
    void theDiffsGoIntoTheValidCopiesAndIntoAnUntouchedHomePartition() {
        ArrayState a = withACopyRequested();
        fixture.io.runAll();
        arrays.onCoherence(ArrayDirectoryTest.fromNode0(CoherenceOp.DATA_S, 0, 1, doubles(1, 2, 3, 4)));
        assertFalse(a.slots[1].allocated(), "partition 1, homed here, was never touched");
        int written = applyPushed(arrays, a, Map.of(0, List.of(diff(0, 2, 30)), 1, List.of(diff(1, 0, 10), diff(1, 1, 11))), null);
        assertEquals(2, written);
        assertArrayEquals(doubles(1, 2, 30, 4), a.slots[0].data, "the shared copy");
        assertArrayEquals(doubles(10, 11, 0, 0), a.slots[1].data, "the home's zeros with both nodes' diffs");
    }

    @Test
    void aCopyServedBeforeTheHomeWroteTheDiffsIsPatchedWhenItArrives() {
        ArrayState a = withACopyRequested();
        assertEquals(0, applyPushed(arrays, a, Map.of(0, List.of(diff(0, 1, 20, 21))), null), "no valid copy here yet");
        // node 0 served the request before it wrote the diff: the old values arrive
        arrays.onCoherence(ArrayDirectoryTest.fromNode0(CoherenceOp.DATA_S, 0, 1, doubles(1, 2, 3, 4)));
        assertEquals(20.0, element(a.slots[0].data, 1));
        assertEquals(21.0, element(a.slots[0].data, 2));
        assertEquals(4.0, element(a.slots[0].data, 3));
    }

    @Test
    void aCopyServedAfterTheHomeWroteTheDiffsIsUnchangedByThePatch() {
        ArrayState a = withACopyRequested();
        applyPushed(arrays, a, Map.of(0, List.of(diff(0, 1, 20, 21))), null);
        arrays.onCoherence(ArrayDirectoryTest.fromNode0(CoherenceOp.DATA_S, 0, 1, doubles(1, 20, 21, 4)));
        assertArrayEquals(doubles(1, 20, 21, 4), a.slots[0].data);
    }

    @Test
    void theSeededBugsAreFoundByTheseChecks() {
        PushedDiffsTest unpatched = new PushedDiffsTest();
        ArrayState a = unpatched.withACopyRequested();
        applyPushed(unpatched.arrays, a, Map.of(0, List.of(diff(0, 1, 20, 21))), PushedDiffs.Fault.UNPATCHED_INSTALL);
        unpatched.arrays.onCoherence(ArrayDirectoryTest.fromNode0(CoherenceOp.DATA_S, 0, 1, doubles(1, 2, 3, 4)));
        assertEquals(2.0, element(a.slots[0].data, 1), "UNPATCHED_INSTALL leaves the old value, which the patch check refuses");

        PushedDiffsTest unwritten = new PushedDiffsTest();
        ArrayState b = unwritten.fixture.defined();
        assertEquals(0, applyPushed(unwritten.arrays, b, Map.of(1, List.of(diff(1, 0, 10))), PushedDiffs.Fault.COPIES_NOT_WRITTEN));
        assertFalse(b.slots[1].allocated(), "COPIES_NOT_WRITTEN leaves the home without the diff, which the home check refuses");
    }
}
