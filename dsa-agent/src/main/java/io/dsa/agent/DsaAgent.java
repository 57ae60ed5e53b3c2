package io.dsa.agent;

import io.dsa.DsaException;
import io.dsa.DsaProgram;
import io.dsa.agent.internal.JobRunner;
import io.dsa.agent.internal.NodeRuntime;
import java.util.List;

/**
 * One node of a DSA virtual machine (the paper's DsaAgent, library style): holds the partitions
 * homed here, caches others, runs the coherence protocol, and proxies the node's workers.
 * Node 0's agent is also the monitor (membership, registry, barrier root).
 *
 * <pre>{@code
 * DsaAgent agent = DsaAgent.start(config);      // binds, joins the monitor
 * RunReport report = agent.run(program, args);  // collective: every node calls it
 * agent.close();
 * }</pre>
 */
public final class DsaAgent implements Agent, AutoCloseable {
    private final NodeRuntime runtime;
    private boolean ran;
    private volatile AgentMonitor monitor;

    private DsaAgent(NodeRuntime runtime) { this.runtime = runtime; }

    /**
     * Starts the agent of node {@code config.nodeId()}: binds its port and, unless it is node 0,
     * joins the monitor at {@code config.monitorAddress()}. Returns without waiting for the VM
     * to form.
     *
     * @throws io.dsa.DsaException if the port cannot be bound or the monitor refuses
     */
    public static DsaAgent start(DsaConfig config) {
        return new DsaAgent(NodeRuntime.start(config));
    }

    /** @return this node's id */
    public int nodeId() { return runtime.nodeId(); }

    /** @return the {@code host:port} this agent listens on */
    public String address() { return runtime.address(); }

    /**
     * Runs {@code program} on this node once the VM has formed: {@code setup}, then
     * {@code threadsPerNode} workers. Collective: every node of the VM calls it. Returns when
     * every worker of every node has finished.
     *
     * @return on node 0, every node's report lines and the timings; on other nodes, this node's
     * @throws io.dsa.DsaException if any worker anywhere threw (the first failure), or the VM
     *         failed to form in time
     */
    public RunReport run(DsaProgram program, List<String> args) {
        synchronized (this) {
            if (ran) throw new DsaException("node " + nodeId() + " already ran a program; start a new agent for the next");
            ran = true;
        }
        return JobRunner.run(runtime, program, args);
    }

    /** @return {@code vmName/nodeId} */
    @Override
    public String getAgentId() { return agentId(runtime.vmName(), runtime.nodeId()); }

    /**
     * @return the id of node {@code nodeId} of VM {@code vmName}, as {@link #getAgentId()} spells it
     */
    public static String agentId(String vmName, int nodeId) { return vmName + "/" + nodeId; }

    /** Remembers the monitor hosting this agent; see {@link #monitor()}. */
    @Override
    public void initialize(AgentMonitor monitor) { this.monitor = monitor; }

    /** @return the monitor hosting this agent, or null for an agent started library style */
    public AgentMonitor monitor() { return monitor; }

    /**
     * The agent is serving from the moment {@link #start(DsaConfig)} returns (it has bound its port
     * and joined the monitor); the workers start with {@link #run}. Nothing more to do here.
     */
    @Override
    public void start() {
        if (runtime.isClosed()) throw new DsaException("agent " + getAgentId() + " is stopped and cannot start again");
    }

    /** Same as {@link #close()}. */
    @Override
    public void stop() { close(); }

    /**
     * @return partitions of all arrays homed at this node
     */
    public int partitionsHomed() { return runtime.partitionCounts()[0]; }

    /**
     * @return partitions of all arrays homed elsewhere of which this node holds a valid copy
     */
    public int partitionsCached() { return runtime.partitionCounts()[1]; }

    /** Stops the agent and closes its connections. Idempotent. */
    @Override
    public void close() { runtime.close(); }
}
