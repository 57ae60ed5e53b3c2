package io.dsa.agent.internal;

import io.dsa.agent.transport.Spins;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A future the node's I/O completes, whose {@link #join()} and {@code get} spin and run the node's
 * I/O themselves where the I/O thread lends its work to waiting threads ({@code WaitStrategy.SPIN},
 * {@link IoThread#waitBegins}): a program that joins the future of {@code requestPartitionCopy}
 * waits the way a miss does, reading the reply itself, instead of parking while nobody reads it
 * (the I/O thread takes its work back only a lease after the last wait). Stages made from it are
 * such futures too. Where the I/O thread does not lend, it is a plain {@link CompletableFuture}.
 */
final class DrivingFuture<T> extends CompletableFuture<T> {
    private final IoThread io;

    DrivingFuture(IoThread io) { this.io = io; }

    /** @return a future for {@code io}'s results: a driving one where it lends its work, else a plain one */
    static <T> CompletableFuture<T> of(IoThread io) {
        return io.lends() ? new DrivingFuture<>(io) : new CompletableFuture<>();
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() { return new DrivingFuture<>(io); }

    @Override
    public T join() {
        drive();
        return super.join();
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
        drive();
        return super.get();
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        drive(deadline);
        return super.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    private void drive() { drive(Long.MAX_VALUE); }

    // Spins until done (or the deadline), running the node's I/O at each turn it may; not on the I/O thread itself.
    private void drive(long deadlineNs) {
        if (isDone() || io.isCurrent()) return;
        io.waitBegins();
        try {
            for (int turn = 1; !isDone(); turn++) {
                if (turn % 64 == 0) {
                    if (Thread.currentThread().isInterrupted()) return;   // get() then throws InterruptedException
                    if (deadlineNs != Long.MAX_VALUE && System.nanoTime() - deadlineNs >= 0) return;
                }
                if (!io.waitTurn() || Spins.yieldsAt(Long.MAX_VALUE, turn)) Spins.turn(Long.MAX_VALUE, turn);
            }
        } finally {
            io.waitEnds();
        }
    }
}
