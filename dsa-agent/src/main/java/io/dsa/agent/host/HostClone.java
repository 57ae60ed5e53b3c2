package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.agent.AgentState;
import io.dsa.agent.DsaAgent;
import io.dsa.agent.TransferReport;
import io.dsa.agent.mobility.CloneChoreography;
import io.dsa.agent.wire.AdmitCloneMessage;
import io.dsa.agent.wire.AgentLaunchMessage;
import io.dsa.agent.wire.AgentRestoreMessage;
import io.dsa.agent.wire.AgentStartedMessage;
import io.dsa.agent.wire.AllocateCloneIdMessage;
import io.dsa.agent.wire.CloneIdMessage;
import io.dsa.agent.wire.ConnectPeersMessage;
import io.dsa.agent.wire.HoldBarrierMessage;
import io.dsa.agent.wire.HostJobMessage;
import io.dsa.agent.wire.HostReplyMessage;
import io.dsa.agent.wire.RegisterCloneMessage;
import io.dsa.agent.wire.ReleaseBarrierMessage;
import java.util.List;

/**
 * The steps of cloning a node onto this host (docs/hosts.md, "Cloning"), driven by
 * {@link CloneChoreography}; admitting and registering go to every node's host at once. One
 * instance per clone.
 */
final class HostClone extends HostSteps implements CloneChoreography.Port {
    private static final long TIMEOUT_MS = AgentHost.TRANSFER_STEP_TIMEOUT_MS;

    private RemoteAgentMonitor source;
    private boolean begun;
    private HostJobMessage m;
    private HostedJob job;
    private int cloneId;
    private String cloneAgentId;
    private byte[] bytes;
    private AgentState state;
    private long pauseStartNs;
    private long pauseNs;

    HostClone(TransferTarget target, AgentHost host, String agentId, String fromMonitor, List<String> vmHosts) {
        super(target, host, agentId, fromMonitor, vmHosts);
    }

    /** @return the exception a failure in {@code state} is reported with */
    RuntimeException failure(CloneChoreography.State state, Throwable cause) {
        if (source == null) return asIs(cause);
        return target.notCloned(agentId, fromMonitor, cause);
    }

    @Override
    public void prepare() {
        if (host.closed.get()) throw new DsaException("host " + host.address() + " is shutting down");
        source = (RemoteAgentMonitor) target.remote(fromMonitor);
        JobCodec.Job described = JobCodec.decode(source.beginCloning(agentId));
        begun = true;
        m = described.message();
        locate(m);
        if (ref.node() >= m.nodes()) throw new DsaException("agent " + agentId + " is a clone; clone node 0 to " + (m.nodes() - 1));
        cloneId = target.ask(hostOf.get(0), ref.vm(), 0, AllocateCloneIdMessage::new, CloneIdMessage.class).cloneId();   // each id once
        if (cloneId < m.nodes()) throw new DsaException("node 0 of vm '" + ref.vm() + "' gave clone id " + cloneId + ", a node's");
        cloneAgentId = DsaAgent.agentId(ref.vm(), cloneId);
        job = new HostedJob(new HostJobMessage(m.jobId(), ref.vm(), cloneId, m.nodes(), m.threadsPerNode(), m.monitorAddress(),
                m.programClass(), m.args(), m.options(), new byte[0], m.heapBytes(), m.cpus()), null, described.stopToken());
        host.launch(job, AgentLaunchMessage.CLONE_TARGET, ref.node(), limits -> { });   // the JVM starts before the safe point
    }

    @Override
    public void hold() {
        ask(0, HoldBarrierMessage::new);
        pauseStartNs = System.nanoTime();
    }

    @Override
    public void transfer() {
        byte[] copy = source.transferClone(agentId, cloneId);
        state = AgentState.decode(copy);
        job.agentAddress = job.process.call(id -> new AgentRestoreMessage(id, cloneId, copy), AgentStartedMessage.class,
                TIMEOUT_MS).address();
        bytes = copy;
    }

    @Override
    public void admit() throws Exception {
        askAll(nodes(m.nodes(), -1), id -> new AdmitCloneMessage(id, cloneId));
    }

    @Override
    public void connect() {
        job.process.call(ConnectPeersMessage::new, HostReplyMessage.class, TIMEOUT_MS);
    }

    @Override
    public void register() throws Exception {
        long[] holds = HostRequests.pack(DsaAgent.clonePartitions(state));
        askAll(nodes(m.nodes(), -1), id -> new RegisterCloneMessage(id, cloneId, holds));
    }

    @Override
    public void commit() {
        job.setState(HostedJob.State.CLONE);
        if (host.jobs.putIfAbsent(cloneAgentId, job) != null) {
            throw new DsaException("host " + host.address() + " already serves agent " + cloneAgentId);
        }
        source.endCloning(agentId);
    }

    @Override
    public void release() {
        ask(0, ReleaseBarrierMessage::new);
        pauseNs = System.nanoTime() - pauseStartNs;
    }

    @Override
    public void abandon() {
        // the homes that registered the clone forget it when its connections close
        if (job != null) host.finish(job, HostedJob.State.FAILED);
        if (begun) source.abortTransfer(agentId);
    }

    /** @return what the cloning did, once cloned */
    TransferReport report() { return new TransferReport(cloneAgentId, fromMonitor, host.address(), pauseNs, bytes.length); }
}
