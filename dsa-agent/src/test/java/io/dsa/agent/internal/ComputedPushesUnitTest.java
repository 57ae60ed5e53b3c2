package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.wire.DiffAppliedMessage;
import io.dsa.agent.wire.PushMessage;
import io.dsa.coherence.Access;
import io.dsa.coherence.CoherenceMessage;
import io.dsa.coherence.CoherenceOp;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Owner computes' closing in update mode ({@link ComputedPushes}) at node 1 of 2 on a recording
 * network (the fixture of {@link ArrayDirectoryTest}: array "A", 8 doubles in two partitions of
 * 4, partition 0 homed at node 0, partition 1 here): a home partition another node owns is not
 * pushed (the caller falls back to owning it); one that a node shares is written back and pushed
 * to it, with an answer asked of the last push only; one the scope left as it was is neither; a
 * request of this node still under way makes the closing wait; and a sharer writes a push into the
 * copy it holds, skips one it does not hold, and refuses a push of a partition homed at it or of
 * the wrong size, naming it.
 */
@Timeout(10)
class ComputedPushesUnitTest {
    final ArrayDirectoryTest fixture = new ArrayDirectoryTest();
    final ArrayDirectory arrays = fixture.arrays;
    final JobLifecycle job = new JobLifecycle(1, fixture.network, text -> {});
    final PendingCalls calls = new PendingCalls(fixture.network, job);
    final ComputedPushes pushes = new ComputedPushes(1, arrays, fixture.network, calls);

    /** Array A with partition 1 homed here materialised, and the scope's plain array of it holding {@code values}. */
    private ArrayState withLocal(double... values) {
        ArrayState a = fixture.defined();
        arrays.post(a, 1, Access.READ_WRITE);
        fixture.io.runAll();
        a.locals = new Object[a.slots.length];
        a.locals[1] = values;
        return a;
    }

    @Test
    void aHomePartitionAnotherNodeOwnsIsNotPushed() {
        ArrayState a = withLocal(1, 2, 3, 4);
        arrays.onCoherence(new CoherenceMessage(CoherenceOp.GET_M, ArrayDirectoryTest.A, 1, 0, 1, 0, null));
        assertEquals(List.of("to 0: Coherence(DATA_M, 4, 1, 1, 0, 0, 32 bytes)"), fixture.network.take());
        CompletableFuture<ComputedPushes.Closing> f = pushes.closeHomes(a);
        fixture.io.runAll();
        assertNull(f.join().answers(), "node 0 owns partition 1: the closing takes it back instead");
        assertEquals(List.of(), fixture.network.take());
    }

    @Test
    void aSharedHomePartitionIsWrittenBackAndPushedWithItsAnswerAsked() {
        ArrayState a = withLocal(1, 2, 3, 4);
        arrays.onCoherence(new CoherenceMessage(CoherenceOp.GET_S, ArrayDirectoryTest.A, 1, 0, 1, 0, null));
        fixture.network.take();   // node 0's copy (of zeros)
        CompletableFuture<ComputedPushes.Closing> f = pushes.closeHomes(a);
        fixture.io.runAll();
        List<String> sent = fixture.network.take();
        // partition 1 (high 32 bits) of 32 bytes: 1 << 32 | 32
        assertEquals(List.of("to 0: Push(1, 4, [4294967328], null, 32 bytes)"), sent, "one push to node 0, the sharer, answer asked");
        assertEquals(2.0, PushedDiffsTest.element(a.slots[1].data, 1), "written back into the home's partition");
        assertFalse(f.isDone(), "the closing waits for the answer");
        calls.complete(1, new DiffAppliedMessage(1, ""));
        assertEquals(1, f.join().answers().size());
        assertEquals(1, pushes.pushed.sum());
    }

    @Test
    void aPartitionTheScopeLeftAsItWasIsNeitherWrittenBackNorPushed() {
        ArrayState a = withLocal(0, 0, 0, 0);   // the partition holds zeros: unchanged
        arrays.onCoherence(new CoherenceMessage(CoherenceOp.GET_S, ArrayDirectoryTest.A, 1, 0, 1, 0, null));
        fixture.network.take();
        CompletableFuture<ComputedPushes.Closing> f = pushes.closeHomes(a);
        fixture.io.runAll();
        assertEquals(List.of(), f.join().answers());
        assertEquals(List.of(), fixture.network.take());
    }

    @Test
    void aRequestOfThisNodeStillUnderWayMakesTheClosingWait() {
        ArrayState a = withLocal(1, 2, 3, 4);
        arrays.post(a, 0, Access.READ);   // a prefetch of partition 0 from before the scope
        fixture.io.runAll();
        fixture.network.take();
        CompletableFuture<ComputedPushes.Closing> f = pushes.closeHomes(a);
        fixture.io.runAll();
        ComputedPushes.Closing c = f.join();
        assertEquals(1, c.underWay().size());
        assertFalse(c.underWay().get(0).isDone());
        arrays.onCoherence(ArrayDirectoryTest.fromNode0(CoherenceOp.DATA_S, 0, 1, PushedDiffsTest.doubles(9, 9, 9, 9)));
        fixture.io.runAll();
        assertTrue(c.underWay().get(0).isDone(), "done once its copy is installed");
    }

    @Test
    void aSharerWritesAPushIntoItsCopySkipsOneItLacksAndRefusesAMisplacedOne() {
        ArrayState a = fixture.defined();
        arrays.post(a, 0, Access.READ);
        fixture.io.runAll();
        fixture.network.take();
        arrays.onCoherence(ArrayDirectoryTest.fromNode0(CoherenceOp.DATA_S, 0, 1, PushedDiffsTest.doubles(1, 2, 3, 4)));
        fixture.io.runAll();
        pushes.onPush(0, new PushMessage(7, ArrayDirectoryTest.A, new long[] {PushMessage.part(0, 32)}, null,
                PushedDiffsTest.doubles(5, 6, 7, 8)));
        assertEquals(6.0, PushedDiffsTest.element(a.slots[0].data, 1), "written into the copy");
        assertEquals(List.of("to 0: DiffApplied(7, )"), fixture.network.take());
        // a push of the partition homed here, and one of the wrong size: refused, named
        pushes.onPush(0, new PushMessage(8, ArrayDirectoryTest.A, new long[] {PushMessage.part(1, 32)}, null, new byte[32]));
        pushes.onPush(0, new PushMessage(9, ArrayDirectoryTest.A, new long[] {PushMessage.part(0, 16)}, null, new byte[16]));
        assertEquals(List.of("to 0: DiffApplied(8, push of partition 1 of array 'A': homed at node 1, which pushes it itself)",
                "to 0: DiffApplied(9, push of partition 0 of array 'A': 16 bytes, the partition has 32)"), fixture.network.take());
        assertEquals(1, pushes.applied.sum());
    }
}
