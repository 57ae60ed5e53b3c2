package io.dsa.agent.wire;

import java.util.List;

/**
 * Launcher to host: start node {@code nodeId} of VM {@code vmName} on this host and run the
 * program. The program's classes travel in {@code jar} (a JAR file's bytes, possibly empty when
 * the host is expected to have them already) and are loaded in a class loader of their own.
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
 */
public record HostJobMessage(long jobId, String vmName, int nodeId, int nodes, int threadsPerNode,
                             String monitorAddress, String programClass, List<String> args, List<String> options,
                             byte[] jar) implements WireMessage {}
