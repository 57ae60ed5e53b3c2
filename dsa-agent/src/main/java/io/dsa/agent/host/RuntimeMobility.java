package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.DsaProgram;
import io.dsa.agent.DsaAgent;
import io.dsa.agent.wire.HostJobMessage;

/** {@link AgentMobility} on the agent runtime. */
final class RuntimeMobility implements AgentMobility {
    @Override
    public void suspend(DsaAgent agent, DsaProgram program, String agentId) {
        if (!program.resumable()) {
            throw new DsaException("agent " + agentId + " runs " + program.getClass().getName()
                    + ", which is not resumable(): it can move only between runs");
        }
        throw unavailable(agentId);
    }

    @Override
    public byte[] export(DsaAgent agent) { throw unavailable(agent.getAgentId()); }

    @Override
    public void handOver(DsaAgent agent) { throw unavailable(agent.getAgentId()); }

    @Override
    public void resume(DsaAgent agent) {
        // nothing was suspended: suspend always refuses in this build
    }

    @Override
    public Incoming restore(AgentHost host, HostJobMessage job, byte[] state, boolean clone) {
        throw unavailable(DsaAgent.agentId(job.vmName(), job.nodeId()));
    }

    private static DsaException unavailable(String agentId) {
        return new DsaException("agent " + agentId + " cannot move: this build's runtime has no live migration");
    }
}
