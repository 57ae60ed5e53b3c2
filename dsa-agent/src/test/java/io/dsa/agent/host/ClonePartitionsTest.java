package io.dsa.agent.host;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The text form of a clone's partitions that REGISTER_CLONE carries to the homes. */
@Timeout(10)
class ClonePartitionsTest {
    @Test
    void roundTripsAndSkipsArraysWithoutPartitions() {
        Map<Integer, int[]> held = new TreeMap<>();
        held.put(3, new int[] {0, 5, 11});
        held.put(1, new int[] {7});
        held.put(9, new int[0]);
        String text = ClonePartitions.encode(held);
        assertEquals("1:7;3:0,5,11", text);
        Map<Integer, int[]> back = ClonePartitions.decode(text);
        assertEquals(2, back.size());
        assertArrayEquals(new int[] {7}, back.get(1));
        assertArrayEquals(new int[] {0, 5, 11}, back.get(3));
        assertTrue(ClonePartitions.decode("").isEmpty());
        assertEquals("", ClonePartitions.encode(Map.of()));
    }

    @Test
    void malformedTextIsRefusedNamingTheEntry() {
        for (String bad : new String[] {"1:7;x:2", ":3", "4", "2:1,,3", "2:1;2:3"}) {
            DsaException e = assertThrows(DsaException.class, () -> ClonePartitions.decode(bad), bad);
            assertTrue(e.getMessage().startsWith("clone partitions entry '"), e.getMessage());
        }
    }
}
