package io.dsa.agent.cli;

import io.dsa.agent.HostPort;
import io.dsa.agent.host.HostClient;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where the workers of a VM on {@code dsa host} daemons are: every host is asked for its agents'
 * lines (see {@code DsaAgent.workerLines()}), which are put in node order. Used by
 * {@code dsa status --stacks} and by {@code dsa run --hosts} when a job times out.
 */
final class HostWorkers {
    private static final Pattern NODE = Pattern.compile("^node (\\d+)");

    private HostWorkers() {}

    /**
     * @return the lines of {@code vm}'s workers on {@code hosts}, by node; a host that cannot be
     *         asked gets a line naming it and why. Control characters other than the newline and
     *         tab of stack frames are shown as {@code ?}.
     */
    static List<String> ask(HostClient client, List<HostPort> hosts, String vm) {
        List<String> lines = new ArrayList<>();
        for (HostPort h : new LinkedHashSet<>(hosts)) {
            try {
                for (String line : client.workers(h, vm)) lines.add(line.replaceAll("[\\p{Cntrl}&&[^\n\t]]", "?"));
            } catch (RuntimeException e) {
                lines.add("host " + h + ": " + Jobs.describe(e));
            }
        }
        lines.sort(Comparator.comparingInt(HostWorkers::node));
        return lines;
    }

    // The node a line is about; lines about a host come last.
    private static int node(String line) {
        Matcher m = NODE.matcher(line);
        return m.find() && m.group(1).length() < 10 ? Integer.parseInt(m.group(1)) : Integer.MAX_VALUE;
    }
}
