package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.agent.wire.RegisterMessage;
import io.dsa.agent.wire.RegisteredMessage;
import io.dsa.agent.wire.StatusMessage;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Requests correlated by id: the reply completes its request; a failed job fails open and later requests. */
@Timeout(10)
class PendingCallsTest {
    final RecordingNetwork network = new RecordingNetwork(1, 2);
    final JobLifecycle job = new JobLifecycle(1, network, text -> this.pending.failAll(text));
    final PendingCalls pending = new PendingCalls(network, job);

    @Test
    void aCallSendsItsRequestWithANewIdAndReturnsTheReplyToThatId() {
        CompletableFuture<Object> call = Workers.start(0, 1,
                i -> pending.call(0, id -> new RegisterMessage(id, RegisterMessage.LOCK, "L", new long[0]), "registering 'L'")).get(0);
        network.awaitSent("to 0: Register(1, 4, L, [])");
        pending.complete(99, new RegisteredMessage(99, 5, 0, ""));   // no such request: dropped
        assertTrue(!call.isDone());
        pending.complete(1, new RegisteredMessage(1, 7, 0, ""));
        assertEquals("Registered(1, 7, 0, )", WireText.of(Workers.result(call)));
        long next = pending.open(new CompletableFuture<>());
        assertEquals(2, next, "ids are not reused");
    }

    @Test
    void aFailedJobFailsEveryOpenRequestAndEveryLaterOneWithTheFirstFailure() throws Exception {
        CompletableFuture<Object> open = new CompletableFuture<>();
        pending.open(open);
        job.onStatus(new StatusMessage(0, StatusMessage.ABORT, "node 2 lost"));
        assertEquals("job failed: node 2 lost", cause(open).getMessage());
        job.abort("second");
        CompletableFuture<Object> later = new CompletableFuture<>();
        pending.open(later);
        assertEquals("job failed: node 2 lost", cause(later).getMessage());
        DsaException e = org.junit.jupiter.api.Assertions.assertThrows(DsaException.class,
                () -> pending.call(0, id -> new RegisterMessage(id, RegisterMessage.LOCK, "L", new long[0]), "registering"));
        assertEquals("job failed: node 2 lost", e.getMessage());
    }

    private static Throwable cause(CompletableFuture<Object> f) throws InterruptedException {
        try {
            f.get();
            throw new AssertionError("completed normally");
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }
}
