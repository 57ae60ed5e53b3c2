package io.dsa.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.ArraySpec;
import io.dsa.Distribution;
import io.dsa.DsaException;
import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.ElementType;
import io.dsa.SharedArray;
import io.dsa.SharedDoubleArray;
import io.dsa.SharedIntArray;
import io.dsa.SharedLongArray;
import io.dsa.SharedFloatArray;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Data-race-free programs with heavy false sharing: in every phase, workers on different nodes
 * write different elements of the same partitions at the same time; after a barrier every worker
 * reads every element back. No write may be lost and no read may be stale, whatever the
 * interleaving with invalidations and ownership transfers.
 */
@Timeout(120)
class FalseSharingTest {

    static Stream<Arguments> shapes() {
        return Stream.of(
                Arguments.of(ElementType.DOUBLE, 24, 24, 8, 8, Distribution.BLOCK, false),
                Arguments.of(ElementType.DOUBLE, 37, 23, 5, 7, Distribution.BLOCK, false),      // ragged edges
                Arguments.of(ElementType.LONG, 30, 17, 30, 17, Distribution.BLOCK, false),      // one partition for all
                Arguments.of(ElementType.INT, 19, 21, 4, 3, Distribution.BLOCK_CYCLIC, false),
                Arguments.of(ElementType.FLOAT, 1, 301, 1, 16, Distribution.BLOCK, true));       // 1-D ragged
    }

    @ParameterizedTest(name = "{0}[{1}x{2}] partitions {3}x{4} {5}")
    @MethodSource("shapes")
    void writesToDifferentElementsOfSharedPartitionsAreNeverLost(ElementType type, int rows, int cols, int pr, int pc,
                                                                  Distribution dist, boolean oneDim) {
        ArraySpec spec = oneDim
                ? ArraySpec.oneDimensional("A", type, cols, pc, dist)
                : ArraySpec.of("A", type, rows, cols, pr, pc, dist);
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(4).threadsPerNode(2).build())) {
            RunReport report = cluster.run(new PhaseProgram(spec, 6));
            assertEquals(4, report.nodes());
            assertTrue(report.lines().stream().anyMatch(l -> l.contains("checked")), report.lines().toString());
        }
    }

    /** Phase k: element i is written by thread (i + k) mod T with value v(k, i); then all read all. */
    public static final class PhaseProgram implements DsaProgram {
        private final ArraySpec spec;
        private final int phases;
        private SharedArray array;

        PhaseProgram(ArraySpec spec, int phases) {
            this.spec = spec;
            this.phases = phases;
        }

        @Override
        public void setup(DsaNode node) {
            array = node.createSharedArray(spec);
        }

        static long value(int phase, int index) { return phase * 100_000L + index + 1; }

        @Override
        public void work(DsaWorker w) {
            int threads = w.node().network().getGlobalThreadCount();
            int n = (int) array.layout().length();
            long checked = 0;
            for (int phase = 0; phase < phases; phase++) {
                for (int i = 0; i < n; i++) {
                    if ((i + phase) % threads == w.threadId()) put(i, value(phase, i));
                }
                w.barrier();
                for (int k = 0; k < n; k++) {
                    int i = (k + w.threadId() * 7) % n; // different workers sweep from different places
                    long got = get(i);
                    if (got != value(phase, i)) {
                        throw new DsaException("phase " + phase + " element " + i + " of " + spec + ": expected "
                                + value(phase, i) + ", read " + got + " at thread " + w.threadId());
                    }
                    checked++;
                }
                w.barrier();
            }
            long total = w.allReduce(checked, io.dsa.ReduceOp.SUM);
            if (w.threadId() == 0) w.node().report("checked " + total + " reads");
        }

        private void put(int i, long v) {
            switch (spec.elementType()) {
                case DOUBLE: ((SharedDoubleArray) array).write(i, (double) v); break;
                case LONG: ((SharedLongArray) array).write(i, v); break;
                case INT: ((SharedIntArray) array).write(i, (int) v); break;
                case FLOAT: ((SharedFloatArray) array).write(i, (float) v); break;
                default: throw new AssertionError();
            }
        }

        private long get(int i) {
            switch (spec.elementType()) {
                case DOUBLE: return (long) ((SharedDoubleArray) array).read(i);
                case LONG: return ((SharedLongArray) array).read(i);
                case INT: return ((SharedIntArray) array).read(i);
                case FLOAT: return (long) ((SharedFloatArray) array).read(i);
                default: throw new AssertionError();
            }
        }
    }
}
