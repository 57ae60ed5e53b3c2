package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.DsaProgram;
import io.dsa.agent.DsaAgent;
import io.dsa.agent.RunReport;
import io.dsa.agent.wire.HostJobMessage;
import java.util.function.Function;

/**
 * What a host asks of the runtime to move or clone an agent: the host does the protocol (who
 * talks to whom, class loaders, relaying events), the runtime does the agent (safe point, state,
 * the VM learning the new address).
 */
interface AgentMobility {
    /** The runtime's implementation. */
    AgentMobility RUNTIME = new RuntimeMobility();

    /**
     * Brings the agent's workers to a safe point (the next global barrier) and holds them there.
     *
     * @throws DsaException when the program is not resumable, or the agent cannot stop now
     */
    void suspend(DsaAgent agent, DsaProgram program, String agentId);

    /** @return the suspended agent's state in the versioned binary format */
    byte[] export(DsaAgent agent);

    /** The new copy runs: this suspended copy stops serving for good, without failing the job. */
    void handOver(DsaAgent agent);

    /** Lets a suspended agent's workers go on here (a transfer was aborted, or a clone is done). */
    void resume(DsaAgent agent);

    /**
     * Starts an agent on this host from {@code state}: the node itself ({@code clone} false) or a
     * new node of the same VM.
     *
     * @param host the host, for the agent's config ({@link AgentHost#config})
     * @throws DsaException for a state of an unknown version, or one that does not decode
     */
    Incoming restore(AgentHost host, HostJobMessage job, byte[] state, boolean clone);

    /**
     * An agent restored from a transferred state, not yet running its workers.
     *
     * @param nodeId the node it is (a new id for a clone)
     * @param agent the agent
     * @param resume runs the program's workers from the state's epoch and waits for the job, like
     *        {@link DsaAgent#run}
     */
    record Incoming(int nodeId, DsaAgent agent, Function<DsaProgram, RunReport> resumeWith) {
        RunReport resume(DsaProgram program) { return resumeWith.apply(program); }
    }
}
