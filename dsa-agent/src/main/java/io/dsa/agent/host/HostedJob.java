package io.dsa.agent.host;

import io.dsa.agent.DsaAgent;
import io.dsa.agent.transport.Connection;
import io.dsa.agent.wire.HostJobEventMessage;
import io.dsa.agent.wire.HostJobMessage;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** One agent a host serves: its job, who submitted it, its JVM and where it is in its life. */
final class HostedJob {
    /** Where a hosted agent is in its life. */
    enum State { STARTING, RUNNING, SUSPENDED, MOVED, DONE, FAILED, STOPPED,
        /** A clone: no workers, serves reads, stops when its VM's node 0 goes. */
        CLONE }

    final HostJobMessage job;
    /** Who gets the job's events: its launcher, the host it moved from, or null (a clone). */
    final Connection owner;
    /** The token a STOP_VM must carry (hex), returned to the launcher when it submitted the job. */
    final String stopToken;
    volatile State state = State.STARTING;
    volatile AgentProcess process;
    volatile String agentAddress;
    volatile boolean resumable;
    volatile Path jarFile;
    /** The outcome its JVM sent (DONE or FAILED); set on the I/O thread before the JVM's exit is handled. */
    volatile HostJobEventMessage outcome;
    /** Completed once STARTED went to the owner (or no STARTED is due): outcomes follow it. */
    final CompletableFuture<Void> announced = new CompletableFuture<>();
    /** Counted down when its JVM has exited and its files are deleted. */
    final CountDownLatch ended = new CountDownLatch(1);

    HostedJob(HostJobMessage job, Connection owner, String stopToken) {
        this.job = job;
        this.owner = owner;
        this.stopToken = stopToken;
    }

    /** @return {@code vm/node} */
    String id() { return DsaAgent.agentId(job.vmName(), job.nodeId()); }

    synchronized void setState(State next) {
        state = next;
        notifyAll();
    }

    /** Waits while a transfer holds this job (state SUSPENDED), up to {@code timeoutMs}. */
    synchronized void awaitNotSuspended(long timeoutMs) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        try {
            while (state == State.SUSPENDED) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) return;
                wait(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
