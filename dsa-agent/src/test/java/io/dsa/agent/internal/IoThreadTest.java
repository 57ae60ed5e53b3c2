package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link IoThread#call} and {@link IoThread#callLater} over a one-thread executor: results, exceptions, a closed node, a timeout. */
@Timeout(30)
class IoThreadTest {
    private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "io-test"));
    private final IoThread io = new IoThread() {
        @Override public void execute(Runnable task) { executor.execute(task); }

        @Override public boolean isCurrent() { return Thread.currentThread().getName().equals("io-test"); }
    };

    @AfterEach
    void stop() { executor.shutdownNow(); }

    @Test
    void theTaskRunsOnTheThreadAndItsResultComesBack() {
        assertEquals("io-test", io.call(3, () -> Thread.currentThread().getName(), 10_000));
        assertEquals(true, io.call(3, io::isCurrent, 10_000));
    }

    @Test
    void aCallOnTheThreadItselfRunsAtOnce() {
        assertEquals(42, io.call(3, () -> io.call(3, () -> 42, 10_000), 10_000));
    }

    @Test
    void theTasksRuntimeExceptionIsThrownAsItIs() {
        IllegalStateException thrown = new IllegalStateException("bad partition 7");
        assertSame(thrown, assertThrows(IllegalStateException.class, () -> io.call(3, () -> {
            throw thrown;
        }, 10_000)));
    }

    @Test
    void anErrorComesBackAsADsaExceptionNamingTheNode() {
        DsaException e = assertThrows(DsaException.class, () -> io.call(3, () -> {
            throw new AssertionError("broken invariant");
        }, 10_000));
        assertTrue(e.getMessage().startsWith("node 3: ") && e.getMessage().contains("broken invariant"), e.getMessage());
        assertTrue(e.getCause() instanceof AssertionError, String.valueOf(e.getCause()));
    }

    @Test
    void aClosedNodeSaysSo() {
        executor.shutdown();
        DsaException e = assertThrows(DsaException.class, () -> io.call(5, () -> 1, 10_000));
        assertEquals("node 5 is closed", e.getMessage());
        assertTrue(io.callLater(5, () -> 1).isCompletedExceptionally());
    }

    @Test
    void aTaskThatDoesNotRunInTimeFailsTheCallNamingTheTimeout() throws Exception {
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        io.execute(() -> {
            blocked.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(blocked.await(10, TimeUnit.SECONDS));
        DsaException e = assertThrows(DsaException.class, () -> io.call(2, () -> 1, 50));
        assertEquals("node 2's I/O thread did not run a task within 50 ms", e.getMessage());
        release.countDown();
        assertEquals(7, io.call(2, () -> 7, 10_000), "the thread runs tasks again once the blocking one ended");
    }
}
