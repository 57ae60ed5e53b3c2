package io.dsa.agent;

/**
 * One per host (the paper's AgentMonitor, Sec. 3.3): hosts {@link Agent}s of any number of VMs
 * and moves or clones them between hosts. Reachable over the authenticated wire
 * ({@code TransferMessage}): only a peer holding the cluster secret can call these handlers.
 *
 * <p>The transfer protocol is pulled by the new host, as in the paper: someone (a resource
 * manager, {@code dsa migrate}) calls {@link #requestTransfer} on the <em>new</em> monitor, naming
 * the agent and its current monitor; the new monitor then calls {@link #beginTransfer},
 * {@link #transferAgent} and {@link #endTransfer} on the <em>current</em> one, and starts the
 * agent. Cloning is {@link #requestClone}, {@link #beginTransfer}, {@link #transferAgent},
 * {@link #endCloning}. Until {@code endTransfer} the current monitor's agent stays authoritative:
 * if the new host fails or refuses at any step, the current one resumes it.
 *
 * <p>Handlers block until their step is done; callers must not invoke them on I/O threads.
 * A refusal is a {@link io.dsa.DsaException} that says why.
 */
public interface AgentMonitor {
    /** @return this monitor's address, {@code host:port} */
    String address();

    /**
     * On the new host: acquires agent {@code agentId} from the monitor at {@code fromMonitor} and
     * starts it here.
     *
     * @return what moved, and the pause it cost
     * @throws io.dsa.DsaException when either side refuses (unknown agent, program not resumable,
     *         state of an unknown version, the current host unreachable)
     */
    TransferReport requestTransfer(String agentId, String fromMonitor);

    /**
     * On the new host: starts a clone of agent {@code agentId} of the monitor at
     * {@code fromMonitor} here, as a new node of the same VM.
     *
     * @return what was copied; {@link TransferReport#agentId()} is the clone's id
     * @throws io.dsa.DsaException when either side refuses
     */
    TransferReport requestClone(String agentId, String fromMonitor);

    /**
     * On the current host: brings the agent to a safe point and returns the job it belongs to
     * (program classes and settings), so the new host can prepare a class loader.
     *
     * @throws io.dsa.DsaException when this host does not serve the agent or it cannot move now
     */
    byte[] beginTransfer(String agentId);

    /**
     * On the current host, after {@link #beginTransfer}: the agent's state, in the versioned
     * binary format.
     */
    byte[] transferAgent(String agentId);

    /** On the current host: the new host runs the agent now; stop this copy. */
    void endTransfer(String agentId);

    /** On the current host: the clone runs now; resume the original. */
    void endCloning(String agentId);

    /**
     * On the current host: the new host gave up after {@link #beginTransfer} (it refused the
     * state, or could not start the copy); resume the agent here. Also what the current host does
     * on its own when the new host's connection drops before {@link #endTransfer}.
     */
    void abortTransfer(String agentId);
}
