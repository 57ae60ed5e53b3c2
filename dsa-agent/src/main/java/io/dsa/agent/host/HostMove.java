package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.agent.AgentMonitor;
import io.dsa.agent.TransferReport;
import io.dsa.agent.mobility.MoveChoreography;
import io.dsa.agent.wire.AbandonMoveMessage;
import io.dsa.agent.wire.AgentLaunchMessage;
import io.dsa.agent.wire.AgentRestoreMessage;
import io.dsa.agent.wire.AgentResumeMessage;
import io.dsa.agent.wire.AgentStartedMessage;
import io.dsa.agent.wire.AwaitMoveMessage;
import io.dsa.agent.wire.CommitMoveMessage;
import io.dsa.agent.wire.ConnectPeersMessage;
import io.dsa.agent.wire.ExpectMoveMessage;
import io.dsa.agent.wire.HoldBarrierMessage;
import io.dsa.agent.wire.HostJobMessage;
import io.dsa.agent.wire.HostReplyMessage;
import io.dsa.agent.wire.ReleaseBarrierMessage;
import java.util.List;

/**
 * The steps of a move between hosts (docs/hosts.md, "Moving a node"), run by the new host and
 * driven by {@link MoveChoreography}: the paper's pull protocol, each step a typed request to the
 * host of the node it concerns. The steps that go to every other node's host (await, commit,
 * abandon) are sent to all of them at once. One instance per move.
 */
final class HostMove extends HostSteps implements MoveChoreography.Port {
    private static final long TIMEOUT_MS = AgentHost.TRANSFER_STEP_TIMEOUT_MS;

    private AgentMonitor source;
    private boolean begun;
    private HostJobMessage m;
    private HostedJob job;
    private byte[] bytes;
    private long pauseStartNs;
    private long pauseNs;

    HostMove(TransferTarget target, AgentHost host, String agentId, String fromMonitor, List<String> vmHosts) {
        super(target, host, agentId, fromMonitor, vmHosts);
    }

    /** @return the exception a failure in {@code state} is reported with */
    RuntimeException failure(MoveChoreography.State state, Throwable cause) {
        if (source == null) return asIs(cause);
        if (state.compareTo(MoveChoreography.State.COMMITTING) >= 0) {
            return new DsaException("host " + host.address() + " took agent " + agentId + " from " + fromMonitor + ", then "
                    + "failed in " + state + " (the node counts as lost): " + AgentHost.describe(cause), cause);
        }
        return target.notTaken(agentId, fromMonitor, cause);
    }

    @Override
    public void prepare() {
        if (host.closed.get()) throw new DsaException("host " + host.address() + " is shutting down");
        if (fromMonitor == null || fromMonitor.equals(host.address())) {
            throw new DsaException("agent " + agentId + " cannot move from host " + fromMonitor + " to itself");
        }
        if (host.jobs.containsKey(agentId)) throw new DsaException("host " + host.address() + " already serves agent " + agentId);
        if (ref.node() == 0) {
            throw new DsaException("node 0 of vm '" + ref.vm() + "' cannot migrate: it is the monitor (registry, barrier root,"
                    + " lock home and the job's lifecycle); migrate nodes 1 and up");
        }
        source = target.remote(fromMonitor);
        JobCodec.Job described = JobCodec.decode(source.beginTransfer(agentId));   // checks: runs there, resumable
        begun = true;
        m = described.message();
        job = new HostedJob(m, target.peer(fromMonitor), described.stopToken());
        host.launch(job, AgentLaunchMessage.MOVE_TARGET, ref.node(), limits -> { });   // before the safe point
        locate(m);
        List<Integer> clones = hostOf.keySet().stream().filter(k -> k >= m.nodes()).toList();
        if (!clones.isEmpty()) {
            throw new DsaException("vm '" + ref.vm() + "' has clone(s) " + clones + ": a node cannot move while clones share its"
                    + " partitions (they know only its old address); see docs/hosts.md");
        }
    }

    @Override
    public void hold() {
        ask(0, HoldBarrierMessage::new);
        pauseStartNs = System.nanoTime();
    }

    @Override
    public void expect() {
        for (int j : nodes(m.nodes(), ref.node())) ask(j, id -> new ExpectMoveMessage(id, ref.node()));
    }

    @Override
    public void transfer() {
        byte[] state = source.transferAgent(agentId);
        AgentStartedMessage restored = job.process.call(id -> new AgentRestoreMessage(id, -1, state), AgentStartedMessage.class,
                TIMEOUT_MS);
        job.agentAddress = restored.address();
        bytes = state;
    }

    @Override
    public void connect() {
        job.process.call(ConnectPeersMessage::new, HostReplyMessage.class, TIMEOUT_MS);
    }

    @Override
    public void await() throws Exception {
        askAll(nodes(m.nodes(), ref.node()), id -> new AwaitMoveMessage(id, ref.node()));
    }

    @Override
    public void commit() throws Exception {
        String newAddress = job.agentAddress;
        askNodeZeroFirst(nodes(m.nodes(), ref.node()), id -> new CommitMoveMessage(id, ref.node(), newAddress));
        job.setState(HostedJob.State.RUNNING);
        if (host.jobs.putIfAbsent(agentId, job) != null) {
            throw new DsaException("host " + host.address() + " already serves agent " + agentId);
        }
        source.endTransfer(agentId);
    }

    @Override
    public void release() {
        ask(0, ReleaseBarrierMessage::new);
    }

    @Override
    public void resume() {
        job.process.call(AgentResumeMessage::new, HostReplyMessage.class, TIMEOUT_MS);
        pauseNs = System.nanoTime() - pauseStartNs;
    }

    @Override
    public void abandon() {
        DsaException failed = new DsaException("giving agent " + agentId + " back to " + fromMonitor + " failed");
        try {
            if (!hostOf.isEmpty()) {
                askAll(nodes(m.nodes(), ref.node()), id -> new AbandonMoveMessage(id, ref.node()));
            }
        } catch (Exception e) {
            failed.addSuppressed(e);
        }
        if (job != null) host.finish(job, HostedJob.State.FAILED);
        if (begun) {
            try {
                source.abortTransfer(agentId);   // the agent goes on at the source
            } catch (RuntimeException e) {
                failed.addSuppressed(e);
            }
        }
        if (failed.getSuppressed().length > 0) throw failed;
    }

    /** @return what the move did, once resumed */
    TransferReport report() { return new TransferReport(agentId, fromMonitor, host.address(), pauseNs, bytes.length); }
}
