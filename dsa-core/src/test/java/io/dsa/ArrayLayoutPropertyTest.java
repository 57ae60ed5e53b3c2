package io.dsa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Properties of {@link ArrayLayout} over many random shapes: power-of-two and other partition
 * dimensions, ragged edges, 1-D and 2-D, both distributions, various node and thread counts.
 * Every failure message starts with the seed and the layout, so a failure can be replayed.
 */
class ArrayLayoutPropertyTest {
    private static final long BASE_SEED = 0x5EED_D5AL;
    private static final int SHAPES = 600;

    @Test
    void randomShapesSatisfyEveryProperty() {
        for (int i = 0; i < SHAPES; i++) {
            long seed = BASE_SEED + i;
            Random random = new Random(seed);
            ArrayLayout layout = randomLayout(random);
            String where = "seed " + seed + ", layout " + layout + ": ";
            try {
                checkAll(layout, where);
            } catch (RuntimeException e) {   // an unexpected exception: report it with the seed too
                throw new AssertionError(where + e, e);
            }
        }
    }

    /** Both code paths of partitionOf/offsetInPartition must be exercised by the shapes above. */
    @Test
    void randomShapesCoverPowerOfTwoAndOtherPartitionSizes() {
        int powerOfTwoBoth = 0;
        int neither = 0;
        int rowsNotPowerOfTwo = 0;
        int colsNotPowerOfTwo = 0;
        int ragged = 0;
        int oneDimensional = 0;
        for (int i = 0; i < SHAPES; i++) {
            ArraySpec s = randomLayout(new Random(BASE_SEED + i)).spec();
            boolean rowsPow2 = Integer.bitCount(s.partitionRows()) == 1;
            boolean colsPow2 = Integer.bitCount(s.partitionCols()) == 1;
            if (rowsPow2 && colsPow2) powerOfTwoBoth++;
            if (!rowsPow2 && !colsPow2) neither++;
            if (!rowsPow2) rowsNotPowerOfTwo++;
            if (!colsPow2) colsNotPowerOfTwo++;
            if (s.rows() % s.partitionRows() != 0 || s.cols() % s.partitionCols() != 0) ragged++;
            if (s.oneDimensional()) oneDimensional++;
        }
        assertTrue(powerOfTwoBoth >= 100, "power-of-two partitions: " + powerOfTwoBoth);
        assertTrue(neither >= 20, "non-power-of-two partitions: " + neither);
        assertTrue(rowsNotPowerOfTwo >= 100, "non-power-of-two partition rows: " + rowsNotPowerOfTwo);
        assertTrue(colsNotPowerOfTwo >= 100, "non-power-of-two partition cols: " + colsNotPowerOfTwo);
        assertTrue(ragged >= 100, "ragged shapes: " + ragged);
        assertTrue(oneDimensional >= 50, "1-D shapes: " + oneDimensional);
    }

    private static ArrayLayout randomLayout(Random random) {
        Distribution distribution = random.nextBoolean() ? Distribution.BLOCK : Distribution.BLOCK_CYCLIC;
        ElementType type = ElementType.values()[random.nextInt(ElementType.values().length)];
        int nodes = 1 + random.nextInt(random.nextInt(4) == 0 ? 16 : 6);
        int threads = 1 + random.nextInt(4);
        ArraySpec spec;
        if (random.nextInt(5) == 0) {
            int length = 1 + random.nextInt(300);
            spec = ArraySpec.oneDimensional("v", type, length, partitionSize(random, length), distribution);
        } else {
            int rows = 1 + random.nextInt(random.nextBoolean() ? 16 : 70);
            int cols = 1 + random.nextInt(random.nextBoolean() ? 16 : 70);
            spec = ArraySpec.of("A", type, rows, cols, partitionSize(random, rows), partitionSize(random, cols),
                    distribution);
        }
        return ArrayLayout.of(spec, nodes, threads);
    }

    /** Half the time a power of two (which may or may not divide the extent), else any size. */
    private static int partitionSize(Random random, int extent) {
        if (random.nextBoolean()) {
            int maxShift = 31 - Integer.numberOfLeadingZeros(extent);   // floor(log2(extent))
            return 1 << random.nextInt(maxShift + 1);
        }
        return 1 + random.nextInt(extent);
    }

    private static void checkAll(ArrayLayout l, String where) {
        checkGrid(l, where);
        checkElementMapIsABijection(l, where);
        checkHomes(l, where);
        checkThreadBlocks(l, where);
        checkPartitionsOfThreads(l, where);
    }

    private static void checkGrid(ArrayLayout l, String where) {
        ArraySpec s = l.spec();
        assertEquals((s.rows() + s.partitionRows() - 1) / s.partitionRows(), l.partitionGridRows(), where + "grid rows");
        assertEquals((s.cols() + s.partitionCols() - 1) / s.partitionCols(), l.partitionGridCols(), where + "grid cols");
        assertEquals(l.partitionGridRows() * l.partitionGridCols(), l.partitionCount(), where + "partition count");
        long elements = 0;
        for (int p = 0; p < l.partitionCount(); p++) {
            int rows = l.partitionRows(p);
            int cols = l.partitionCols(p);
            assertTrue(rows >= 1 && rows <= s.partitionRows(), where + "rows of partition " + p + ": " + rows);
            assertTrue(cols >= 1 && cols <= s.partitionCols(), where + "cols of partition " + p + ": " + cols);
            assertEquals(rows * cols, l.partitionElements(p), where + "elements of partition " + p);
            assertEquals(rows * cols * s.elementType().bytes(), l.partitionBytes(p), where + "bytes of partition " + p);
            assertEquals(Math.min(s.partitionRows(), s.rows() - l.partitionFirstRow(p)), rows,
                    where + "ragged rows of partition " + p);
            assertEquals(Math.min(s.partitionCols(), s.cols() - l.partitionFirstCol(p)), cols,
                    where + "ragged cols of partition " + p);
            elements += rows * cols;
        }
        assertEquals(l.length(), elements, where + "partitions cover the array");
    }

    /**
     * (row, col) -> (partition, offset) is injective into {(p, o) : 0 <= o < partitionElements(p)},
     * and both sets have length() members, so it is a bijection onto it.
     */
    private static void checkElementMapIsABijection(ArrayLayout l, String where) {
        ArraySpec s = l.spec();
        boolean[][] seen = new boolean[l.partitionCount()][];
        for (int p = 0; p < seen.length; p++) seen[p] = new boolean[l.partitionElements(p)];
        for (int row = 0; row < s.rows(); row++) {
            for (int col = 0; col < s.cols(); col++) {
                String at = where + "element (" + row + ", " + col + ") ";
                int p = l.partitionOf(row, col);
                int o = l.offsetInPartition(row, col);
                // independent reference: plain division, row-major grid, row-major in the ragged partition
                int gr = row / s.partitionRows();
                int gc = col / s.partitionCols();
                assertEquals(gr * l.partitionGridCols() + gc, p, at + "partition");
                int width = Math.min(s.partitionCols(), s.cols() - gc * s.partitionCols());
                assertEquals((row % s.partitionRows()) * width + col % s.partitionCols(), o, at + "offset");
                assertTrue(o >= 0 && o < l.partitionElements(p), at + "offset " + o + " outside partition " + p);
                assertFalse(seen[p][o], at + "maps to (" + p + ", " + o + ") twice");
                seen[p][o] = true;
                // the partition's origin plus the offset gives the element back
                int cols = l.partitionCols(p);
                assertEquals(row, l.partitionFirstRow(p) + o / cols, at + "reconstructed row");
                assertEquals(col, l.partitionFirstCol(p) + o % cols, at + "reconstructed col");
                // the flat index agrees
                assertEquals(p, l.partitionOf((long) row * s.cols() + col), at + "flat index");
            }
        }
        for (int p = 0; p < seen.length; p++) {
            for (int o = 0; o < seen[p].length; o++) {
                if (!seen[p][o]) fail(where + "(" + p + ", " + o + ") is not the image of any element");
            }
        }
    }

    private static void checkHomes(ArrayLayout l, String where) {
        int nodes = l.nodeCount();
        int[] perNode = new int[nodes];
        int previous = 0;
        for (int p = 0; p < l.partitionCount(); p++) {
            int home = l.homeOf(p);
            assertTrue(home >= 0 && home < nodes, where + "home " + home + " of partition " + p);
            perNode[home]++;
            if (l.spec().distribution() == Distribution.BLOCK) {
                assertTrue(home >= previous, where + "BLOCK home of partition " + p + " went back from " + previous
                        + " to " + home);
                previous = home;
            } else {
                assertEquals(blockCyclicReference(l, p), home, where + "BLOCK_CYCLIC home of partition " + p);
            }
        }
        if (l.spec().distribution() == Distribution.BLOCK) {
            int min = Integer.MAX_VALUE;
            int max = 0;
            for (int n = 0; n < nodes; n++) {
                min = Math.min(min, perNode[n]);
                max = Math.max(max, perNode[n]);
            }
            if (l.partitionCount() >= nodes) {
                assertTrue(min >= 1, where + "a node got no partition under BLOCK");
            }
            assertTrue(max - min <= 1, where + "BLOCK unbalanced: " + min + ".." + max + " partitions per node");
        }
        int[] grid = l.nodeGrid();
        assertEquals(nodes, grid[0] * grid[1], where + "node grid");
        assertTrue(grid[0] <= grid[1], where + "node grid rows <= cols");
    }

    /**
     * ScaLAPACK: partition (pr, pc) lives at process (pr mod P, pc mod Q) of a P x Q process grid
     * numbered row-major. A 1-D array, or a 2-D array whose partition grid is a single row or column,
     * is dealt round-robin over all nodes instead, so no node is left idle.
     */
    private static int blockCyclicReference(ArrayLayout l, int p) {
        if (l.spec().oneDimensional() || l.partitionGridRows() == 1 || l.partitionGridCols() == 1) {
            return p % l.nodeCount();
        }
        int[] grid = l.nodeGrid();
        int pr = p / l.partitionGridCols();
        int pc = p % l.partitionGridCols();
        return (pr % grid[0]) * grid[1] + pc % grid[1];
    }

    private static void checkThreadBlocks(ArrayLayout l, String where) {
        int threads = l.nodeCount() * l.threadsPerNode();
        int leading = l.spec().oneDimensional() ? l.cols() : l.rows();
        int expectedStart = 0;
        int min = Integer.MAX_VALUE;
        int max = 0;
        for (int t = 0; t < threads; t++) {
            int start = l.startingIndexAtThread(t);
            int end = l.maxIndexAtThread(t);
            assertEquals(expectedStart, start, where + "thread " + t + " block does not start where the last ended");
            assertTrue(end >= start, where + "thread " + t + " block [" + start + ", " + end + ")");
            min = Math.min(min, end - start);
            max = Math.max(max, end - start);
            expectedStart = end;
        }
        assertEquals(leading, expectedStart, where + "thread blocks end at the leading dimension");
        assertTrue(max - min <= 1, where + "thread blocks unbalanced: " + min + ".." + max);
    }

    private static void checkPartitionsOfThreads(ArrayLayout l, String where) {
        int threads = l.nodeCount() * l.threadsPerNode();
        int[] owner = new int[l.partitionCount()];
        java.util.Arrays.fill(owner, -1);
        for (int t = 0; t < threads; t++) {
            int[] mine = l.partitionsOfThread(t);
            int node = t / l.threadsPerNode();
            int last = -1;
            for (int p : mine) {
                assertTrue(p > last, where + "partitions of thread " + t + " not ascending");
                last = p;
                assertEquals(-1, owner[p], where + "partition " + p + " owned by threads " + owner[p] + " and " + t);
                owner[p] = t;
                assertEquals(node, l.homeOf(p), where + "partition " + p + " of thread " + t + " not homed at node "
                        + node);
            }
            assertArrayEquals(mine, l.partitionsOfThread(t), where + "partitionsOfThread is deterministic");
        }
        for (int p = 0; p < owner.length; p++) {
            assertTrue(owner[p] >= 0, where + "partition " + p + " owned by no thread");
        }
    }
}
