package io.dsa.agent.wire;

import java.util.List;

/**
 * Host to child: the job this child JVM serves. The child loads the program's class from
 * {@code jarPath} in a class loader of its own without initialising it, checks that it is an
 * {@code io.dsa.DsaProgram}, instantiates it and then, by {@code mode}: {@link #RUN} starts the
 * node's agent and runs the program; {@link #MOVE_TARGET} waits for an {@link AgentRestoreMessage}
 * (a node moving here); {@link #CLONE_TARGET} loads nothing and waits for the clone's state.
 * Answered by an {@link AgentStartedMessage}.
 *
 * @param mode {@link #RUN}, {@link #MOVE_TARGET} or {@link #CLONE_TARGET}
 * @param vmName the VM's name
 * @param nodeId the node (for a clone: the node it is cloned from)
 * @param nodes nodes in the VM
 * @param threadsPerNode workers per node
 * @param monitorAddress node 0's {@code host:port}; null for node 0 itself
 * @param bindHost the address the agent listens on (the host's {@code --bind})
 * @param programClass the program's class name
 * @param args the program's arguments
 * @param options the job's settings, {@code key=value}, as the launcher sent them
 * @param jarPath the shipped jar in the host's work directory; empty for a clone
 */
public record AgentLaunchMessage(long requestId, int mode, String vmName, int nodeId, int nodes, int threadsPerNode,
                                 String monitorAddress, String bindHost, String programClass, List<String> args,
                                 List<String> options, String jarPath) implements AgentControlMessage {
    /** Start the agent and run the program. */
    public static final int RUN = 1;
    /** Load the program; the agent comes from a moved state. */
    public static final int MOVE_TARGET = 2;
    /** Load nothing; the agent comes from a clone's state. */
    public static final int CLONE_TARGET = 3;
}
