package io.dsa.agent.cli;

import io.dsa.agent.HostPort;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

/** Parsing of {@code --hosts a:p,b:p} for commands that talk to hosts, and finding the host of a node. */
final class HostList {
    /** Environment variable naming the hosts when a command that talks to hosts gets no {@code --hosts}. */
    static final String HOSTS_ENV = "DSA_HOSTS";

    private HostList() {}

    /** @throws picocli.CommandLine.ParameterException naming the bad entry */
    static List<HostPort> parse(CommandSpec spec, String option, String text) {
        if (text == null || text.isBlank()) {
            throw Checks.usage(spec, option + " is missing or empty: give " + option + " HOST:PORT[,HOST:PORT...]"
                    + (option.equals("--hosts") ? " or set the environment variable " + HOSTS_ENV : ""));
        }
        List<HostPort> hosts = new ArrayList<>();
        for (String entry : text.split(",")) {
            try {
                hosts.add(HostPort.parse(entry.trim()));
            } catch (IllegalArgumentException e) {
                throw Checks.usage(spec, option + ": " + e.getMessage());
            }
        }
        return hosts;
    }

    /** @return the first of {@code hosts} that serves node (or clone) {@code node} of {@code vmName}, or null */
    static HostPort serving(io.dsa.agent.host.HostClient client, List<HostPort> hosts, String vmName, int node) {
        for (HostPort h : hosts) {
            for (String row : client.status(h, vmName)) {
                if (row.split("\t", -1)[1].equals(Integer.toString(node))) return h;
            }
        }
        return null;
    }
}
