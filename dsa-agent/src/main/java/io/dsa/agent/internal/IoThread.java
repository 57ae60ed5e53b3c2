package io.dsa.agent.internal;

import java.util.concurrent.Executor;

/**
 * The node's one I/O thread, which owns the node's coherence engine and runs every inbound
 * message handler. It exists from the node's construction, before any connection (the Netty
 * transport's event loop; in tests an in-memory one). {@link #execute} posts a task to it; a task
 * must not block.
 */
interface IoThread extends Executor {
    /** @return whether the calling thread is this I/O thread */
    boolean isCurrent();

    /** An I/O thread for single-threaded tests: every task runs at once on the caller, which counts as the I/O thread. */
    IoThread CALLER = new IoThread() {
        @Override public void execute(Runnable task) { task.run(); }

        @Override public boolean isCurrent() { return true; }
    };
}
