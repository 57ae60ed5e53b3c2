package io.dsa.agent.wire;

import java.util.List;

/**
 * Launcher to host: start node {@code nodeId} of VM {@code vmName} on this host and run the
 * program. The program's classes travel in {@code jar} (a JAR file's bytes, possibly empty when
 * the host is expected to have them already); the host runs the node's agent in a JVM of its own
 * that loads them in a class loader of their own. The host answers with events
 * ({@link HostJobEventMessage}): first {@link HostJobEventMessage#ACCEPTED} with the stop token.
 *
 * @param jobId the launcher's id for this node's job; echoed in every {@link HostJobEventMessage}
 * @param vmName the VM's name
 * @param nodeId the node to start, in {@code [0, nodes)}
 * @param nodes nodes in the VM
 * @param threadsPerNode workers per node
 * @param monitorAddress node 0's {@code host:port}; null for node 0 itself
 * @param programClass the full name of the class implementing {@code io.dsa.DsaProgram}
 * @param args the program's arguments
 * @param options further VM settings as {@code key=value}: {@code barrier}, {@code fanout}, {@code proxy}
 * @param jar the program's JAR file
 * @param heapBytes the heap the node's JVM asks for ({@code -Xmx}); 0 for the host's default. The
 *        host caps it at its {@code --max-job-heap}
 * @param cpus the processors the node's JVM asks for; 0 for the host's default. The host caps it
 *        at its {@code --max-job-cpus}
 */
public record HostJobMessage(long jobId, String vmName, int nodeId, int nodes, int threadsPerNode,
                             String monitorAddress, String programClass, List<String> args, List<String> options,
                             byte[] jar, long heapBytes, int cpus) implements WireMessage {}
