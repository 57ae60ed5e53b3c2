package io.dsa.agent.wire;

/**
 * One agent a host serves, as a {@link HostStatusMessage} carries it: explicit fields, unchecked
 * (the receiver checks them, {@code io.dsa.agent.host.StatusRow#of}).
 *
 * @param vm the VM's name
 * @param node the node's (or clone's) id
 * @param host the serving host's {@code host:port}
 * @param agent the agent's {@code host:port}, or {@code -} while it has none
 * @param state the agent's state name ({@code RUNNING}, ...)
 * @param program the program's class name
 * @param homed partitions homed at the agent, or -1 where unknown
 * @param cached partitions cached at the agent, or -1 where unknown
 * @param nodes how many nodes the VM has, 0 where not said
 */
public record AgentRow(String vm, int node, String host, String agent, String state, String program, int homed,
                       int cached, int nodes) {}
