package io.dsa.agent.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Finds the process that listens on a TCP port among a process's descendants, and signals
 * processes by PID (Linux: {@code /proc/net/tcp} and {@code tcp6} name the listening socket's inode, and
 * {@code /proc/PID/fd} the process that holds it). A host's JVMs are started as spares and given
 * a job later, so their command lines do not say which runs what; the agent address a host's
 * status reports does.
 */
final class ListeningProcess {
    private static final String LISTEN = "0A";

    private ListeningProcess() {
    }

    /**
     * @return the PID of the one process under {@code root} (itself or a descendant) that holds the
     *         socket listening on {@code port}
     * @throws IllegalStateException when no socket listens on the port, or no process under {@code root} holds one that does
     */
    static long pid(int port, ProcessHandle root) throws IOException {
        // other processes may listen on the same port at other loopback addresses (a port bound with SO_REUSEADDR on
        // 127.0.0.5 is free on 127.0.0.6): any of them may be the one, only a process under root decides
        Set<String> sockets = new HashSet<>();
        for (String inode : listeningInodes(port)) sockets.add("socket:[" + inode + "]");
        List<ProcessHandle> candidates = new ArrayList<>();
        candidates.add(root);
        root.descendants().forEach(candidates::add);
        for (ProcessHandle p : candidates) {
            Path fds = Path.of("/proc", Long.toString(p.pid()), "fd");
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(fds)) {
                for (Path fd : entries) {
                    try {
                        if (sockets.contains(Files.readSymbolicLink(fd).toString())) return p.pid();
                    } catch (IOException e) {
                        // closed meanwhile
                    }
                }
            } catch (IOException e) {
                // the process ended meanwhile
            }
        }
        throw new IllegalStateException("no process under pid " + root.pid() + " holds the socket listening on port " + port);
    }

    private static List<String> listeningInodes(int port) throws IOException {
        String hexPort = String.format(":%04X", port);
        List<String> inodes = new ArrayList<>();
        // a JVM's sockets are IPv6 ones (IPv4 addresses mapped) unless it prefers IPv4 stacks
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            for (String line : Files.readAllLines(Path.of(table), StandardCharsets.US_ASCII)) {
                String[] f = line.trim().split("\\s+");
                // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
                if (f.length > 9 && f[1].endsWith(hexPort) && f[3].equals(LISTEN)) inodes.add(f[9]);
            }
        }
        if (!inodes.isEmpty()) return inodes;
        throw new IllegalStateException("no socket listens on port " + port + " (/proc/net/tcp, /proc/net/tcp6)");
    }

    /** Sends {@code signal} (a name such as {@code STOP}) to {@code pid} with {@code kill}. */
    static void signal(String signal, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            kill.destroyForcibly();
            throw new IOException("kill -" + signal + " " + pid + " failed: " + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        }
    }
}
