package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.dsa.ArrayLayout;
import io.dsa.ArraySpec;
import io.dsa.Distribution;
import io.dsa.DsaException;
import io.dsa.ElementType;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.transport.FrameSizes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The checks of create...Array, with the exact messages (the heap's figures given, not measured). */
@Timeout(10)
class ArrayLimitsTest {
    /** The issue's case: 80 MB partitions were accepted, and the first remote miss hung the job. */
    @Test
    void homePartitionsOverTheFreeHeapLessTheReserveAreRefusedNamingTheSizes() {
        // 4 nodes, 8 x 8 partitions of 1000 x 1000 doubles (8 MB), block cyclic over a 2 x 2 node grid: 16 homed at each node
        ArraySpec spec = ArraySpec.of("B", ElementType.DOUBLE, 8_000, 8_000, 1_000, 1_000, Distribution.BLOCK_CYCLIC);
        ArrayLayout layout = ArrayLayout.of(spec, 4, 1);
        assertEquals(16 * 8_000_000L, ArrayLimits.homeBytes(layout, 3));
        ArrayLimits.checkHeap(layout, 3, 1_000_000_000, 700_000_000);   // 128 MB of 200 MB usable
        DsaException e = assertThrows(DsaException.class, () -> ArrayLimits.checkHeap(layout, 3, 1_000_000_000, 800_000_000));
        assertEquals("array 'B': the partitions homed at node 3 hold 128000000 bytes, more than the 100000000 bytes this node's"
                + " heap can give them (max heap 1000000000, in use 800000000, reserve 100000000 = 10%); use more nodes, or a larger"
                + " heap (-Xmx)", e.getMessage());
    }

    @Test
    void raggedEdgePartitionsCountWithTheirOwnSize() {
        // 10 x 10 ints in 4 x 4 partitions on one node: 3 x 3 partitions, 100 elements in all
        ArrayLayout layout = ArrayLayout.of(ArraySpec.of("R", ElementType.INT, 10, 10, 4, 4, Distribution.BLOCK), 1, 1);
        assertEquals(400, ArrayLimits.homeBytes(layout, 0));
    }
}
