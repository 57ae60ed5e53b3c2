package io.dsa.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The agent state's binary format: round trip, truncation, versions and corrupted lengths. */
@Timeout(30)
class AgentStateTest {

    static AgentState sample() {
        AgentState.PartitionImage home = new AgentState.PartitionImage(3, AgentState.ROLE_HOME, 1, -1, new int[] {0, 2},
                new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        AgentState.PartitionImage owned = new AgentState.PartitionImage(4, AgentState.ROLE_HOME, 2, 2, new int[0], new byte[8]);
        AgentState.PartitionImage cached = new AgentState.PartitionImage(0, AgentState.ROLE_CACHE, 1, -1, new int[0],
                new byte[] {9, 9, 9, 9, 9, 9, 9, 9});
        AgentState.PartitionImage invalid = new AgentState.PartitionImage(1, AgentState.ROLE_CACHE, 0, -1, new int[0], null);
        return new AgentState(1, "vm-é", 42, 3, 2, List.of("127.0.0.1:1000", "127.0.0.2:2000", "127.0.0.3:3000"),
                List.of(new AgentState.ArrayImage(7, "A", new long[] {8, 1, 1, 1, 0, 0}, List.of(cached, invalid, home, owned))),
                List.of(new AgentState.VariableImage(2, Double.doubleToRawLongBits(2.5))),
                new AgentState.BarrierImage(43, 42, 43, 0, 5, Map.of(3, 11L, 1, 4L)));
    }

    @Test
    void roundTripKeepsEveryField() {
        AgentState s = sample();
        byte[] bytes = s.encode();
        AgentState d = AgentState.decode(bytes);
        assertEquals(s.nodeId(), d.nodeId());
        assertEquals(s.vmName(), d.vmName());
        assertEquals(s.epoch(), d.epoch());
        assertEquals(s.nodes(), d.nodes());
        assertEquals(s.threadsPerNode(), d.threadsPerNode());
        assertEquals(s.view(), d.view());
        assertEquals(s.variables(), d.variables());
        assertEquals(s.barriers(), d.barriers());
        assertEquals(1, d.arrays().size());
        AgentState.ArrayImage a = s.arrays().get(0);
        AgentState.ArrayImage b = d.arrays().get(0);
        assertEquals(a.id(), b.id());
        assertEquals(a.name(), b.name());
        assertArrayEquals(a.params(), b.params());
        assertEquals(a.partitions().size(), b.partitions().size());
        for (int i = 0; i < a.partitions().size(); i++) {
            AgentState.PartitionImage p = a.partitions().get(i);
            AgentState.PartitionImage q = b.partitions().get(i);
            assertEquals(p.partition(), q.partition());
            assertEquals(p.role(), q.role());
            assertEquals(p.state(), q.state());
            assertEquals(p.owner(), q.owner());
            assertArrayEquals(p.sharers(), q.sharers());
            assertArrayEquals(p.data(), q.data());
        }
        assertNull(b.partitions().get(1).data());
        assertEquals(24, d.dataBytes());
        assertArrayEquals(bytes, d.encode(), "encoding is deterministic");
    }

    @Test
    void missingBytesAreRefusedAsNoState() {
        assertEquals("no agent state: the bytes are missing", assertThrows(DsaException.class, () -> AgentState.decode(null)).getMessage());
    }

    @Test
    void everyTruncationIsRefused() {
        byte[] bytes = sample().encode();
        for (int n = 0; n < bytes.length; n++) {
            byte[] cut = java.util.Arrays.copyOf(bytes, n);
            DsaException e = assertThrows(DsaException.class, () -> AgentState.decode(cut), "prefix of " + n + " bytes");
            assertTrue(e.getMessage().contains("agent state"), e.getMessage());
        }
    }

    @Test
    void trailingBytesAreRefused() {
        byte[] bytes = sample().encode();
        byte[] longer = java.util.Arrays.copyOf(bytes, bytes.length + 3);
        DsaException e = assertThrows(DsaException.class, () -> AgentState.decode(longer));
        assertTrue(e.getMessage().contains("3 trailing bytes"), e.getMessage());
    }

    @Test
    void unknownVersionIsRefusedNamingBothVersions() {
        byte[] bytes = sample().encode();
        ByteBuffer.wrap(bytes).putShort(4, (short) 9);
        DsaException e = assertThrows(DsaException.class, () -> AgentState.decode(bytes));
        assertEquals("agent state version 9 is not supported; this agent reads versions [1]", e.getMessage());
    }

    @Test
    void wrongMagicIsRefused() {
        byte[] bytes = sample().encode();
        bytes[0] = 'X';
        DsaException e = assertThrows(DsaException.class, () -> AgentState.decode(bytes));
        assertTrue(e.getMessage().startsWith("not an agent state: magic"), e.getMessage());
    }

    @Test
    void corruptedLengthsAreRefusedWithTheOffset() {
        byte[] bytes = sample().encode();
        // the view count sits after magic, version, flags, node id, the VM name, epoch, nodes and threads
        int vmNameBytes = "vm-é".getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        int viewCountAt = 8 + 4 + 4 + vmNameBytes + 8 + 4 + 4;
        for (int bad : new int[] {-1, 1 << 20, Integer.MAX_VALUE}) {
            byte[] corrupt = bytes.clone();
            ByteBuffer.wrap(corrupt).putInt(viewCountAt, bad);
            DsaException e = assertThrows(DsaException.class, () -> AgentState.decode(corrupt));
            assertTrue(e.getMessage().contains("count of view " + bad + " at offset " + viewCountAt), e.getMessage());
        }
        // the VM name's length
        byte[] corrupt = bytes.clone();
        ByteBuffer.wrap(corrupt).putInt(12, 1 << 30);
        DsaException e = assertThrows(DsaException.class, () -> AgentState.decode(corrupt));
        assertTrue(e.getMessage().contains("string length " + (1 << 30) + " at offset 12"), e.getMessage());
    }

    @Test
    void corruptedDataLengthIsRefused() {
        AgentState s = sample();
        byte[] bytes = s.encode();
        // flip the first partition's data length (8) to a huge value: find it after its sharers count (0)
        ByteBuffer b = ByteBuffer.wrap(bytes);
        int at = -1;
        for (int i = 0; i + 12 <= bytes.length; i++) {
            if (b.getInt(i) == 0 && b.getInt(i + 4) == 8 && bytes[i + 8] == 9) { at = i + 4; break; }
        }
        assertTrue(at > 0, "data length of the cached partition not found");
        b.putInt(at, 1 << 24);
        DsaException e = assertThrows(DsaException.class, () -> AgentState.decode(bytes));
        assertTrue(e.getMessage().contains("claims " + (1 << 24) + " data bytes at offset " + at), e.getMessage());
    }
}
