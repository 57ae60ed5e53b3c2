package io.dsa.agent.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.channel.SelectStrategy;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The I/O thread's select strategy with {@link IoLoop#pollWhile}: it polls while told to, and blocks as before once not. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class IoLoopPollTest {
    @Test
    void pollsWhileTheConditionHoldsAndBlocksOnceItDoesNot() throws Exception {
        AtomicBoolean waiting = new AtomicBoolean(true);
        AtomicInteger polls = new AtomicInteger();
        IoLoop.SpinThenBlock s = new IoLoop.SpinThenBlock(() -> 0, waiting::get);
        assertEquals(SelectStrategy.CONTINUE, s.calculateStrategy(() -> { polls.incrementAndGet(); return 0; }, false), "nothing ready: poll again");
        assertEquals(1, polls.get(), "it looked at its sockets without blocking");
        assertEquals(3, s.calculateStrategy(() -> 3, false), "ready sockets are handled");
        assertEquals(0, s.calculateStrategy(() -> 0, true), "tasks run");
        waiting.set(false);
        assertEquals(SelectStrategy.SELECT, s.calculateStrategy(() -> { polls.incrementAndGet(); return 0; }, false),
                "no thread waits and no spin: it blocks at once, without a poll");
        assertEquals(1, polls.get());
    }

    @Test
    void aLoopPollsWhileToldAndStillRunsItsTasks() throws Exception {
        AtomicBoolean waiting = new AtomicBoolean(true);
        try (IoLoop loop = IoLoop.start("poll-test", true, () -> 0)) {
            loop.pollWhile(waiting::get);
            for (int i = 0; i < 100; i++) {
                java.util.concurrent.CompletableFuture<Integer> f = new java.util.concurrent.CompletableFuture<>();
                int k = i;
                loop.execute(() -> f.complete(k));
                assertEquals(k, f.get(5, TimeUnit.SECONDS));
                if (i == 50) waiting.set(false);   // then blocking again: a task still wakes it
            }
        }
    }
}
