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
 * Non-blocking: the lane poller accepts. The directory goes with {@link #close()}.
 */
public final class LaneListener implements AutoCloseable {
    private final Path dir;
    private final Path path;
    private final ServerSocketChannel server;

    private LaneListener(Path dir, Path path, ServerSocketChannel server) {
        this.dir = dir;
        this.path = path;
        this.server = server;
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
            return new LaneListener(dir, path, server);
        } catch (IOException | RuntimeException e) {
            if (server != null) server.close();
            Files.deleteIfExists(path);
            Files.deleteIfExists(dir);
            throw e;
        }
    }

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
            Files.deleteIfExists(dir);
        } catch (IOException ignored) {
            // a leftover empty directory in the temporary directory: harmless
        }
    }
}
