package io.dsa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ReduceOpTest {

    @Test
    void doubleOps() {
        assertEquals(5.5, ReduceOp.SUM.apply(2.0, 3.5));
        assertEquals(-1.0, ReduceOp.MIN.apply(-1.0, 3.5));
        assertEquals(3.5, ReduceOp.MAX.apply(-1.0, 3.5));
        assertEquals(-3.5, ReduceOp.PROD.apply(-1.0, 3.5));
        assertTrue(Double.isNaN(ReduceOp.MIN.apply(Double.NaN, 1.0)), "MIN follows Math.min on NaN");
    }

    @Test
    void longOps() {
        assertEquals(7L, ReduceOp.SUM.apply(3L, 4L));
        assertEquals(-3L, ReduceOp.MIN.apply(-3L, 4L));
        assertEquals(4L, ReduceOp.MAX.apply(-3L, 4L));
        assertEquals(-12L, ReduceOp.PROD.apply(-3L, 4L));
        assertEquals(0b1000L, ReduceOp.AND.apply(0b1100L, 0b1010L));
        assertEquals(0b1110L, ReduceOp.OR.apply(0b1100L, 0b1010L));
        assertEquals(0b0110L, ReduceOp.XOR.apply(0b1100L, 0b1010L));
        assertEquals(Long.MIN_VALUE, ReduceOp.SUM.apply(Long.MAX_VALUE, 1L), "wraps like Java long arithmetic");
    }

    @ParameterizedTest
    @EnumSource(value = ReduceOp.class, names = {"AND", "OR", "XOR"})
    void bitwiseOpsRejectDoubles(ReduceOp op) {
        DsaException e = assertThrows(DsaException.class, () -> op.apply(1.0, 2.0));
        assertEquals("reduce op " + op + " is defined for longs only, not doubles", e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(ReduceOp.class)
    void everyOpIsDefinedOnLongs(ReduceOp op) {
        // no op may fall through to the AssertionError default
        op.apply(6L, 3L);
    }
}
