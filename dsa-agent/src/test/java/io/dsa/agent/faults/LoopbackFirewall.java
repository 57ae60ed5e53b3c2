package io.dsa.agent.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Cuts loopback addresses from each other without a reset, with {@code iptables} DROP rules in
 * the INPUT chain (loopback packets pass it), so that the packets between two addresses vanish as
 * on a broken network. Only addresses in 127.0.0.0/8 are ever named; every rule added is removed
 * by {@link #close()}, which a test calls in a {@code finally} (try-with-resources). Needs root and
 * the {@code iptables} command: {@link #unavailable()} says why not, for a JUnit assumption.
 */
final class LoopbackFirewall implements AutoCloseable {
    private static final long COMMAND_TIMEOUT_MS = 20_000;

    /** The rules this instance added, as iptables arguments after {@code -I}/{@code -D INPUT}. */
    private final List<List<String>> rules = new ArrayList<>();

    /** @return why rules cannot be set here (not root, no iptables, iptables fails), or null when they can */
    static String unavailable() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "the firewall fault tests need root (iptables), this JVM runs as " + System.getProperty("user.name");
        }
        try {
            String failure = run(List.of("iptables", "-w", "-n", "-L", "INPUT"));
            return failure == null ? null : "iptables does not work here: " + failure;
        } catch (IOException e) {
            return "no iptables command (Debian: apt-get install iptables): " + e.getMessage();
        }
    }

    /** Drops every packet between {@code a} and {@code b}, both ways. */
    void cut(String a, String b) throws IOException {
        for (String[] pair : new String[][] {{a, b}, {b, a}}) {
            List<String> rule = List.of("-s", loopback(pair[0]), "-d", loopback(pair[1]), "-j", "DROP");
            command("-I", rule);
            rules.add(rule);
        }
    }

    /** Drops every packet between {@code node} and each of {@code others}. */
    void isolate(String node, List<String> others) throws IOException {
        for (String other : others) cut(node, other);
    }

    /** Removes every rule this instance added (the network heals); idempotent. */
    void heal() throws IOException {
        IOException first = null;
        while (!rules.isEmpty()) {
            List<String> rule = rules.remove(rules.size() - 1);
            try {
                command("-D", rule);
            } catch (IOException e) {
                if (first == null) first = e;
            }
        }
        if (first != null) throw first;
    }

    @Override
    public void close() throws IOException { heal(); }

    private static String loopback(String address) {
        if (!address.matches("127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}")) {
            throw new IllegalArgumentException("address " + address + " is not an IPv4 literal in 127.0.0.0/8: refused");
        }
        return address + "/32";
    }

    private static void command(String op, List<String> rule) throws IOException {
        List<String> command = new ArrayList<>(List.of("iptables", "-w", op, "INPUT"));
        command.addAll(rule);
        String failure = run(command);
        if (failure != null) throw new IOException(String.join(" ", command) + ": " + failure);
    }

    /** @return null on success, else the exit code and output */
    private static String run(List<String> command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(COMMAND_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                p.destroyForcibly().waitFor();
                return "no answer within " + COMMAND_TIMEOUT_MS + " ms";
            }
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return p.exitValue() == 0 ? null : "exit code " + p.exitValue() + ": " + output;
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running " + command, e);
        }
    }
}
