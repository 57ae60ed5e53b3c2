package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
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
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The arrays of node 1 of 2 (one thread each) and its coherence engine, on a recording network.
 * Array 4 "A" is 8 doubles in 2 partitions of 4: partition 0 is homed at node 0, partition 1 here.
 * The test thread is the node's I/O thread; the tasks workers post to it wait in {@link #io}
 * until the test runs them.
 */
@Timeout(10)
class ArrayDirectoryTest {
    static final int A = 4;
    static final long[] PARAMS = Specs.toParams(ArraySpec.oneDimensional("A", ElementType.DOUBLE, 8, 4, Distribution.BLOCK));
    final RecordingNetwork network = new RecordingNetwork(1, 2);
    final QueuedIoThread io = new QueuedIoThread();
    final ArrayDirectory arrays = new ArrayDirectory(1, 2, 2, 1, network, io, Workers.waiting(io));

    /** An I/O thread whose tasks wait until the test runs them; the test thread counts as the I/O thread. */
    static final class QueuedIoThread implements IoThread {
        final List<Runnable> tasks = new ArrayList<>();

        @Override public void execute(Runnable task) { tasks.add(task); }

        @Override public boolean isCurrent() { return true; }

        /** @return how many tasks ran */
        int runAll() {
            int n = 0;
            while (!tasks.isEmpty()) {
                tasks.remove(0).run();
                n++;
            }
            return n;
        }
    }

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
    void missesOnARemotePartitionPostOneTaskAndSendOneRequestAndTheReplyInstallsTheData() {
        ArrayState a = defined();
        assertEquals(CacheState.INVALID, a.slots[0].cacheState());
        arrays.post(a, 0, Access.READ);
        arrays.post(a, 0, Access.READ);
        assertEquals(1, io.tasks.size(), "misses coalesce into the slot's one posted task");
        assertEquals(1, io.runAll());
        arrays.post(a, 0, Access.READ);
        assertEquals(1, io.runAll(), "a miss after the task ran posts again");
        assertEquals(List.of("to 0: Coherence(GET_S, 4, 0, 1, 0, 1, null)"), network.take(), "and the engine coalesces it");
        int before = a.slots[0].stamp;
        arrays.onCoherence(fromNode0(CoherenceOp.DATA_S, 0, 1, bytes(7)));
        assertEquals(Access.READ, a.slots[0].access());
        assertEquals(CacheState.SHARED, a.slots[0].cacheState());
        assertTrue(a.slots[0].stamp != before, "a new version: the waiting workers wake");
        assertArrayEquals(bytes(7), a.slots[0].data);
        assertArrayEquals(new int[] {1, 1}, arrays.partitionCounts(), "one partition homed here, one cached copy");
        arrays.post(a, 0, Access.READ_WRITE);
        io.runAll();
        assertEquals(List.of("to 0: Coherence(GET_M, 4, 0, 1, 0, 1, null)"), network.take(), "an upgrade");
    }

    @Test
    void aReadAndAWriteMissPostedTogetherAskForOwnershipOnce() {
        ArrayState a = defined();
        arrays.post(a, 0, Access.READ);
        arrays.post(a, 0, Access.READ_WRITE);
        assertEquals(1, io.runAll());
        assertEquals(List.of("to 0: Coherence(GET_M, 4, 0, 1, 0, 1, null)"), network.take(), "the write covers the read");
    }

    @Test
    void anUntouchedHomePartitionIsGrantedAtOnceAndGetsItsBytesThen() {
        ArrayState a = defined();
        assertFalse(a.slots[1].allocated());
        assertEquals(Access.NONE, a.slots[1].access());
        assertEquals(CacheState.EXCLUSIVE, a.slots[1].cacheState(), "the engine's grant, while the slot has no bytes");
        arrays.post(a, 1, Access.READ_WRITE);
        io.runAll();
        assertTrue(a.slots[1].allocated());
        assertEquals(Access.READ_WRITE, a.slots[1].access());
        assertEquals(List.of(), network.take());
    }

    @Test
    void aPartitionArrivesInTheSlotsOwnArrayWhileItsWorkersHaveNoAccess() {
        ArrayState a = defined();
        byte[] fresh = arrays.receiveBuffer(A, 0, 32);
        assertEquals(32, fresh.length, "no array yet: a new one of the partition's size");
        arrays.post(a, 0, Access.READ);
        io.runAll();
        byte[] first = bytes(7);
        arrays.onCoherence(fromNode0(CoherenceOp.DATA_S, 0, 1, first));
        byte[] other = arrays.receiveBuffer(A, 0, 32);
        assertNotSame(first, other, "readable: the workers' bytes are not overwritten, a new array takes the copy");
        assertEquals(32, other.length);
        assertArrayEquals(bytes(7), a.slots[0].data);
        arrays.onCoherence(fromNode0(CoherenceOp.INV, 0, 0, null));
        assertEquals(List.of("to 0: Coherence(GET_S, 4, 0, 1, 0, 1, null)", "to 0: Coherence(INV_ACK, 4, 0, 1, 0, 0, null)"),
                network.take());
        assertSame(first, arrays.receiveBuffer(A, 0, 32), "invalid: the next copy is decoded into the same array");
        assertNull(arrays.receiveBuffer(A, 0, 16), "another size is not this partition's");
        assertNull(arrays.receiveBuffer(A, 2, 32), "no such partition");
        assertNull(arrays.receiveBuffer(9, 0, 32), "no such array (yet)");
        arrays.post(a, 0, Access.READ);
        io.runAll();
        byte[] refill = arrays.receiveBuffer(A, 0, 32);
        System.arraycopy(bytes(50), 0, refill, 0, 32);
        arrays.onCoherence(fromNode0(CoherenceOp.DATA_S, 0, 1, refill));
        assertSame(first, a.slots[0].data, "refilled in place");
        assertArrayEquals(bytes(50), a.slots[0].data);
    }

    @Test
    void aPartitionCopyFutureCompletesWhenTheCopyIsInstalledWithoutAThreadWaiting() {
        ArrayState a = defined();
        CompletableFuture<Void> copy = arrays.whenGranted(a, 0, Access.READ);
        CompletableFuture<Void> own = arrays.whenGranted(a, 0, Access.READ_WRITE);
        assertEquals(2, io.runAll());
        assertEquals(List.of("to 0: Coherence(GET_S, 4, 0, 1, 0, 1, null)"), network.take(), "the write waits for the read");
        arrays.onCoherence(fromNode0(CoherenceOp.DATA_S, 0, 1, bytes(7)));
        assertTrue(copy.isDone());
        assertFalse(own.isDone());
        assertEquals(List.of("to 0: Coherence(GET_M, 4, 0, 1, 0, 1, null)"), network.take());
        arrays.onCoherence(fromNode0(CoherenceOp.DATA_M, 0, 1, null));
        assertTrue(own.isDone());
        assertTrue(arrays.whenGranted(a, 0, Access.READ_WRITE).isDone(), "held already: no task");
        CompletableFuture<Void> home = arrays.whenGranted(a, 1, Access.READ_WRITE);
        assertFalse(home.isDone());
        io.runAll();
        assertTrue(home.isDone(), "an untouched home partition is granted at once, with its bytes");
        arrays.onCoherence(fromNode0(CoherenceOp.FWD_GET_M, 0, 0, null));
        network.take();
        CompletableFuture<Void> lost = arrays.whenGranted(a, 0, Access.READ);
        io.runAll();
        assertFalse(lost.isDone());
        arrays.fail("node 0 failed");
        assertEquals("job failed: node 0 failed", assertThrows(java.util.concurrent.ExecutionException.class, lost::get).getCause().getMessage());
    }

    @Test
    void aPartitionArrivingWithTheWrongSizeIsRefused() {
        defined();
        arrays.post(arrays.array(A), 0, Access.READ);
        io.runAll();
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
        arrays.post(a, 1, Access.READ_WRITE);
        arrays.post(a, 0, Access.READ);
        io.runAll();
        a.slots[1].data[0] = 42;
        assertThrows(DsaException.class, arrays::images, "a request under way is no safe point");
        arrays.onCoherence(fromNode0(CoherenceOp.DATA_S, 0, 1, bytes(7)));
        List<String> expected = List.of("4 A",
                "PartitionImage(0, 1, 1, -1, [], 32 bytes) 7",     // cached SHARED
                "PartitionImage(1, 0, 0, -1, [], 32 bytes) 42");   // home, state HOME
        assertEquals(expected, describe(arrays.images()));
        ArrayDirectory moved = new ArrayDirectory(1, 2, 2, 1, new RecordingNetwork(1, 2), IoThread.CALLER, Workers.waiting(IoThread.CALLER));
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
                () -> new ArrayDirectory(1, 2, 2, 1, network, IoThread.CALLER, Workers.waiting(IoThread.CALLER)).install(List.of(new AgentState.ArrayImage(A, "A", PARAMS, short1)))).getMessage());
        List<AgentState.PartitionImage> noData = List.of(new AgentState.PartitionImage(0, AgentState.ROLE_CACHE, 1, -1, new int[0], null));
        assertEquals("agent state: partition 0 of array 'A' is valid (READ) but carries no data", assertThrows(DsaException.class,
                () -> new ArrayDirectory(1, 2, 2, 1, network, IoThread.CALLER, Workers.waiting(IoThread.CALLER)).install(List.of(new AgentState.ArrayImage(A, "A", PARAMS, noData)))).getMessage());
    }

    @Test
    void aCloneBecomesASharerOfThePartitionsHomedHereAndIsForgottenWhenItLeaves() {
        ArrayState a = defined();
        arrays.post(a, 1, Access.READ_WRITE);
        io.runAll();
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
