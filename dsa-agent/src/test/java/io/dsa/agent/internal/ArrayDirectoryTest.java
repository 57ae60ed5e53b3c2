package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.ArraySpec;
import io.dsa.CacheState;
import io.dsa.Distribution;
import io.dsa.DsaException;
import io.dsa.ElementType;
import io.dsa.agent.AgentState;
import io.dsa.coherence.Access;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The arrays of node 1 of 2 (one thread each) and its coherence engine, on a recording network.
 * Array 4 "A" is 8 doubles in 2 partitions of 4: partition 0 is homed at node 0, partition 1 here.
 */
@Timeout(10)
class ArrayDirectoryTest {
    static final int A = 4;
    static final long[] PARAMS = Specs.toParams(ArraySpec.oneDimensional("A", ElementType.DOUBLE, 8, 4, Distribution.BLOCK));
    final RecordingNetwork network = new RecordingNetwork(1, 2);
    final ArrayDirectory arrays = new ArrayDirectory(1, 2, 2, 1, network);

    static CoherenceMessage fromNode0(CoherenceOp op, int partition, int requester, byte[] data) {
        return new CoherenceMessage(op, A, partition, 0, 1, requester, data);
    }

    static byte[] bytes(int first) {
        byte[] b = new byte[32];
        for (int i = 0; i < b.length; i++) b[i] = (byte) (first + i);
        return b;
    }

    ArrayState defined() {
        arrays.define(A, "A", PARAMS);
        ArrayState a = arrays.array(A);
        assertEquals(0, a.layout.homeOf(0));
        assertEquals(1, a.layout.homeOf(1));
        return a;
    }

    @Test
    void coherenceMessagesForAnArrayNotDefinedYetWaitForItsDefinition() {
        arrays.onCoherence(new CoherenceMessage(CoherenceOp.GET_S, A, 1, 0, 1, 0, null));
        assertEquals(List.of(), network.take());
        ArrayState a = defined();
        assertEquals(List.of("to 0: Coherence(DATA_S, 4, 1, 1, 0, 0, 32 bytes)"), network.take());
        arrays.define(A, "A", PARAMS);
        assertSame(a, arrays.array(A), "a second definition changes nothing");
        assertSame(a, arrays.named("A"));
        assertNull(arrays.named("B"));
        assertEquals("unknown array id 9 at node 1", assertThrows(IllegalStateException.class, () -> arrays.array(9)).getMessage());
    }

    @Test
    void concurrentMissesOnARemotePartitionSendOneRequestAndTheReplyInstallsTheData() {
        ArrayState a = defined();
        assertEquals(CacheState.INVALID, arrays.cacheStateOfUnallocated(a, 0));
        assertFalse(arrays.request(a, 0, Access.READ));
        assertFalse(arrays.request(a, 0, Access.READ));
        assertEquals(List.of("to 0: Coherence(GET_S, 4, 0, 1, 0, 1, null)"), network.take());
        arrays.onCoherence(fromNode0(CoherenceOp.DATA_S, 0, 1, bytes(7)));
        assertEquals(Access.READ, a.slots[0].access());
        assertArrayEquals(bytes(7), a.slots[0].data);
        assertTrue(arrays.request(a, 0, Access.READ));
        assertArrayEquals(new int[] {1, 1}, arrays.partitionCounts(), "one partition homed here, one cached copy");
        assertFalse(arrays.request(a, 0, Access.READ_WRITE));
        assertEquals(List.of("to 0: Coherence(GET_M, 4, 0, 1, 0, 1, null)"), network.take(), "an upgrade");
    }

    @Test
    void anUntouchedHomePartitionIsGrantedAtOnceAndGetsItsBytesThen() {
        ArrayState a = defined();
        assertFalse(a.slots[1].allocated());
        assertEquals(CacheState.EXCLUSIVE, arrays.cacheStateOfUnallocated(a, 1), "the engine's word while the slot has no bytes");
        assertTrue(arrays.request(a, 1, Access.READ_WRITE));
        assertTrue(a.slots[1].allocated());
        assertEquals(Access.READ_WRITE, a.slots[1].access());
        assertNull(arrays.cacheStateOfUnallocated(a, 1), "the slot speaks for itself now");
        assertEquals(List.of(), network.take());
    }

    @Test
    void aPartitionArrivingWithTheWrongSizeIsRefused() {
        defined();
        arrays.request(arrays.array(A), 0, Access.READ);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> arrays.onCoherence(fromNode0(CoherenceOp.DATA_S, 0, 1, new byte[3])));
        assertEquals("partition 0 of array 'A' arrived with 3 bytes, expected 32", e.getMessage());
    }

    static List<String> describe(List<AgentState.ArrayImage> images) {
        List<String> out = new ArrayList<>();
        for (AgentState.ArrayImage a : images) {
            out.add(a.id() + " " + a.name());
            for (AgentState.PartitionImage p : a.partitions()) out.add(WireText.of(p) + (p.data() == null ? "" : " " + p.data()[0]));
        }
        return out;
    }

    @Test
    void theImagesOfAQuiescentNodeInstallIntoANewOneUnchanged() {
        ArrayState a = defined();
        arrays.request(a, 1, Access.READ_WRITE);
        a.slots[1].data[0] = 42;
        arrays.request(a, 0, Access.READ);
        assertThrows(DsaException.class, arrays::images, "a request under way is no safe point");
        arrays.onCoherence(fromNode0(CoherenceOp.DATA_S, 0, 1, bytes(7)));
        List<String> expected = List.of("4 A",
                "PartitionImage(0, 1, 1, -1, [], 32 bytes) 7",     // cached SHARED
                "PartitionImage(1, 0, 0, -1, [], 32 bytes) 42");   // home, state HOME
        assertEquals(expected, describe(arrays.images()));
        ArrayDirectory moved = new ArrayDirectory(1, 2, 2, 1, new RecordingNetwork(1, 2));
        moved.install(arrays.images());
        assertEquals(expected, describe(moved.images()));
        assertEquals(Access.READ, moved.array(A).slots[0].access());
        assertEquals(Access.READ_WRITE, moved.array(A).slots[1].access());
    }

    @Test
    void anImageThatDoesNotFitItsArrayIsRefusedNamingThePartition() {
        List<AgentState.PartitionImage> outOfRange = List.of(new AgentState.PartitionImage(5, AgentState.ROLE_CACHE, 0, -1, new int[0], null));
        assertEquals("agent state: partition 5 of array 'A' out of range [0, 2)", assertThrows(DsaException.class,
                () -> arrays.install(List.of(new AgentState.ArrayImage(A, "A", PARAMS, outOfRange)))).getMessage());
        List<AgentState.PartitionImage> short1 = List.of(new AgentState.PartitionImage(0, AgentState.ROLE_CACHE, 1, -1, new int[0], new byte[8]));
        assertEquals("agent state: partition 0 of array 'A' has 8 bytes, expected 32", assertThrows(DsaException.class,
                () -> new ArrayDirectory(1, 2, 2, 1, network).install(List.of(new AgentState.ArrayImage(A, "A", PARAMS, short1)))).getMessage());
        List<AgentState.PartitionImage> noData = List.of(new AgentState.PartitionImage(0, AgentState.ROLE_CACHE, 1, -1, new int[0], null));
        assertEquals("agent state: partition 0 of array 'A' is valid (READ) but carries no data", assertThrows(DsaException.class,
                () -> new ArrayDirectory(1, 2, 2, 1, network).install(List.of(new AgentState.ArrayImage(A, "A", PARAMS, noData)))).getMessage());
    }

    @Test
    void aCloneBecomesASharerOfThePartitionsHomedHereAndIsForgottenWhenItLeaves() {
        ArrayState a = defined();
        arrays.request(a, 1, Access.READ_WRITE);
        arrays.admitNodes(3);
        arrays.addSharers(2, Map.of(A, new int[] {0, 1}, 77, new int[] {0}));   // partition 0 is homed elsewhere, array 77 unknown
        assertEquals("PartitionImage(1, 0, 1, -1, [2], 32 bytes)", WireText.of(arrays.images().get(0).partitions().get(0)));
        assertEquals(Access.READ, a.slots[1].access(), "the home's workers drop to read access");
        arrays.forgetNode(2);
        assertEquals("PartitionImage(1, 0, 0, -1, [], 32 bytes)", WireText.of(arrays.images().get(0).partitions().get(0)));
        assertEquals(List.of(), network.take());
    }

    @Test
    void aCloneCannotShareAPartitionAnotherNodeOwns() {
        ArrayState a = defined();
        arrays.admitNodes(3);
        arrays.onCoherence(new CoherenceMessage(CoherenceOp.GET_M, A, 1, 0, 1, 0, null));
        assertEquals(List.of("to 0: Coherence(DATA_M, 4, 1, 1, 0, 0, 32 bytes)"), network.take());
        assertEquals(Access.NONE, a.slots[1].access());
        DsaException e = assertThrows(DsaException.class, () -> arrays.addSharers(2, Map.of(A, new int[] {1})));
        assertTrue(e.getMessage().startsWith("node 1 cannot register clone 2 as a sharer of partition 1 of array 'A': "), e.getMessage());
    }
}
