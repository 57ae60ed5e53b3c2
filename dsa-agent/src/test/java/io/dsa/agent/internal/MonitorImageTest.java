package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The monitor's part of a checkpoint: its encoding round-trips, and damaged bytes are refused naming what is wrong. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class MonitorImageTest {
    private static final MonitorImage IMAGE = new MonitorImage(new int[] {1, 3, 2, 1, 2},
            List.of(new MonitorImage.Entry(1, 1, 0, "A", new long[] {12, 12, 4, 12, 0, 0}), new MonitorImage.Entry(2, 1, 1, "sum", new long[] {0, 7}),
                    new MonitorImage.Entry(4, 1, 0, "L", new long[0])),
            List.of(new MonitorImage.Root(0, 3, 41), new MonitorImage.Root(-1, 6, 5)));

    @Test
    void anImageRoundTrips() {
        MonitorImage back = MonitorImage.decode(IMAGE.encode());
        assertArrayEquals(IMAGE.nextId(), back.nextId());
        assertEquals(IMAGE.barriers(), back.barriers());
        assertEquals(IMAGE.registry().size(), back.registry().size());
        for (int i = 0; i < IMAGE.registry().size(); i++) {
            MonitorImage.Entry e = IMAGE.registry().get(i);
            MonitorImage.Entry b = back.registry().get(i);
            assertEquals(List.of(e.kind(), e.id(), e.home(), e.name()), List.of(b.kind(), b.id(), b.home(), b.name()));
            assertArrayEquals(e.params(), b.params());
        }
    }

    @Test
    void aTruncatedImageIsRefusedNamingWhere() {
        byte[] bytes = IMAGE.encode();
        DsaException e = assertThrows(DsaException.class, () -> MonitorImage.decode(Arrays.copyOf(bytes, bytes.length - 3)));
        assertTrue(e.getMessage().startsWith("monitor image truncated at byte "), e.getMessage());
    }

    @Test
    void anotherVersionACountLargerThanTheBytesAndTrailingBytesAreRefused() {
        byte[] bytes = IMAGE.encode();
        byte[] version = bytes.clone();
        ByteBuffer.wrap(version).putInt(0, 9);
        assertEquals("monitor image version 9 is not supported; this node reads [1]",
                assertThrows(DsaException.class, () -> MonitorImage.decode(version)).getMessage());
        byte[] count = bytes.clone();
        ByteBuffer.wrap(count).putInt(4, 1 << 20);
        assertTrue(assertThrows(DsaException.class, () -> MonitorImage.decode(count)).getMessage().startsWith("monitor image: ids count 1048576 out of range [0, "));
        byte[] trailing = Arrays.copyOf(bytes, bytes.length + 2);
        assertEquals("monitor image has 2 bytes after its end", assertThrows(DsaException.class, () -> MonitorImage.decode(trailing)).getMessage());
    }
}
