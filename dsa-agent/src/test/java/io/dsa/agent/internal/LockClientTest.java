package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.wire.LockMessage;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Node 2's lock client: what it asks node 0, and how grants, cancels and their races end. */
@Timeout(10)
class LockClientTest {
    final RecordingNetwork network = new RecordingNetwork(2, 3);
    final JobLifecycle job = new JobLifecycle(2, network, text -> this.calls.failAll(text));
    final PendingCalls calls = new PendingCalls(network, job);
    final LockClient locks = new LockClient(2, network, calls, job);

    @Test
    void acquireWaitsForTheGrantOfItsRequestAndReleaseTellsTheHome() {
        CompletableFuture<Boolean> acquired = Workers.start(0, 1, i -> { locks.acquire(6); return true; }).get(0);
        network.awaitSent("to 0: Lock(6, 1, 2, 1)");
        assertFalse(acquired.isDone());
        calls.complete(1, new LockMessage(6, LockMessage.GRANT, 2, 1));
        assertTrue(Workers.result(acquired));
        locks.release(6);
        assertEquals(List.of("to 0: Lock(6, 1, 2, 1)", "to 0: Lock(6, 3, 2, 0)"), network.take());
        assertTrue(LockClient.isAnswer(new LockMessage(6, LockMessage.GRANT, 2, 1)));
        assertTrue(LockClient.isAnswer(new LockMessage(6, LockMessage.CANCEL_ACK, 2, 1)));
        assertFalse(LockClient.isAnswer(new LockMessage(6, LockMessage.ACQUIRE, 2, 1)));
    }

    @Test
    void aTimedOutTryLockWithdrawsItsRequestAndTheAcknowledgementSaysItFailed() {
        CompletableFuture<Boolean> tried = Workers.start(0, 1, i -> locks.tryAcquire(6, System.nanoTime())).get(0);
        network.awaitSent("to 0: Lock(6, 4, 2, 1)");
        calls.complete(1, new LockMessage(6, LockMessage.CANCEL_ACK, 2, 1));
        assertFalse(Workers.result(tried));
        assertEquals(List.of("to 0: Lock(6, 1, 2, 1)", "to 0: Lock(6, 4, 2, 1)"), network.take());
    }

    @Test
    void aGrantThatCrossedTheWithdrawalIsKept() {
        CompletableFuture<Boolean> tried = Workers.start(0, 1, i -> locks.tryAcquire(6, System.nanoTime())).get(0);
        network.awaitSent("to 0: Lock(6, 4, 2, 1)");
        calls.complete(1, new LockMessage(6, LockMessage.GRANT, 2, 1));
        assertTrue(Workers.result(tried), "granted before the home saw the cancel: this node holds the lock");
    }

    @Test
    void aTryLockGrantedInTimeSendsNoCancel() {
        CompletableFuture<Boolean> tried = Workers.start(0, 1, i -> locks.tryAcquire(6, System.nanoTime() + 60_000_000_000L)).get(0);
        network.awaitSent("to 0: Lock(6, 1, 2, 1)");
        calls.complete(1, new LockMessage(6, LockMessage.GRANT, 2, 1));
        assertTrue(Workers.result(tried));
        assertEquals(List.of("to 0: Lock(6, 1, 2, 1)"), network.take());
    }
}
