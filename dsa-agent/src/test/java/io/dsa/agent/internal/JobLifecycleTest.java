package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.agent.wire.StatusMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The job as node 2 sees it: what it reports to node 0, and what ABORT, FINISHED and a move do to its workers. */
@Timeout(10)
class JobLifecycleTest {
    final RecordingNetwork network = new RecordingNetwork(2, 3);
    final List<String> wakeUps = new ArrayList<>();
    final JobLifecycle job = new JobLifecycle(2, network, wakeUps::add);

    @Test
    void reportsGoToNode0() {
        job.report("sum = 3");
        job.reportFailure("node 2 worker 5 failed: boom");
        job.reportDone();
        assertEquals(List.of("to 0: Report(2, sum = 3)", "to 0: Status(2, 2, node 2 worker 5 failed: boom)", "to 0: Status(2, 1, )"),
                network.take());
        assertFalse(job.failed(), "reporting a failure is not yet the job's failure: node 0 decides");
    }

    @Test
    void anAbortFailsTheJobWithItsFirstTextAndWakesTheWorkersEachTime() {
        assertTrue(JobLifecycle.isNodeStatus(new StatusMessage(0, StatusMessage.ABORT, "")));
        assertFalse(JobLifecycle.isNodeStatus(new StatusMessage(1, StatusMessage.FAILED, "")));
        job.onStatus(new StatusMessage(0, StatusMessage.ABORT, "lost node 1"));
        job.abort("node 2 closed");
        assertEquals("lost node 1", job.failure());
        assertEquals(List.of("lost node 1", "node 2 closed"), wakeUps);
        DsaException e = assertThrows(DsaException.class, job::checkFailed);
        assertEquals("job failed: lost node 1", e.getMessage());
        assertFalse(job.finished());
    }

    @Test
    void finishedWithoutFailureEndsTheJobAndAwaitFinishedReturnsEmpty() {
        CompletableFuture<String> waiting = Workers.start(0, 1, i -> job.awaitFinished()).get(0);
        job.onStatus(new StatusMessage(0, StatusMessage.FINISHED, ""));
        assertEquals("", Workers.result(waiting));
        assertTrue(job.finished());
        assertNull(job.failure());
        assertEquals(List.of(), wakeUps);
    }

    @Test
    void finishedWithAFailureAbortsFirst() {
        job.onStatus(new StatusMessage(0, StatusMessage.FINISHED, "node 1 setup failed"));
        assertEquals("node 1 setup failed", job.awaitFinished());
        assertEquals("node 1 setup failed", job.failure());
        assertEquals(List.of("node 1 setup failed"), wakeUps);
    }

    @Test
    void losingTheMonitorEndsTheJobWithThatFailure() {
        job.endWithoutMonitor("lost the monitor (node 0): connection reset");
        assertTrue(job.finished());
        assertEquals("lost the monitor (node 0): connection reset", job.awaitFinished());
        assertTrue(job.failed());
    }

    @Test
    void aWorkerWaitingForAReplyWakesWithTheFailure() {
        CompletableFuture<Object> reply = new CompletableFuture<>();
        CompletableFuture<Object> worker = Workers.start(0, 1, i -> job.await(reply, "lock")).get(0);
        job.abort("node 0 worker 0 failed: x");
        assertEquals("job failed: node 0 worker 0 failed: x", Workers.failure(worker).getMessage());
    }

    @Test
    void aFailedReplyIsRethrownNamingWhatWasAwaited() {
        CompletableFuture<Object> reply = new CompletableFuture<>();
        reply.completeExceptionally(new IllegalStateException("bad"));
        DsaException e = assertThrows(DsaException.class, () -> job.await(reply, "shared variable operation"));
        assertEquals("shared variable operation failed: java.lang.IllegalStateException: bad", e.getMessage());
        CompletableFuture<Object> ok = CompletableFuture.completedFuture("yes");
        assertEquals("yes", job.await(ok, "x"));
    }

    @Test
    void aNodeThatMovedAwayUnwindsItsWorkersQuietly() {
        job.markMovedAway();
        assertTrue(job.movedAway());
        DsaException e = assertThrows(JobLifecycle.MovedAway.class, job::checkFailed);
        assertEquals("node 2 moved to another agent; this agent's workers stop here", e.getMessage());
        assertEquals(List.of(), network.take());
    }
}
