package io.dsa.agent.host;

import io.dsa.agent.transport.TransportSecurity;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A host's job JVMs: one started and connected ahead with the default limits, waiting for the next
 * job (it hides a JVM's start-up from the job), and new ones for jobs that ask for other limits.
 * Thread-safe.
 */
final class SpareJvms {
    private static final Logger LOG = LoggerFactory.getLogger(SpareJvms.class);

    private final JobLimits.CpuSets cpuSets = JobLimits.CpuSets.forThisProcess();
    /** The limits of a job that asks for none; the spare JVM has them. */
    private final JobLimits defaultLimits;
    private final byte[] secret;
    private final TransportSecurity security;
    /** Where the next spare starts (in the background). */
    private final Executor background;
    private final String host;
    private final AtomicReference<AgentProcess> spare = new AtomicReference<>();
    private final AtomicBoolean preparing = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();

    /** @param host the host's address, for the log */
    SpareJvms(JobLimits defaultLimits, byte[] secret, TransportSecurity security, Executor background, String host) {
        this.defaultLimits = defaultLimits;
        this.secret = secret;
        this.security = security;
        this.background = background;
        this.host = host;
    }

    /** @return the spare JVM when {@code limits} are the default ones (and starts the next spare), else a new JVM */
    AgentProcess take(JobLimits limits) {
        if (limits.sameJvmAs(defaultLimits)) {
            AgentProcess p = spare.getAndSet(null);
            prepare();
            if (p != null && p.usable()) return p;
            if (p != null) p.kill();
        }
        return AgentProcess.start(limits, cpuSets.next(limits.cpus()), secret, security);
    }

    /** Starts a spare JVM in the background unless there is one (or one is starting). */
    void prepare() {
        if (closed.get() || spare.get() != null || !preparing.compareAndSet(false, true)) return;
        background.execute(() -> {
            try {
                AgentProcess p = AgentProcess.start(defaultLimits, cpuSets.next(defaultLimits.cpus()), secret, security);
                if (!spare.compareAndSet(null, p)) p.kill();
                if (closed.get()) killSpare();   // close() may have looked before it was there
            } catch (RuntimeException e) {
                LOG.warn("host {}: cannot start a spare JVM for the next job: {}", host, e.getMessage());
            } finally {
                preparing.set(false);
            }
        });
    }

    /** Kills the spare JVM and starts no other. */
    void close() {
        closed.set(true);
        killSpare();
    }

    private void killSpare() {
        AgentProcess p = spare.getAndSet(null);
        if (p != null) p.kill();
    }
}
