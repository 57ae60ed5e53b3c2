package io.dsa.agent.host;

import io.dsa.agent.wire.AgentStatusMessage;
import io.dsa.agent.wire.AgentStatusQueryMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A host's answers about its agents ({@code dsa status}, the workers and the counters): each
 * agent's JVM is asked in parallel on the host's control threads, at most
 * {@link AgentHost#STATUS_TIMEOUT_MS} each; see {@link AgentHost#status}, {@link AgentHost#workers}
 * and {@link AgentHost#counters}.
 */
final class HostStatus {
    private final AgentHost host;

    HostStatus(AgentHost host) { this.host = host; }

    List<StatusRow> status(String vmName) {
        List<StatusRow> rows = new ArrayList<>();
        for (Map.Entry<HostedJob, AgentStatusMessage> e : ask(vmName, AgentStatusQueryMessage.COUNTS_ONLY).entrySet()) {
            HostedJob j = e.getKey();
            AgentStatusMessage c = e.getValue();
            rows.add(new StatusRow(j.job.vmName(), j.job.nodeId(), host.address(), j.agentAddress == null ? StatusRow.NO_AGENT
                    : j.agentAddress, j.state.name(), j.job.programClass(), c == null ? 0 : c.homed(), c == null ? 0 : c.cached(),
                    j.job.nodes()));
        }
        rows.sort(java.util.Comparator.comparing(StatusRow::vm).thenComparingInt(StatusRow::node));
        rows.addAll(host.finished.rows(vmName));
        return rows;
    }

    List<String> workers(String vmName) {
        List<String> lines = new ArrayList<>();
        for (Map.Entry<HostedJob, AgentStatusMessage> e : ask(vmName, AgentStatusQueryMessage.WORKERS).entrySet()) {
            HostedJob j = e.getKey();
            AgentStatusMessage m = e.getValue();
            if (m != null) {
                lines.addAll(m.rows());
            } else {
                lines.add("node " + j.job.nodeId() + ": " + (j.state == HostedJob.State.RUNNING ? "its agent on " + host.address()
                        + " did not answer within " + AgentHost.STATUS_TIMEOUT_MS + " ms"
                        : j.state.name().toLowerCase(java.util.Locale.ROOT)));
            }
        }
        return lines;
    }

    List<String> counters(String vmName) {
        List<String> rows = new ArrayList<>();
        for (AgentStatusMessage m : ask(vmName, AgentStatusQueryMessage.COUNTERS).values()) if (m != null) rows.addAll(m.rows());
        return rows;
    }

    // Asks the JVM of every agent of vmName (all if null) with `detail`, in parallel; null for one that cannot answer.
    private Map<HostedJob, AgentStatusMessage> ask(String vmName, int detail) {
        Map<HostedJob, CompletableFuture<AgentStatusMessage>> asked = new java.util.TreeMap<>(
                java.util.Comparator.comparing((HostedJob j) -> j.job.vmName()).thenComparingInt(j -> j.job.nodeId()));
        for (HostedJob j : host.jobs.values()) {
            if (vmName != null && !vmName.equals(j.job.vmName())) continue;
            AgentProcess p = j.process;
            asked.put(j, p == null || j.agentAddress == null ? CompletableFuture.completedFuture(null)
                    : CompletableFuture.supplyAsync(() -> p.call(id -> new AgentStatusQueryMessage(id, detail), AgentStatusMessage.class,
                            AgentHost.STATUS_TIMEOUT_MS), host.control).exceptionally(e -> null));
        }
        Map<HostedJob, AgentStatusMessage> answers = new java.util.LinkedHashMap<>();
        for (Map.Entry<HostedJob, CompletableFuture<AgentStatusMessage>> e : asked.entrySet()) answers.put(e.getKey(), e.getValue().join());
        return answers;
    }
}
