package io.dsa.agent;

import java.util.List;

/**
 * What a finished job reports.
 *
 * @param nodes nodes in the VM
 * @param threadsPerNode workers per node
 * @param lines every {@code report} line, as {@code "node K: text"}, in arrival order
 * @param startupNanos from starting the agents to the membership view being complete
 * @param runNanos from the view to every worker finished
 */
public record RunReport(int nodes, int threadsPerNode, List<String> lines, long startupNanos, long runNanos) {}
