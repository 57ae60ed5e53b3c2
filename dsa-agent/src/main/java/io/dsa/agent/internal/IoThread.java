package io.dsa.agent.internal;

import io.dsa.DsaException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The node's one I/O thread, which owns the node's coherence engine and runs every inbound
 * message handler. It exists from the node's construction, before any connection (the Netty
 * transport's event loop; in tests an in-memory one). {@link #execute} posts a task to it; a task
 * must not block. {@link #callLater} and {@link #call} run a task that computes something and
 * hand its result, or its exception, back to the caller.
 */
interface IoThread extends Executor {
    /** @return whether the calling thread is this I/O thread (or drives it in a wait: {@link #waitTurn}) */
    boolean isCurrent();

    /**
     * The calling thread begins a spin in which it calls {@link #waitTurn()} at every turn, then
     * {@link #waitEnds()} (in a {@code finally}). Under {@code WaitStrategy.SPIN} the I/O thread
     * then lends it its work (docs/runtime.md, "SPIN: the waiting thread does the I/O"); elsewhere nothing.
     */
    default void waitBegins() { }

    /**
     * One turn of a spinning wait: where the I/O thread lends itself and nobody else drives it,
     * the caller runs the ready I/O and the posted tasks, and is {@link #isCurrent()} until its
     * wait ends.
     *
     * @return whether the caller ran them
     */
    default boolean waitTurn() { return false; }

    /** Ends the calling thread's spinning wait ({@link #waitBegins()}). */
    default void waitEnds() { }

    /** @return whether this I/O thread lends its work to the node's spinning threads ({@link #waitTurn}) */
    default boolean lends() { return false; }

    /**
     * Runs {@code task} on this thread, now if the caller is it; the caller does not wait.
     *
     * @param nodeId the node this thread serves, named if it is closed
     * @return completed with the task's result once it ran (exceptionally if it threw, or the
     *         thread takes no more tasks: a {@link DsaException} saying the node is closed)
     */
    default <T> CompletableFuture<T> callLater(int nodeId, Supplier<T> task) {
        CompletableFuture<T> done = new CompletableFuture<>();
        Runnable run = () -> {
            try {
                done.complete(task.get());
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        };
        if (isCurrent()) {
            run.run();
            return done;
        }
        try {
            execute(run);
        } catch (RejectedExecutionException e) {
            done.completeExceptionally(new DsaException("node " + nodeId + " is closed", e));
        }
        return done;
    }

    /**
     * Runs {@code task} on this thread (at once if called there) and returns its result.
     *
     * @param nodeId the node this thread serves, named in the errors
     * @param timeoutMs how long the caller waits for the task to have run
     * @throws RuntimeException the task's own, as it threw it
     * @throws DsaException naming the node if the task threw a checked exception or an error, the
     *         node is closed, the task did not run within {@code timeoutMs}, or the caller was
     *         interrupted (its interrupt status set again)
     */
    default <T> T call(int nodeId, Supplier<T> task, long timeoutMs) {
        CompletableFuture<T> done = callLater(nodeId, task);
        try {
            return done.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            throw new DsaException("node " + nodeId + ": " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new DsaException("node " + nodeId + "'s I/O thread did not run a task within " + timeoutMs + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DsaException("interrupted while waiting for node " + nodeId + "'s I/O thread");
        }
    }

    /** An I/O thread for single-threaded tests: every task runs at once on the caller, which counts as the I/O thread. */
    IoThread CALLER = new IoThread() {
        @Override public void execute(Runnable task) { task.run(); }

        @Override public boolean isCurrent() { return true; }
    };
}
