package io.dsa.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.ArrayLayout;
import io.dsa.ArraySpec;
import io.dsa.Distribution;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ElementType;
import io.dsa.SharedIntArray;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The arrays' element index paths (the shift-and-mask fast path for power-of-two partitions with
 * no ragged column edge, the reciprocal path for every other shape, and a vector's own flat path, by the
 * reciprocal of any partition length, a power of two or not) put every element where the layout says: each
 * element written through {@code write(row, col)} or {@code write(index)} is found by
 * {@code readPartition} at {@link ArrayLayout#partitionOf}/{@link ArrayLayout#offsetInPartition},
 * and indices out of range are refused with the layout's message.
 */
@Timeout(60)
class IndexPathTest {

    /** Args: rows cols partitionRows partitionCols distribution flat. */
    public static final class Fill implements DsaProgram {
        @Override
        public void setup(DsaNode node) {
            var a = node.args();
            SharedIntArray array = (SharedIntArray) node.createSharedArray(ArraySpec.of("idx", ElementType.INT,
                    Integer.parseInt(a.get(0)), Integer.parseInt(a.get(1)), Integer.parseInt(a.get(2)), Integer.parseInt(a.get(3)),
                    Distribution.valueOf(a.get(4))));
            boolean flat = Boolean.parseBoolean(a.get(5));
            ArrayLayout layout = array.layout();
            int rows = layout.rows();
            int cols = layout.cols();
            for (int r = 0; r < rows; r++) {
                for (int c = 0; c < cols; c++) {
                    if (flat) array.write(r * cols + c, value(r, c));
                    else array.write(r, c, value(r, c));
                }
            }
            int[][] data = new int[layout.partitionCount()][];
            for (int p = 0; p < data.length; p++) {
                data[p] = new int[layout.partitionElements(p)];
                array.readPartition(p, data[p]);
            }
            for (int r = 0; r < rows; r++) {
                for (int c = 0; c < cols; c++) {
                    int p = layout.partitionOf(r, c);
                    int off = layout.offsetInPartition(r, c);
                    if (data[p][off] != value(r, c)) {
                        throw new AssertionError("element (" + r + ", " + c + ") found " + data[p][off] + " at partition " + p
                                + " offset " + off + ", expected " + value(r, c));
                    }
                    int read = flat ? array.read(r * cols + c) : array.read(r, c);
                    if (read != value(r, c)) throw new AssertionError("element (" + r + ", " + c + ") read back as " + read);
                }
            }
            checkRefused(() -> array.read(rows, 0));
            checkRefused(() -> array.read(0, cols));
            checkRefused(() -> array.read(-1, 0));
            checkRefused(() -> array.write(0, -1, 1));
            // each bound on its own, the other index in range (the hit tests both signs in one compare)
            checkRefused(() -> array.read(0, -1));
            checkRefused(() -> array.write(-1, 0, 1));
            checkRefused(() -> array.write(rows, 0, 1));
            checkRefused(() -> array.write(0, cols, 1));
            checkRefused(() -> array.read(Integer.MIN_VALUE, 0));
            checkRefused(() -> array.read(0, Integer.MIN_VALUE));
            checkRefused(() -> array.read(rows * cols));
            checkRefused(() -> array.read(-1));
            checkRefused(() -> array.write(-1, 1));
        }

        private static void checkRefused(org.junit.jupiter.api.function.Executable e) {
            IndexOutOfBoundsException x = assertThrows(IndexOutOfBoundsException.class, e);
            assertTrue(x.getMessage().contains("out of range"), x.getMessage());
        }

        private static int value(int r, int c) { return r * 100_003 + c * 7 + 1; }

        @Override
        public void work(DsaWorker worker) {}
    }

    @ParameterizedTest(name = "{0}x{1} in {2}x{3} {4} flat={5}")
    @CsvSource({
        "64, 64, 16, 16, BLOCK, false",      // fast path
        "64, 64, 16, 16, BLOCK, true",       // fast path, flat index through shifts
        "32, 128, 8, 32, BLOCK_CYCLIC, false",
        "1, 1000, 1, 64, BLOCK, true",       // 1-D, ragged last partition: one-row flat path
        "1, 1024, 1, 64, BLOCK, true",
        "40, 48, 16, 16, BLOCK, true",       // ragged rows (fast) but cols a multiple: flat through division
        "40, 50, 16, 16, BLOCK, false",      // ragged columns: general path
        "30, 50, 7, 11, BLOCK_CYCLIC, true", // general path
        "64, 64, 12, 16, BLOCK, false",      // non-power-of-two rows: general path
        "1, 1400, 1, 700, BLOCK, true",      // NPB CG class S's vectors on 2 threads: reciprocal path
        "1, 1000, 1, 48, BLOCK_CYCLIC, true", // a vector through the reciprocal with a ragged last partition
        "45, 101, 10, 25, BLOCK, false",     // both sides non-powers of two, a last grid column of width 1
        "17, 3, 17, 1, BLOCK, true",         // one-column partitions: divisor 1
        "1, 9, 1, 1, BLOCK, true",           // a vector of one-element partitions: its reciprocal for divisor 1
    })
    void everyElementLandsWhereTheLayoutSays(int rows, int cols, int pr, int pc, String distribution, boolean flat) {
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(1).threadsPerNode(1).build())) {
            RunReport r = cluster.run(new Fill(), Integer.toString(rows), Integer.toString(cols), Integer.toString(pr),
                    Integer.toString(pc), distribution, Boolean.toString(flat));
            assertEquals(0, r.lines().size(), r.lines().toString());
        }
    }
}
