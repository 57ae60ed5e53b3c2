package io.dsa.agent.transport;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Node 0's listener for barrier lanes: a Unix-domain socket in a fresh directory that only this
 * process's user may enter ({@code rwx------}), so nothing on the network can reach it and no other
 * user of the machine can connect. Which node a lane belongs to is decided by the token of its
 * hello ({@link LaneChannel}), which node 0 handed out over an authenticated connection.
 * Non-blocking: the lane poller accepts. The lanes' shared memory ({@link LaneRing}) goes in another
 * such directory in {@code /dev/shm} where the machine has one. The directories go with {@link #close()}.
 *
 * <p>A process ended by SIGKILL cannot remove them, so their names say whose they are
 * ({@code dsa-lane-<PID namespace>-<PID>-<random>}) and every {@link #open()} first removes the
 * lane directories of processes of its PID namespace that no longer run ({@link #sweep}).
 */
public final class LaneListener implements AutoCloseable {
    private static final Path SHM = Path.of("/dev/shm");
    /** This process's PID namespace (the inode of {@code /proc/self/ns/pid}), 0 where it cannot be read. */
    static final long NAMESPACE = namespace();
    static final String PREFIX = "dsa-lane-" + NAMESPACE + "-" + ProcessHandle.current().pid() + "-";
    private static final java.util.regex.Pattern OWNED = java.util.regex.Pattern.compile("dsa-lane-(\\d{1,20})-(\\d{1,20})-\\d+");
    private final Path dir;
    private final Path path;
    private final ServerSocketChannel server;
    /** Where the lanes' shared memory goes: a private directory in /dev/shm where there is one, else {@link #dir}. */
    private final Path ringDir;
    private final java.util.concurrent.atomic.AtomicInteger rings = new java.util.concurrent.atomic.AtomicInteger();

    private LaneListener(Path dir, Path path, ServerSocketChannel server, Path ringDir) {
        this.dir = dir;
        this.path = path;
        this.server = server;
        this.ringDir = ringDir;
    }

    /**
     * Binds a listener in a new private directory under the system's temporary directory.
     *
     * @throws IOException if Unix-domain sockets or POSIX permissions are not available here
     */
    public static LaneListener open() throws IOException {
        sweep(Path.of(System.getProperty("java.io.tmpdir")), NAMESPACE, LaneListener::running);
        sweep(SHM, NAMESPACE, LaneListener::running);
        Path dir = Files.createTempDirectory(PREFIX, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path path = dir.resolve("l");
        ServerSocketChannel server = null;
        try {
            server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(path));
            server.configureBlocking(false);
            return new LaneListener(dir, path, server, ringDir(dir));
        } catch (IOException | RuntimeException e) {
            if (server != null) server.close();
            Files.deleteIfExists(path);
            Files.deleteIfExists(dir);
            throw e;
        }
    }

    // Memory-backed where the machine has /dev/shm (a file on disk would be written back now and then), else beside the socket.
    private static Path ringDir(Path dir) {
        if (!Files.isDirectory(SHM) || !Files.isWritable(SHM)) return dir;
        try {
            return Files.createTempDirectory(SHM, PREFIX, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (IOException | RuntimeException e) {
            return dir;
        }
    }

    /** @return a new path for a lane's shared memory ({@link LaneChannel#offerRing}), in a directory only this user may enter */
    public Path nextRingFile(int node) {
        return ringDir.resolve("n" + node + "-" + rings.incrementAndGet());
    }

    /** @return the directory of the lanes' shared memory files */
    public Path ringDirectory() { return ringDir; }

    /** @return the socket's path, to hand to the nodes in their lane offers */
    public Path path() { return path; }

    /** @return the server socket, for a selector */
    public ServerSocketChannel channel() { return server; }

    /** @return the next dialled lane (its hello not read yet), or null if none waits */
    public LaneChannel accept() throws IOException {
        SocketChannel ch = server.accept();
        return ch == null ? null : LaneChannel.accepted(ch);
    }

    /** Stops listening and removes the socket and its directory; idempotent. */
    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing
        }
        try {
            Files.deleteIfExists(path);
            if (!ringDir.equals(dir)) deleteWithFiles(ringDir);
            deleteWithFiles(dir);
        } catch (IOException ignored) {
            // a leftover private directory in the temporary directory: harmless
        }
    }

    /**
     * Removes the lane directories in {@code parent} (with the files in them) of processes of PID
     * namespace {@code namespace} that are not {@code running}: those a node 0 ended by SIGKILL left.
     * Directories of other namespaces (another container sharing the directory), of running
     * processes, named otherwise, or that this user may not remove are left alone.
     *
     * @return how many were removed
     */
    static int sweep(Path parent, long namespace, java.util.function.LongPredicate running) {
        int removed = 0;
        try (var entries = Files.newDirectoryStream(parent, "dsa-lane-*")) {
            for (Path d : entries) {
                java.util.regex.Matcher m = OWNED.matcher(d.getFileName().toString());
                if (!m.matches() || !Files.isDirectory(d, java.nio.file.LinkOption.NOFOLLOW_LINKS)) continue;
                try {
                    if (Long.parseLong(m.group(1)) != namespace || running.test(Long.parseLong(m.group(2)))) continue;
                    deleteWithFiles(d);
                    removed++;
                } catch (IOException | NumberFormatException e) {
                    // not ours to remove, or already gone: left alone
                }
            }
        } catch (IOException | RuntimeException e) {
            // no such directory, or not readable: nothing to sweep
        }
        return removed;
    }

    // A zombie (killed, not yet reaped: its parent, a host, was killed with it) runs no more: its directories can go.
    static boolean running(long pid) {
        if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) return false;
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));   // pid (comm) state ...
            char state = stat.charAt(stat.lastIndexOf(')') + 2);
            return state != 'Z' && state != 'X';
        } catch (IOException | RuntimeException e) {
            return true;   // cannot tell (no /proc here): left alone
        }
    }

    private static long namespace() {
        try {
            String link = Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString();   // pid:[4026531836]
            return Long.parseLong(link.substring(link.indexOf('[') + 1, link.indexOf(']')));
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    // A directory and the lane files still in it (a dialer that never mapped its lane's).
    private static void deleteWithFiles(Path d) throws IOException {
        if (!Files.isDirectory(d)) return;
        try (var files = Files.list(d)) {
            for (Path f : (Iterable<Path>) files::iterator) Files.deleteIfExists(f);
        }
        Files.deleteIfExists(d);
    }
}
