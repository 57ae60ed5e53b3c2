package io.dsa.agent.host;

import io.dsa.agent.DsaAgent;
import io.dsa.agent.DsaConfig;
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

    /** When the last progress line went to the owner, {@code System.nanoTime()}; 0 before the first. */
    private long lastProgressNs;

    /** @return whether a progress line at {@code nowNs} may go to the owner: one per {@link io.dsa.DsaNode#PROGRESS_INTERVAL_MS} */
    synchronized boolean progressDue(long nowNs) {
        if (lastProgressNs != 0 && nowNs - lastProgressNs < TimeUnit.MILLISECONDS.toNanos(io.dsa.DsaNode.PROGRESS_INTERVAL_MS)) return false;
        lastProgressNs = nowNs == 0 ? 1 : nowNs;
        return true;
    }

    HostedJob(HostJobMessage job, Connection owner, String stopToken) {
        this.job = job;
        this.owner = owner;
        this.stopToken = stopToken;
    }

    /**
     * Checks a job from the network before the host acts on it: the VM name (it names files and
     * status rows), the node among the VM's nodes, the shape's ranges, and that the program, its
     * arguments, options and jar are there. The agent's JVM checks the rest when it builds its config.
     *
     * @return why the job is refused, or null
     */
    static String invalid(HostJobMessage m) {
        if (m.vmName() == null || !m.vmName().matches(DsaConfig.VM_NAME_PATTERN)) {
            return "vm name '" + (m.vmName() == null ? null : StatusRow.shown(m.vmName()))
                    + "' invalid: use 1 to 64 letters, digits, '.', '_' or '-'";
        }
        if (m.nodes() < 1 || m.nodes() > DsaConfig.MAX_NODES || m.threadsPerNode() < 1 || m.threadsPerNode() > DsaConfig.MAX_THREADS_PER_NODE) {
            return "vm '" + m.vmName() + "' of " + m.nodes() + " nodes x " + m.threadsPerNode() + " threads: expected [1, "
                    + DsaConfig.MAX_NODES + "] nodes x [1, " + DsaConfig.MAX_THREADS_PER_NODE + "] threads";
        }
        if (m.nodeId() < 0 || m.nodeId() >= m.nodes()) return "node id " + m.nodeId() + " out of range [0, " + m.nodes() + ")";
        if (m.programClass() == null || m.programClass().isEmpty() || m.args() == null || m.options() == null || m.jar() == null
                || m.args().stream().anyMatch(java.util.Objects::isNull) || m.options().stream().anyMatch(java.util.Objects::isNull)) {
            return "the job of node " + m.nodeId() + " of vm '" + m.vmName() + "' lacks its program class, arguments, options or jar";
        }
        return null;
    }

    /**
     * @return the clone id of the job option {@code promoteClone=C} (a restart's node that a clone of
     *         its VM on this host becomes; docs/failures.md, "Clone promotion"), or -1 without it
     * @throws io.dsa.DsaException when the clone id does not parse
     */
    static int promotedClone(HostJobMessage m) {
        for (String option : m.options()) {
            if (option.startsWith(ChildAgent.PROMOTE_CLONE + "=")) {
                try {
                    return Integer.parseInt(option.substring(ChildAgent.PROMOTE_CLONE.length() + 1));
                } catch (NumberFormatException e) {
                    throw new io.dsa.DsaException("job option '" + option + "': the clone id does not parse");
                }
            }
        }
        return -1;
    }

    /** @return {@code vm/node} */
    String id() { return DsaAgent.agentId(job.vmName(), job.nodeId()); }

    synchronized void setState(State next) {
        state = next;
        notifyAll();
    }

    /**
     * Ends this job's life on its host in {@code asked}, unless it ended or moved away already. A
     * node whose JVM sent its outcome before a stop reached it ends with that outcome: its launcher
     * may have heard DONE and left (which stops its agents on the host) before the host's own report
     * of the outcome recorded it, and such a node did finish, it was not stopped.
     *
     * @return the state the job is in now
     */
    synchronized State end(State asked) {
        switch (state) {
            case MOVED, DONE, FAILED, STOPPED -> { return state; }
            default -> { }
        }
        HostJobEventMessage told = outcome;
        State next = asked == State.STOPPED && told != null
                ? (told.event() == HostJobEventMessage.DONE ? State.DONE : State.FAILED) : asked;
        setState(next);
        return next;
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
