package io.dsa.agent.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
     * @throws IllegalStateException when no socket listens on the port, or none of those processes holds it
     */
    static long pid(int port, ProcessHandle root) throws IOException {
        String inode = listeningInode(port);
        List<ProcessHandle> candidates = new ArrayList<>();
        candidates.add(root);
        root.descendants().forEach(candidates::add);
        String socket = "socket:[" + inode + "]";
        for (ProcessHandle p : candidates) {
            Path fds = Path.of("/proc", Long.toString(p.pid()), "fd");
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(fds)) {
                for (Path fd : entries) {
                    try {
                        if (Files.readSymbolicLink(fd).toString().equals(socket)) return p.pid();
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

    private static String listeningInode(int port) throws IOException {
        String hexPort = String.format(":%04X", port);
        // a JVM's sockets are IPv6 ones (IPv4 addresses mapped) unless it prefers IPv4 stacks
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            for (String line : Files.readAllLines(Path.of(table), StandardCharsets.US_ASCII)) {
                String[] f = line.trim().split("\\s+");
                // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
                if (f.length > 9 && f[1].endsWith(hexPort) && f[3].equals(LISTEN)) return f[9];
            }
        }
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
