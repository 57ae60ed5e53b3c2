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
 */
public final class LaneListener implements AutoCloseable {
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
        Path dir = Files.createTempDirectory("dsa-lane-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
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
        Path shm = Path.of("/dev/shm");
        if (!Files.isDirectory(shm) || !Files.isWritable(shm)) return dir;
        try {
            return Files.createTempDirectory(shm, "dsa-lane-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
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

    // A directory and the lane files still in it (a dialer that never mapped its lane's).
    private static void deleteWithFiles(Path d) throws IOException {
        if (!Files.isDirectory(d)) return;
        try (var files = Files.list(d)) {
            for (Path f : (Iterable<Path>) files::iterator) Files.deleteIfExists(f);
        }
        Files.deleteIfExists(d);
    }
}
