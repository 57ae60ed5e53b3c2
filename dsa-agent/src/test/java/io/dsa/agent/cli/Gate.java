package io.dsa.agent.cli;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A gate that a test program's worker waits at in its own code until someone opens it. A monitor,
 * not a latch: a running worker's stack report shows only its top frames
 * ({@code WorkerReports.RUNNING_FRAMES}), and tests look there for the program's method, which
 * calls {@link #await} and is the frame right under {@code Object.wait}'s.
 */
final class Gate {
    private boolean open;

    /** Lets every waiter through, now and later. */
    synchronized void open() {
        open = true;
        notifyAll();
    }

    /** @return whether the gate opened within {@code timeoutMs} */
    synchronized boolean await(long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        long leftNs;
        while (!open && (leftNs = deadline - System.nanoTime()) > 0) {
            wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(leftNs)));   // woken by open()
        }
        return open;
    }

    /** @return a gate that opens once {@code file} exists (a daemon thread watches its directory) or after {@code timeoutMs} */
    static Gate openedBy(String what, Path file, long timeoutMs) {
        Gate gate = new Gate();
        Thread watcher = new Thread(() -> {
            try {
                Poll.file(what, file, timeoutMs);
            } catch (InterruptedException | AssertionError e) {
                // the waiter finds the file missing and says so
            } finally {
                gate.open();
            }
        }, "gate " + file.getFileName());
        watcher.setDaemon(true);
        watcher.start();
        return gate;
    }
}
