package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.WaitStrategy;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link WaitStrategy#POLL}'s count of parked threads ({@link Waiting#anyParked}), which keeps
 * the node's I/O thread polling: a parked thread is on it, and the thread that wakes it takes it
 * off before it runs (else a polling I/O thread that shares its core would keep that core from
 * it), exactly once, whoever comes first.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PollCountTest {
    /** A wait point whose version the test moves. */
    static final class Point extends WaitPoint {
        final AtomicLong version = new AtomicLong();

        @Override
        long version() { return version.get(); }
    }

    private static Waiting waiting(WaitStrategy strategy) {
        return new Waiting(strategy, new JobLifecycle(0, new RecordingNetwork(0, 1), text -> {}), new IoThread() {
            @Override public void execute(Runnable task) { task.run(); }

            @Override public boolean isCurrent() { return false; }
        }, 0);
    }

    @Test
    void theWakerTakesAParkedThreadOffTheCountBeforeItRuns() throws Exception {
        Waiting w = waiting(WaitStrategy.POLL);
        Point p = new Point();
        for (int round = 0; round < 2_000; round++) {
            long seen = p.version();
            CompletableFuture<Void> parked = Workers.start(0, 1, i -> {
                w.park(p, seen);
                return (Void) null;
            }).get(0);
            while (!w.anyParked()) Thread.onSpinWait();   // the worker counted itself and parks (or is about to)
            p.version.incrementAndGet();
            p.wake();
            // nanoseconds after the wake: the woken thread has not run yet (it takes microseconds), so only the waker can have done it
            assertFalse(w.anyParked(), "round " + round + ": the woken thread is still counted as parked");
            parked.get(5, TimeUnit.SECONDS);
            assertEquals(0, w.parkedNow(), "round " + round + ": taken off once, not twice");
        }
    }

    @Test
    void aThreadThatReturnsWithoutAWakeTakesItselfOffOnce() throws Exception {
        Waiting w = waiting(WaitStrategy.POLL);
        Point p = new Point();
        // the version moved before the thread parked: it returns without parking and is never counted
        w.park(p, p.version() - 1);
        assertFalse(w.anyParked());
        // many threads parked on one point, all woken by one wake: none left, none taken off twice
        List<CompletableFuture<Void>> all = Workers.start(0, 8, i -> {
            w.park(p, 0);
            return (Void) null;
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (w.parkedNow() < 8 && System.nanoTime() < deadline) Thread.onSpinWait();
        assertEquals(8, w.parkedNow(), "eight parked threads counted");
        p.version.incrementAndGet();
        p.wake();
        for (CompletableFuture<Void> f : all) f.get(5, TimeUnit.SECONDS);
        assertEquals(0, w.parkedNow());
    }

    @Test
    void theIoThreadsPollOnlyWhereTheMachinesNodesFitItsCores() {
        assertTrue(Waiting.pollersFit(0, 2, 1, 2), "2 x 1 on 2 cores");
        assertFalse(Waiting.pollersFit(0, 3, 2, 2), "3 nodes on 2 cores");
        assertTrue(Waiting.pollersFit(6, 4, 2, 2), "the launcher says 6 node threads here: 2 of the 4 nodes");
        assertFalse(Waiting.pollersFit(12, 4, 2, 2), "4 x 2 on one 2-core machine");
    }

    @Test
    void otherStrategiesCountNothing() throws Exception {
        for (WaitStrategy s : List.of(WaitStrategy.PARK, WaitStrategy.ADAPTIVE)) {
            Waiting w = waiting(s);
            Point p = new Point();
            CompletableFuture<Void> parked = Workers.start(0, 1, i -> {
                w.park(p, 0);
                return (Void) null;
            }).get(0);
            while (!p.hasWaiters()) Thread.onSpinWait();
            assertFalse(w.anyParked(), s + " counts no parked thread");
            p.version.incrementAndGet();
            p.wake();
            parked.get(5, TimeUnit.SECONDS);
        }
    }
}
