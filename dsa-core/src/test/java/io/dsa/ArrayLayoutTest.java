package io.dsa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class ArrayLayoutTest {

    private static ArrayLayout layout2d(int rows, int cols, int pRows, int pCols, Distribution d, int nodes,
                                        int threads) {
        return ArrayLayout.of(ArraySpec.of("A", ElementType.DOUBLE, rows, cols, pRows, pCols, d), nodes, threads);
    }

    private static String outOfRange(Executable call) {
        return assertThrows(IndexOutOfBoundsException.class, call).getMessage();
    }

    // ---- fixed shapes ------------------------------------------------------------------------

    @Test
    void squarePartitionsOfASquareArray() {
        ArrayLayout l = layout2d(8, 8, 4, 4, Distribution.BLOCK, 2, 1);
        assertEquals(2, l.partitionGridRows());
        assertEquals(2, l.partitionGridCols());
        assertEquals(4, l.partitionCount());
        assertEquals(64L, l.length());
        for (int p = 0; p < 4; p++) {
            assertEquals(4, l.partitionRows(p));
            assertEquals(4, l.partitionCols(p));
            assertEquals(16, l.partitionElements(p));
            assertEquals(16 * 8, l.partitionBytes(p));
        }
        assertEquals(0, l.partitionOf(3, 3));
        assertEquals(1, l.partitionOf(0, 4));
        assertEquals(2, l.partitionOf(4, 0));
        assertEquals(3, l.partitionOf(7, 7));
        assertEquals(15, l.offsetInPartition(7, 7));
        assertEquals(4 * 1 + 2, l.offsetInPartition(5, 6));
        assertEquals(4, l.partitionFirstRow(3));
        assertEquals(4, l.partitionFirstCol(3));
    }

    @Test
    void rectangularPartitionsOfARectangularArray() {
        ArrayLayout l = layout2d(6, 12, 2, 6, Distribution.BLOCK, 1, 1);
        assertEquals(3, l.partitionGridRows());
        assertEquals(2, l.partitionGridCols());
        assertEquals(6, l.partitionCount());
        assertEquals(12, l.partitionElements(5));
        assertEquals(5, l.partitionOf(5, 11));
        assertEquals(11, l.offsetInPartition(5, 11));
        assertEquals(3, l.partitionOf(3, 6));
        assertEquals(6, l.offsetInPartition(3, 6));
    }

    /** 10x10 in 3x4 partitions: a 4x3 grid whose last row of partitions has 1 row and last column 2 cols. */
    @Test
    void raggedEdgePartitions() {
        ArrayLayout l = layout2d(10, 10, 3, 4, Distribution.BLOCK, 3, 2);
        assertEquals(4, l.partitionGridRows());
        assertEquals(3, l.partitionGridCols());
        assertEquals(12, l.partitionCount());
        int[] expectedRows = {3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 1, 1};
        int[] expectedCols = {4, 4, 2, 4, 4, 2, 4, 4, 2, 4, 4, 2};
        int[] expectedFirstRow = {0, 0, 0, 3, 3, 3, 6, 6, 6, 9, 9, 9};
        int[] expectedFirstCol = {0, 4, 8, 0, 4, 8, 0, 4, 8, 0, 4, 8};
        int total = 0;
        for (int p = 0; p < 12; p++) {
            assertEquals(expectedRows[p], l.partitionRows(p), "rows of partition " + p);
            assertEquals(expectedCols[p], l.partitionCols(p), "cols of partition " + p);
            assertEquals(expectedRows[p] * expectedCols[p], l.partitionElements(p), "elements of partition " + p);
            assertEquals(expectedFirstRow[p], l.partitionFirstRow(p), "first row of partition " + p);
            assertEquals(expectedFirstCol[p], l.partitionFirstCol(p), "first col of partition " + p);
            total += l.partitionElements(p);
        }
        assertEquals(100, total);
        // the ragged corner: partition 11 is 1x2 at (9, 8)
        assertEquals(11, l.partitionOf(9, 9));
        assertEquals(1, l.offsetInPartition(9, 9));
        assertEquals(0, l.offsetInPartition(9, 8));
        // ragged column: partition 2 is 3x2, stored row-major with width 2
        assertEquals(2, l.partitionOf(2, 9));
        assertEquals(2 * 2 + 1, l.offsetInPartition(2, 9));
        // a full interior partition
        assertEquals(4, l.partitionOf(5, 6));
        assertEquals(2 * 4 + 2, l.offsetInPartition(5, 6));
        // ragged row: partition 9 is 1x4
        assertEquals(9, l.partitionOf(9, 3));
        assertEquals(3, l.offsetInPartition(9, 3));
        assertEquals(9, l.partitionOf(93L));
    }

    @Test
    void oneDimensionalArray() {
        ArrayLayout l = ArrayLayout.of(
                ArraySpec.oneDimensional("v", ElementType.LONG, 10, 4, Distribution.BLOCK_CYCLIC), 2, 2);
        assertEquals(1, l.partitionGridRows());
        assertEquals(3, l.partitionGridCols());
        assertEquals(3, l.partitionCount());
        assertEquals(4, l.partitionElements(0));
        assertEquals(4, l.partitionElements(1));
        assertEquals(2, l.partitionElements(2));
        assertEquals(2 * 8, l.partitionBytes(2));
        assertEquals(2, l.partitionOf(0, 9));
        assertEquals(2, l.partitionOf(9L));
        assertEquals(1, l.offsetInPartition(0, 9));
        assertEquals(8, l.partitionFirstCol(2));
        assertEquals(0, l.partitionFirstRow(2));
        // 1-D block-cyclic is round-robin
        assertEquals(0, l.homeOf(0));
        assertEquals(1, l.homeOf(1));
        assertEquals(0, l.homeOf(2));
        // threads own elements of the 1-D array
        assertEquals(0, l.startingIndexAtThread(0));
        assertEquals(2, l.maxIndexAtThread(0));
        assertEquals(7, l.startingIndexAtThread(3));
        assertEquals(10, l.maxIndexAtThread(3));
    }

    @Test
    void blockGivesContiguousRunsPerNode() {
        ArrayLayout l = layout2d(8, 8, 2, 2, Distribution.BLOCK, 4, 1);   // 16 partitions
        int[] homes = new int[16];
        for (int p = 0; p < 16; p++) homes[p] = l.homeOf(p);
        assertArrayEquals(new int[] {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}, homes);
    }

    @Test
    void blockCyclicOnA2x2NodeGridIsScaLapack() {
        ArrayLayout l = layout2d(8, 8, 2, 2, Distribution.BLOCK_CYCLIC, 4, 1);   // 4x4 partition grid
        assertArrayEquals(new int[] {2, 2}, l.nodeGrid());
        int[][] expected = {
            {0, 1, 0, 1},
            {2, 3, 2, 3},
            {0, 1, 0, 1},
            {2, 3, 2, 3},
        };
        for (int pr = 0; pr < 4; pr++) {
            for (int pc = 0; pc < 4; pc++) {
                assertEquals(expected[pr][pc], l.homeOf(pr * 4 + pc), "partition (" + pr + ", " + pc + ")");
            }
        }
    }

    @Test
    void nodeGridIsAsSquareAsTheNodeCountAllows() {
        int[][] expected = {{1, 1}, {1, 2}, {1, 3}, {2, 2}, {1, 5}, {2, 3}, {1, 7}, {2, 4}, {3, 3}, {3, 4}};
        int[] nodes = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12};
        for (int i = 0; i < nodes.length; i++) {
            assertArrayEquals(expected[i], layout2d(4, 4, 1, 1, Distribution.BLOCK_CYCLIC, nodes[i], 1).nodeGrid(),
                    nodes[i] + " nodes");
        }
    }

    @Test
    void partitionsOfThreadDealsTheNodesPartitionsRoundRobin() {
        ArrayLayout l = layout2d(8, 8, 2, 2, Distribution.BLOCK, 2, 3);   // node 0: 0..7, node 1: 8..15
        assertArrayEquals(new int[] {0, 3, 6}, l.partitionsOfThread(0));
        assertArrayEquals(new int[] {1, 4, 7}, l.partitionsOfThread(1));
        assertArrayEquals(new int[] {2, 5}, l.partitionsOfThread(2));
        assertArrayEquals(new int[] {8, 11, 14}, l.partitionsOfThread(3));
        assertArrayEquals(new int[] {10, 13}, l.partitionsOfThread(5));
    }

    // ---- out-of-range indices ----------------------------------------------------------------

    @Test
    void outOfRangeIndicesNameValueRangeAndArray() {
        ArrayLayout l = layout2d(1024, 512, 32, 32, Distribution.BLOCK, 2, 2);
        assertEquals("row 1030 out of range [0, 1024) for array 'A'", outOfRange(() -> l.partitionOf(1030, 0)));
        assertEquals("row -1 out of range [0, 1024) for array 'A'", outOfRange(() -> l.partitionOf(-1, 0)));
        assertEquals("col 512 out of range [0, 512) for array 'A'", outOfRange(() -> l.partitionOf(0, 512)));
        assertEquals("col -7 out of range [0, 512) for array 'A'", outOfRange(() -> l.checkIndex(3, -7)));
        assertEquals("index 524288 out of range [0, 524288) for array 'A'",
                outOfRange(() -> l.partitionOf(1024L * 512)));
        assertEquals("index -1 out of range [0, 524288) for array 'A'", outOfRange(() -> l.partitionOf(-1L)));
        assertEquals("partition 512 out of range [0, 512) for array 'A'", outOfRange(() -> l.homeOf(512)));
        assertEquals("partition -1 out of range [0, 512) for array 'A'", outOfRange(() -> l.partitionRows(-1)));
        assertEquals("partition 600 out of range [0, 512) for array 'A'", outOfRange(() -> l.partitionCols(600)));
        assertEquals("partition 512 out of range [0, 512) for array 'A'",
                outOfRange(() -> l.partitionFirstRow(512)));
        assertEquals("partition 512 out of range [0, 512) for array 'A'",
                outOfRange(() -> l.partitionFirstCol(512)));
        assertEquals("partition 512 out of range [0, 512) for array 'A'",
                outOfRange(() -> l.partitionElements(512)));
        assertEquals("partition 512 out of range [0, 512) for array 'A'", outOfRange(() -> l.checkPartition(512)));
        assertEquals("thread id 4 out of range [0, 4) for array 'A'", outOfRange(() -> l.startingIndexAtThread(4)));
        assertEquals("thread id -1 out of range [0, 4) for array 'A'", outOfRange(() -> l.maxIndexAtThread(-1)));
        assertEquals("thread id 9 out of range [0, 4) for array 'A'", outOfRange(() -> l.partitionsOfThread(9)));
    }

    @Test
    void oneDimensionalOutOfRangeSpeaksOfIndex() {
        ArrayLayout l = ArrayLayout.of(ArraySpec.oneDimensional("v", ElementType.INT, 10, 4, Distribution.BLOCK), 1, 1);
        assertEquals("index 10 out of range [0, 10) for array 'v'", outOfRange(() -> l.partitionOf(0, 10)));
        assertEquals("index 12 out of range [0, 10) for array 'v'", outOfRange(() -> l.partitionOf(12L)));
        assertEquals("row 1 out of range [0, 1) for array 'v'", outOfRange(() -> l.partitionOf(1, 0)));
    }

    @Test
    void layoutArgumentsAreValidated() {
        ArraySpec spec = ArraySpec.of("A", ElementType.DOUBLE, 4, 4, 2, 2, Distribution.BLOCK);
        assertEquals("node count 0 out of range [1, 2147483647]",
                assertThrows(IllegalArgumentException.class, () -> ArrayLayout.of(spec, 0, 1)).getMessage());
        assertEquals("threads per node -2 out of range [1, 2147483647]",
                assertThrows(IllegalArgumentException.class, () -> ArrayLayout.of(spec, 1, -2)).getMessage());
    }

    // ---- extreme shapes ----------------------------------------------------------------------

    /** Regression: the partition grid was computed as (a + b - 1) / b, which overflowed to a negative count. */
    @Test
    void partitionGridOfTheLongestArrayDoesNotOverflow() {
        ArrayLayout l = ArrayLayout.of(ArraySpec.oneDimensional("big", ElementType.INT, Integer.MAX_VALUE, 1 << 20,
                Distribution.BLOCK), 3, 1);
        assertEquals(2048, l.partitionCount());
        assertEquals(2047, l.partitionOf(0, Integer.MAX_VALUE - 1));
        assertEquals((1 << 20) - 2, l.offsetInPartition(0, Integer.MAX_VALUE - 1));
        assertEquals((1 << 20) - 1, l.partitionElements(2047));
        assertEquals(2, l.homeOf(2047));
        assertEquals(Integer.MAX_VALUE, l.maxIndexAtThread(2));

        ArrayLayout odd = ArrayLayout.of(ArraySpec.oneDimensional("big", ElementType.INT, Integer.MAX_VALUE, 3,
                Distribution.BLOCK_CYCLIC), 2, 1);
        assertEquals(715827883, odd.partitionCount());   // ceil((2^31 - 1) / 3)
        assertEquals(1, odd.partitionElements(715827882));
        assertEquals(715827882, odd.partitionOf(0, Integer.MAX_VALUE - 1));
    }

    @Test
    void tooManyPartitionsIsRejected() {
        ArraySpec spec = ArraySpec.of("A", ElementType.DOUBLE, 65536, 65536, 1, 1, Distribution.BLOCK);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ArrayLayout.of(spec, 1, 1));
        assertEquals("array " + spec + " has " + (65536L * 65536L) + " partitions, at most 2147483647 allowed",
                e.getMessage());
    }
}
