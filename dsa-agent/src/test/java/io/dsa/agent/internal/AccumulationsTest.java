package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.ArraySpec;
import io.dsa.Distribution;
import io.dsa.ElementType;
import io.dsa.ReduceOp;
import io.dsa.agent.wire.AccumulateMessage;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The element arithmetic of accumulates and the home's check of an arriving update, without nodes. */
@Timeout(10)
class AccumulationsTest {

    @Test
    void packTakesTheBlockRowMajorAsLittleEndianBytes() {
        long[] src = new long[4 * 5];
        for (int i = 0; i < src.length; i++) src[i] = 100 + i;
        ByteBuffer b = ByteBuffer.wrap(Accumulations.pack(ElementType.LONG, src, 1, 2, 5, 2, 3)).order(ByteOrder.LITTLE_ENDIAN);
        long[] expect = {107, 108, 109, 112, 113, 114};
        for (long e : expect) assertEquals(e, b.getLong());
        assertEquals(0, b.remaining());
    }

    @Test
    void applyCombinesIntoTheBlockAndLeavesTheRestAlone() {
        // a 3x4 partition of doubles, all 1.0; a 2x2 block at element 5 (row 1, column 1)
        ByteBuffer data = ByteBuffer.allocate(12 * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 12; i++) data.putDouble(i * 8, 1.0);
        byte[] values = Accumulations.pack(ElementType.DOUBLE, new double[] {2, 3, 4, 5}, 0, 0, 2, 2, 2);
        Accumulations.apply(ElementType.DOUBLE, ReduceOp.SUM, data.array(), 5, 4, 2, 2, values);
        double[] expect = {1, 1, 1, 1, 1, 3, 4, 1, 1, 5, 6, 1};
        for (int i = 0; i < 12; i++) assertEquals(expect[i], data.getDouble(i * 8), "element " + i);
    }

    @Test
    void eachTypeGetsItsOwnArithmetic() {
        byte[] ints = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(Integer.MAX_VALUE).putInt(0b1100).array();
        Accumulations.apply(ElementType.INT, ReduceOp.SUM, ints, 0, 1, 1, 1, Accumulations.pack(ElementType.INT, new int[] {1}, 0, 0, 1, 1, 1));
        Accumulations.apply(ElementType.INT, ReduceOp.XOR, ints, 1, 1, 1, 1, Accumulations.pack(ElementType.INT, new int[] {0b1010}, 0, 0, 1, 1, 1));
        ByteBuffer i = ByteBuffer.wrap(ints).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(Integer.MIN_VALUE, i.getInt(0), "int SUM wraps as Java's int does");
        assertEquals(0b0110, i.getInt(4));

        byte[] floats = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putFloat(0.1f).array();
        Accumulations.apply(ElementType.FLOAT, ReduceOp.SUM, floats, 0, 1, 1, 1, Accumulations.pack(ElementType.FLOAT, new float[] {0.2f}, 0, 0, 1, 1, 1));
        assertEquals(0.1f + 0.2f, ByteBuffer.wrap(floats).order(ByteOrder.LITTLE_ENDIAN).getFloat(0), "float SUM rounds once, as float + float");

        byte[] longs = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(-7).array();
        Accumulations.apply(ElementType.LONG, ReduceOp.MIN, longs, 0, 1, 1, 1, Accumulations.pack(ElementType.LONG, new long[] {-9}, 0, 0, 1, 1, 1));
        assertEquals(-9, ByteBuffer.wrap(longs).order(ByteOrder.LITTLE_ENDIAN).getLong(0));
    }

    /** A 20x20 int array of 8x8 partitions on 2 nodes: partition 2 (rows 0-7, columns 16-19, 8x4) is homed at node 0. */
    private static ArrayState array() {
        return new ArrayState(3, ArraySpec.of("A", ElementType.INT, 20, 20, 8, 8, Distribution.BLOCK), 2, 1, 0);
    }

    private static AccumulateMessage message(int partition, int op, int base, int rows, int cols, int bytes) {
        return new AccumulateMessage(1, 3, partition, op, base, rows, cols, new byte[bytes]);
    }

    @Test
    void theHomeAcceptsABlockThatFitsAndRefusesEachWayOfNotFitting() {
        ArrayState a = array();
        assertEquals(0, a.layout.homeOf(2));
        assertEquals(4, a.layout.partitionCols(2));
        assertNull(Accumulator.check(0, a, message(2, ReduceOp.XOR.ordinal(), 1, 7, 3, 7 * 3 * 4)));
        String[][] refusals = {
            {check(a, message(9, 0, 0, 1, 1, 4)), "partition 9", "[0, 9)"},
            {check(a, message(-1, 0, 0, 1, 1, 4)), "partition -1"},
            {Accumulator.check(1, a, message(2, 0, 0, 1, 1, 4)), "node 1 is not its home"},
            {check(a, message(2, 7, 0, 1, 1, 4)), "unknown reduce op 7", "[0, 7)"},
            {check(a, message(2, -1, 0, 1, 1, 4)), "unknown reduce op -1"},
            {check(a, message(2, 0, 1, 1, 4, 16)), "block 1x4 at element 1", "8x4"},
            {check(a, message(2, 0, 28, 2, 1, 8)), "block 2x1 at element 28"},
            {check(a, message(2, 0, 32, 1, 1, 4)), "at element 32"},
            {check(a, message(2, 0, -4, 1, 1, 4)), "at element -4"},
            {check(a, message(2, 0, 0, 0, 1, 0)), "block 0x1"},
            {check(a, message(2, 0, 0, 2, 2, 15)), "15 bytes of values, expected 16"},
        };
        for (String[] r : refusals) {
            for (int k = 1; k < r.length; k++) assertTrue(r[0] != null && r[0].contains(r[k]), r[k] + " in: " + r[0]);
        }
        ArrayState doubles = new ArrayState(4, ArraySpec.of("D", ElementType.DOUBLE, 20, 20, 8, 8, Distribution.BLOCK), 2, 1, 0);
        String bitwise = Accumulator.check(0, doubles, new AccumulateMessage(1, 4, 0, ReduceOp.AND.ordinal(), 0, 1, 1, new byte[8]));
        assertTrue(bitwise != null && bitwise.contains("AND does not apply to DOUBLE"), bitwise);
    }

    private static String check(ArrayState a, AccumulateMessage m) {
        return Accumulator.check(0, a, m);
    }
}
