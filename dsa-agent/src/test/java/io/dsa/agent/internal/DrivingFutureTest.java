package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A future of the node's I/O ({@link DrivingFuture}): where the I/O thread lends its work, joining
 * it is a wait that runs that work (here a scripted I/O thread whose fifth turn completes the
 * future), begun and ended once; its stages drive too; where the I/O thread does not lend, it is
 * a plain future.
 */
@Timeout(30)
class DrivingFutureTest {
    /** An I/O thread that lends: each turn of a wait "runs the I/O", and the fifth completes {@link #completes}. */
    static final class ScriptedIo implements IoThread {
        int begins;
        int ends;
        int turns;
        final AtomicReference<CompletableFuture<String>> completes = new AtomicReference<>();

        @Override public void execute(Runnable task) { task.run(); }

        @Override public boolean isCurrent() { return false; }

        @Override public boolean lends() { return true; }

        @Override public void waitBegins() { begins++; }

        @Override
        public boolean waitTurn() {
            if (++turns == 5) completes.get().complete("reply");
            return true;
        }

        @Override public void waitEnds() { ends++; }
    }

    @Test
    void joiningRunsTheNodesIoUntilTheReplyCompletesIt() {
        ScriptedIo io = new ScriptedIo();
        CompletableFuture<String> f = DrivingFuture.of(io);
        io.completes.set(f);
        assertInstanceOf(DrivingFuture.class, f);
        assertEquals("reply", f.join());
        assertEquals(5, io.turns, "the join ran the I/O until the fifth turn completed it");
        assertEquals(1, io.begins);
        assertEquals(1, io.ends);
        assertEquals("reply", f.join(), "a done future is not waited for again");
        assertEquals(5, io.turns);
    }

    @Test
    void itsStagesDriveToo() throws Exception {
        ScriptedIo io = new ScriptedIo();
        CompletableFuture<String> f = DrivingFuture.of(io);
        io.completes.set(f);
        CompletableFuture<Integer> length = f.thenApply(String::length);
        assertInstanceOf(DrivingFuture.class, length);
        assertEquals(5, length.get());
        assertEquals(1, io.begins);
        assertEquals(io.begins, io.ends);
    }

    @Test
    void aTimedGetGivesUpAtItsDeadlineAndEndsItsWait() {
        ScriptedIo io = new ScriptedIo();
        CompletableFuture<String> f = DrivingFuture.of(io);
        io.completes.set(new CompletableFuture<>());   // the turns complete another future: this one never completes
        assertThrows(TimeoutException.class, () -> f.get(20, TimeUnit.MILLISECONDS));
        assertTrue(io.turns > 5);
        assertEquals(1, io.ends, "the wait ended");
        assertFalse(f.isDone());
    }

    @Test
    void whereTheIoThreadDoesNotLendItIsAPlainFuture() {
        CompletableFuture<String> f = DrivingFuture.of(IoThread.CALLER);
        assertEquals(CompletableFuture.class, f.getClass());
    }
}
