package io.dsa.agent.cli;

import io.dsa.agent.HostPort;
import io.dsa.agent.host.StatusRow;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

/** Parsing of {@code --hosts a:p,b:p} for commands that talk to hosts. */
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

    /**
     * The hosts of {@code dsa run --launcher}: {@code HOST} or {@code HOST:PORT}, where a missing
     * port or port 0 lets each daemon pick a free one.
     *
     * @throws picocli.CommandLine.ParameterException naming the bad entry
     */
    static List<HostPort> parseToLaunch(CommandSpec spec, String text) {
        if (text == null || text.isBlank()) throw Checks.usage(spec, "--hosts is missing or empty: give --hosts HOST[:PORT][,HOST[:PORT]...]");
        List<HostPort> hosts = new ArrayList<>();
        for (String entry : text.split(",")) {
            String e = entry.trim();
            int colon = e.lastIndexOf(':');
            boolean bare = colon < 0 || (e.startsWith("[") && e.endsWith("]"));
            if (bare || e.endsWith(":0")) {
                String host = bare ? e : e.substring(0, colon);
                if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
                if (host.isEmpty()) throw Checks.usage(spec, "--hosts: entry '" + e + "' has no host");
                hosts.add(new HostPort(host, 0));
                continue;
            }
            try {
                hosts.add(HostPort.parse(e));
            } catch (IllegalArgumentException x) {
                throw Checks.usage(spec, "--hosts: " + x.getMessage());
            }
        }
        return hosts;
    }
}
