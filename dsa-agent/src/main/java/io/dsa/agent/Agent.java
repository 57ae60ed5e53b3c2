package io.dsa.agent;

/**
 * A mobile agent (the paper's Sec. 3.3): something an {@link AgentMonitor} hosts, and can move or
 * clone to another host. {@link DsaAgent} is the one kind of agent DSA has.
 *
 * <p>Life cycle: created, {@link #initialize} by the monitor that hosts it, {@link #start}, and
 * {@link #stop}. After a transfer the target monitor initializes and starts its copy; the
 * source's copy is stopped.
 */
public interface Agent {
    /** @return this agent's id, unique among the agents of all VMs: {@code vmName/nodeId} */
    String getAgentId();

    /**
     * Tells the agent which monitor hosts it. Called once per host, before {@link #start}.
     *
     * @param monitor the hosting monitor
     */
    void initialize(AgentMonitor monitor);

    /** Starts (or, after a transfer, resumes) the agent's work. Idempotent. */
    void start();

    /** Stops the agent and releases its resources. Idempotent. */
    void stop();
}
