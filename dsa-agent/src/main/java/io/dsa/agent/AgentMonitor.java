package io.dsa.agent;

/**
 * One per host (the paper's AgentMonitor): hosts {@link Agent}s of any number of VMs and moves or
 * clones them to other hosts. The handlers below are what one monitor calls on another, over the
 * authenticated wire ({@code TransferMessage}); only a peer holding the cluster secret reaches
 * them.
 *
 * <p>Migration, as the source monitor drives it on the target:
 * {@link #requestTransfer} (will you take it?), {@link #beginTransfer} (the job it belongs to),
 * {@link #transferAgent} (its state, in the versioned binary format), {@link #endTransfer} (the
 * copy becomes the agent; the source stops its own). Cloning is {@link #requestClone},
 * {@link #beginTransfer}, {@link #transferAgent}, {@link #endCloning}. Any step may throw
 * {@link io.dsa.DsaException} to refuse; the source then stays authoritative and aborts.
 *
 * <p>Handlers block until the step is done; callers must not invoke them on I/O threads.
 */
public interface AgentMonitor {
    /** @return this monitor's address, {@code host:port} */
    String address();

    /**
     * Asks this monitor to take agent {@code agentId} from {@code fromMonitor}.
     *
     * @throws io.dsa.DsaException when it refuses (already hosts that agent, shutting down)
     */
    void requestTransfer(String agentId, String fromMonitor);

    /**
     * Asks this monitor to take a clone of agent {@code agentId} from {@code fromMonitor}.
     *
     * @throws io.dsa.DsaException when it refuses
     */
    void requestClone(String agentId, String fromMonitor);

    /**
     * The job the agent belongs to: its program's classes and settings, so this monitor can
     * prepare a class loader before the state arrives.
     *
     * @param job the job description (an encoded {@code HostJobMessage} body)
     * @throws io.dsa.DsaException when the job cannot be prepared (e.g. its class does not load)
     */
    void beginTransfer(String agentId, String fromMonitor, byte[] job);

    /**
     * The agent's state in the versioned binary format.
     *
     * @throws io.dsa.DsaException for a state of an unknown version, or one that does not decode
     */
    void transferAgent(String agentId, byte[] state);

    /**
     * Completes a migration: this monitor's copy becomes the agent and starts.
     *
     * @throws io.dsa.DsaException when the copy cannot start
     */
    void endTransfer(String agentId);

    /**
     * Completes a cloning: this monitor's copy starts as a new node.
     *
     * @throws io.dsa.DsaException when the copy cannot start
     */
    void endCloning(String agentId);
}
