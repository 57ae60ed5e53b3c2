package io.dsa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ArraySpecTest {

    private static IllegalArgumentException invalid2d(String name, ElementType type, int rows, int cols,
                                                      int partitionRows, int partitionCols) {
        return assertThrows(IllegalArgumentException.class,
                () -> ArraySpec.of(name, type, rows, cols, partitionRows, partitionCols, Distribution.BLOCK));
    }

    private static IllegalArgumentException invalid1d(int length, int partitionLength) {
        return assertThrows(IllegalArgumentException.class,
                () -> ArraySpec.oneDimensional("v", ElementType.INT, length, partitionLength, Distribution.BLOCK));
    }

    @Test
    void twoDimensionalSpecKeepsItsFields() {
        ArraySpec spec = ArraySpec.of("A", ElementType.DOUBLE, 512, 256, 32, 16, Distribution.BLOCK_CYCLIC);
        assertEquals("A", spec.name());
        assertEquals(ElementType.DOUBLE, spec.elementType());
        assertEquals(512, spec.rows());
        assertEquals(256, spec.cols());
        assertEquals(32, spec.partitionRows());
        assertEquals(16, spec.partitionCols());
        assertEquals(Distribution.BLOCK_CYCLIC, spec.distribution());
        assertFalse(spec.oneDimensional());
        assertEquals("DOUBLE[512x256] partitions 32x16 BLOCK_CYCLIC", spec.shape());
        assertEquals("'A' DOUBLE[512x256] partitions 32x16 BLOCK_CYCLIC", spec.toString());
    }

    @Test
    void oneDimensionalSpecIsOneRow() {
        ArraySpec spec = ArraySpec.oneDimensional("v", ElementType.INT, 10, 4, Distribution.BLOCK);
        assertTrue(spec.oneDimensional());
        assertEquals(1, spec.rows());
        assertEquals(10, spec.cols());
        assertEquals(1, spec.partitionRows());
        assertEquals(4, spec.partitionCols());
        assertEquals("INT[10] partitions 4 BLOCK", spec.shape());
    }

    @Test
    void equalityCoversEveryField() {
        ArraySpec a = ArraySpec.of("A", ElementType.DOUBLE, 8, 8, 4, 4, Distribution.BLOCK);
        ArraySpec same = ArraySpec.of("A", ElementType.DOUBLE, 8, 8, 4, 4, Distribution.BLOCK);
        assertEquals(a, same);
        assertEquals(a.hashCode(), same.hashCode());
        assertNotEquals(a, ArraySpec.of("B", ElementType.DOUBLE, 8, 8, 4, 4, Distribution.BLOCK));
        assertNotEquals(a, ArraySpec.of("A", ElementType.LONG, 8, 8, 4, 4, Distribution.BLOCK));
        assertNotEquals(a, ArraySpec.of("A", ElementType.DOUBLE, 9, 8, 4, 4, Distribution.BLOCK));
        assertNotEquals(a, ArraySpec.of("A", ElementType.DOUBLE, 8, 9, 4, 4, Distribution.BLOCK));
        assertNotEquals(a, ArraySpec.of("A", ElementType.DOUBLE, 8, 8, 2, 4, Distribution.BLOCK));
        assertNotEquals(a, ArraySpec.of("A", ElementType.DOUBLE, 8, 8, 4, 2, Distribution.BLOCK));
        assertNotEquals(a, ArraySpec.of("A", ElementType.DOUBLE, 8, 8, 4, 4, Distribution.BLOCK_CYCLIC));
        // a 1-D array of 8 is not the same as a 2-D array of 1x8
        assertNotEquals(ArraySpec.oneDimensional("A", ElementType.DOUBLE, 8, 4, Distribution.BLOCK),
                ArraySpec.of("A", ElementType.DOUBLE, 1, 8, 1, 4, Distribution.BLOCK));
    }

    @Test
    void rowsOutOfRangeNameTheValueAndTheRange() {
        assertEquals("rows 0 out of range [1, 2147483647] for array 'A'",
                invalid2d("A", ElementType.DOUBLE, 0, 8, 1, 1).getMessage());
        assertEquals("rows -3 out of range [1, 2147483647] for array 'A'",
                invalid2d("A", ElementType.DOUBLE, -3, 8, 1, 1).getMessage());
    }

    @Test
    void colsOutOfRangeNameTheValueAndTheRange() {
        assertEquals("cols 0 out of range [1, 2147483647] for array 'A'",
                invalid2d("A", ElementType.DOUBLE, 8, 0, 1, 1).getMessage());
    }

    @Test
    void partitionLargerThanArrayNamesTheRange() {
        assertEquals("partition rows 9 out of range [1, 8] for array 'A'",
                invalid2d("A", ElementType.DOUBLE, 8, 6, 9, 1).getMessage());
        assertEquals("partition rows 0 out of range [1, 8] for array 'A'",
                invalid2d("A", ElementType.DOUBLE, 8, 6, 0, 1).getMessage());
        assertEquals("partition cols 7 out of range [1, 6] for array 'A'",
                invalid2d("A", ElementType.DOUBLE, 8, 6, 8, 7).getMessage());
        assertEquals("partition cols -1 out of range [1, 6] for array 'A'",
                invalid2d("A", ElementType.DOUBLE, 8, 6, 8, -1).getMessage());
    }

    @Test
    void oneDimensionalErrorsSpeakOfLength() {
        assertEquals("length 0 out of range [1, 2147483647] for array 'v'", invalid1d(0, 1).getMessage());
        assertEquals("partition length 11 out of range [1, 10] for array 'v'", invalid1d(10, 11).getMessage());
        assertEquals("partition length 0 out of range [1, 10] for array 'v'", invalid1d(10, 0).getMessage());
    }

    @Test
    void partitionTooLargeForItsBytesIsRejected() {
        int maxDoubles = Integer.MAX_VALUE / 8;
        // the largest partition of doubles is accepted ...
        ArraySpec.oneDimensional("v", ElementType.DOUBLE, maxDoubles, maxDoubles, Distribution.BLOCK);
        // ... one more element is not
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ArraySpec.oneDimensional("v", ElementType.DOUBLE, maxDoubles + 1, maxDoubles + 1,
                        Distribution.BLOCK));
        assertEquals("partition of array 'v' has " + (maxDoubles + 1L) + " elements, at most " + maxDoubles
                + " allowed for DOUBLE", e.getMessage());
        // rows x cols is computed in long, not overflowed
        IllegalArgumentException e2 = invalid2d("A", ElementType.INT, 65536, 65536, 65536, 65536);
        assertEquals("partition of array 'A' has " + (65536L * 65536L) + " elements, at most "
                + (Integer.MAX_VALUE / 4) + " allowed for INT", e2.getMessage());
    }

    @Test
    void nameMustBeNonEmptyAndShort() {
        assertEquals("array name must be non-empty", invalid2d("", ElementType.DOUBLE, 1, 1, 1, 1).getMessage());
        assertEquals("array name must be non-empty", invalid2d(null, ElementType.DOUBLE, 1, 1, 1, 1).getMessage());
        String longName = "x".repeat(201);
        IllegalArgumentException e = invalid2d(longName, ElementType.DOUBLE, 1, 1, 1, 1);
        assertEquals("array name '" + "x".repeat(20) + "...' has 201 characters, at most 200 allowed", e.getMessage());
        assertEquals(200, ArraySpec.of("y".repeat(200), ElementType.DOUBLE, 1, 1, 1, 1, Distribution.BLOCK)
                .name().length());
    }

    @Test
    void nullTypeOrDistributionIsNamed() {
        NullPointerException type = assertThrows(NullPointerException.class,
                () -> ArraySpec.of("A", null, 1, 1, 1, 1, Distribution.BLOCK));
        assertEquals("element type", type.getMessage());
        NullPointerException distribution = assertThrows(NullPointerException.class,
                () -> ArraySpec.oneDimensional("A", ElementType.DOUBLE, 1, 1, null));
        assertEquals("distribution", distribution.getMessage());
    }

    @Test
    void elementTypesKnowTheirSize() {
        assertEquals(8, ElementType.DOUBLE.bytes());
        assertEquals(4, ElementType.FLOAT.bytes());
        assertEquals(4, ElementType.INT.bytes());
        assertEquals(8, ElementType.LONG.bytes());
    }
}
