package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.agent.transport.Connection;
import io.dsa.agent.wire.HostJobEventMessage;
import io.dsa.agent.wire.HostReplyMessage;
import io.dsa.agent.wire.RetireMessage;
import io.dsa.agent.wire.SnapshotMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The current host's side of moving or cloning one of its agents ({@code beginTransfer},
 * {@code transferAgent}, {@code endTransfer}/{@code endCloning} or {@code abortTransfer}), and
 * the relay of a moved agent's events from its new host to its launcher. Until
 * {@code endTransfer} the agent here stays authoritative. Thread-safe.
 */
final class TransferSource {
    private static final Logger LOG = LoggerFactory.getLogger(TransferSource.class);

    private final AgentHost host;
    /** Agents of this host between beginTransfer and endTransfer/abortTransfer. */
    private final Map<String, Outgoing> outgoing = new ConcurrentHashMap<>();
    /** Agents that moved away: their new host's events are relayed to their launcher. */
    private final Map<String, Moved> moved = new ConcurrentHashMap<>();

    /** An agent on its way out; {@code cloning}: the new host takes a copy and the agent runs on here. */
    private record Outgoing(HostedJob job, boolean cloning, Connection taker) {}

    /** Where the events of an agent that moved away come from and go to. */
    private record Moved(long jobId, Connection owner, Connection taker) {}

    TransferSource(AgentHost host) { this.host = host; }

    /**
     * Checks that this host runs the agent and that it can go (a move needs a resumable program).
     *
     * @param taker the new host's connection, or null for a local call
     * @return the job's description ({@link JobCodec})
     */
    byte[] begin(String agentId, boolean clone, Connection taker) {
        HostedJob job = host.jobs.get(agentId);
        if (job == null || job.state != HostedJob.State.RUNNING) {
            throw new DsaException("host " + host.address() + " does not run agent " + agentId + "; it runs " + host.agentIds());
        }
        if (!clone && !job.resumable) {
            throw new DsaException("agent " + agentId + " runs " + job.job.programClass()
                    + ", which is not resumable(): it can move only between runs");
        }
        if (outgoing.putIfAbsent(agentId, new Outgoing(job, clone, taker)) != null) {
            throw new DsaException("agent " + agentId + " is already being transferred");
        }
        return JobCodec.encode(job.job, job.stopToken);
    }

    /** @return the agent's state at the safe point: for a move the whole node's (it is suspended from here), for a clone its copies */
    byte[] transfer(String agentId, int cloneId) {
        Outgoing out = outgoing(agentId);
        HostedJob job = out.job();
        if (out.cloning()) {
            if (cloneId < 0) throw new DsaException("the cloning of agent " + agentId + " names no clone id");
            return snapshot(job, cloneId);   // the agent runs on: nothing to suspend
        }
        job.setState(HostedJob.State.SUSPENDED);   // from here its run's outcome waits for the transfer's
        try {
            return snapshot(job, -1);
        } catch (RuntimeException e) {
            job.setState(HostedJob.State.RUNNING);
            throw e;
        }
    }

    private static byte[] snapshot(HostedJob job, int cloneId) {
        return job.process.call(id -> new SnapshotMessage(id, cloneId), HostReplyMessage.class, AgentHost.TRANSFER_STEP_TIMEOUT_MS)
                .payload();
    }

    /** The new host runs the agent now: the old one retires (its run reports nothing) and its JVM ends. */
    void end(String agentId) {
        Outgoing out = outgoing(agentId);
        HostedJob job = out.job();
        job.setState(HostedJob.State.MOVED);   // this copy's run reports nothing
        moved.put(agentId, new Moved(job.job.jobId(), job.owner, out.taker()));
        try {
            // as in DsaCluster.migrate: the old agent is closed before the new host releases the barrier
            job.process.call(RetireMessage::new, HostReplyMessage.class, AgentHost.TRANSFER_STEP_TIMEOUT_MS);
        } catch (RuntimeException e) {
            LOG.warn("host {}: the old agent {} did not retire cleanly: {}", host.address(), agentId, e.getMessage());
        }
        outgoing.remove(agentId);
        host.finish(job, HostedJob.State.MOVED);
        LOG.info("host {}: agent {} moved away", host.address(), agentId);
    }

    void endCloning(String agentId) {
        Outgoing out = outgoing.get(agentId);
        if (out == null || !out.cloning()) throw new DsaException("no cloning of " + agentId + " has begun on host " + host.address());
        outgoing.remove(agentId, out);
        LOG.info("host {}: agent {} was cloned", host.address(), agentId);
    }

    /** The new host gave up: the agent goes on here (its workers resume when node 0 releases). */
    void abort(String agentId) {
        Outgoing out = outgoing(agentId);
        outgoing.remove(agentId, out);
        if (out.cloning()) {
            LOG.warn("host {}: cloning of agent {} aborted", host.address(), agentId);
            return;
        }
        if (out.job().state == HostedJob.State.SUSPENDED) out.job().setState(HostedJob.State.RUNNING);
        LOG.warn("host {}: transfer of agent {} aborted; it stays here", host.address(), agentId);
    }

    /** Aborts every transfer in progress (the host is stopping). */
    void abortAll() {
        for (String id : outgoing.keySet()) {
            try {
                abort(id);
            } catch (RuntimeException e) {
                LOG.debug("resuming {}: {}", id, e.getMessage());
            }
        }
    }

    /** The host taking one of our agents left before the transfer ended: the agent stays here. */
    void onTakerLeft(Connection connection) {
        for (Map.Entry<String, Outgoing> e : outgoing.entrySet()) {
            if (e.getValue().taker() == connection) {
                LOG.warn("host {}: the host taking agent {} left before the transfer ended", host.address(), e.getKey());
                try {
                    abort(e.getKey());
                } catch (RuntimeException ex) {
                    LOG.warn("host {}: cannot resume agent {}: {}", host.address(), e.getKey(), ex.getMessage());
                }
            }
        }
    }

    // A host that took one of our agents sends its events here; the launcher knows only us.
    void relay(Connection from, HostJobEventMessage e) {
        for (Map.Entry<String, Moved> m : moved.entrySet()) {
            Moved mv = m.getValue();
            if (mv.taker() == from && mv.jobId() == e.jobId() && m.getKey().endsWith("/" + e.nodeId())) {
                if (mv.owner() != null) mv.owner().send(e);
                if (e.event() != HostJobEventMessage.STARTED && e.event() != HostJobEventMessage.ACCEPTED) moved.remove(m.getKey());
                return;
            }
        }
        LOG.warn("host {}: event of node {} from {} matches no agent that moved away; dropped", host.address(), e.nodeId(),
                from.remoteAddress());
    }

    /** @return the ids of the agents that moved away from this host and whose events it relays */
    List<String> movedAway() {
        List<String> rows = new ArrayList<>(moved.keySet());
        rows.sort(null);
        return rows;
    }

    private Outgoing outgoing(String agentId) {
        Outgoing out = outgoing.get(agentId);
        if (out == null) throw new DsaException("no transfer of agent " + agentId + " has begun on host " + host.address());
        return out;
    }
}
