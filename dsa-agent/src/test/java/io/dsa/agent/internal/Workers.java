package io.dsa.agent.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

/** Test helper: worker threads that block in the runtime while the test plays the network. */
final class Workers {
    private Workers() {}

    /** How a node of unit tests waits (PARK, on a job that never fails unless the test fails it) for I/O thread {@code ioThread}. */
    static Waiting waiting(IoThread ioThread) {
        return new Waiting(io.dsa.agent.WaitStrategy.PARK, new JobLifecycle(0, new RecordingNetwork(0, 1), text -> {}), ioThread);
    }

    /** Starts {@code body(i)} for {@code i} in {@code [from, to)}, each on its own thread {@code worker-i}. */
    static <T> List<CompletableFuture<T>> start(int from, int to, IntFunction<T> body) {
        List<CompletableFuture<T>> all = new ArrayList<>();
        for (int i = from; i < to; i++) {
            int index = i;
            CompletableFuture<T> f = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    f.complete(body.apply(index));
                } catch (Throwable e) {
                    f.completeExceptionally(e);
                }
            }, "worker-" + i);
            t.setDaemon(true);
            t.start();
            all.add(f);
        }
        return all;
    }

    /** @return the result, waiting 5 s at most */
    static <T> T result(CompletableFuture<T> f) {
        return result(f, 5);
    }

    /** @return the result, waiting {@code seconds} at most */
    static <T> T result(CompletableFuture<T> f, int seconds) {
        try {
            return f.get(seconds, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("the worker threw " + e.getCause(), e.getCause());
        } catch (TimeoutException | InterruptedException e) {
            throw new AssertionError("the worker did not return within " + seconds + " s", e);
        }
    }

    /** @return what the worker threw, waiting 5 s at most */
    static Throwable failure(CompletableFuture<?> f) {
        try {
            Object r = f.get(5, TimeUnit.SECONDS);
            throw new AssertionError("the worker returned " + r + " instead of throwing");
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException | InterruptedException e) {
            throw new AssertionError("the worker did not return within 5 s", e);
        }
    }
}
