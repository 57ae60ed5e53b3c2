package io.dsa.agent.host;

import io.dsa.DsaException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A host's private work directory, where the jars shipped with its jobs live while they run:
 * {@code BASE/host-PID} (mode 700) inside a base directory of this user's (mode 700; by default
 * {@code $TMPDIR/dsa-host-USER}). No secret is ever written here: a job's JVM gets its secrets
 * over its stdin pipe. A job's files are deleted when the job ends, however it ends; the whole
 * directory when the host stops; and a host that starts removes the directories of hosts that
 * were killed (their process no longer runs). Thread-safe.
 */
final class WorkDir implements AutoCloseable {
    /** Prefix of a host's directory in the base; the host's PID follows. */
    static final String HOST_PREFIX = "host-";
    /** The file in a host's directory that names its process: {@code pid} and {@code start} lines. */
    static final String OWNER_FILE = "owner";

    private static final Logger LOG = LoggerFactory.getLogger(WorkDir.class);
    private static final Set<PosixFilePermission> PRIVATE_DIR = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> PRIVATE_FILE = PosixFilePermissions.fromString("rw-------");

    private final Path dir;
    private final AtomicLong files = new AtomicLong();

    private WorkDir(Path dir) { this.dir = dir; }

    /** @return the default base: {@code $TMPDIR/dsa-host-USER} */
    static Path defaultBase() {
        String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
        return Path.of(System.getProperty("java.io.tmpdir"), "dsa-host-" + user);
    }

    /**
     * Makes this process's directory in {@code base}, after removing the leftovers of hosts that
     * no longer run.
     *
     * @throws DsaException when {@code base} is not a directory of this user's, or cannot be made private
     */
    static WorkDir create(Path base) {
        try {
            makePrivateDirectory(base);
            removeLeftovers(base);
            ProcessHandle self = ProcessHandle.current();
            Path dir = base.resolve(HOST_PREFIX + self.pid());
            if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) deleteTree(dir);   // a dead host's, whose PID we got
            makePrivateDirectory(dir);
            Files.writeString(writeFile(dir.resolve(OWNER_FILE)), "pid " + self.pid() + "\nstart "
                    + self.info().startInstant().map(Instant::toString).orElse("-") + "\n", StandardCharsets.UTF_8);
            return new WorkDir(dir);
        } catch (IOException e) {
            throw new DsaException("host work directory " + base + ": " + e, e);
        }
    }

    /** @return this host's directory */
    Path path() { return dir; }

    /**
     * Writes a job's shipped jar, readable only by this user.
     *
     * @return its path
     * @throws DsaException when it cannot be written
     */
    Path writeJar(String vm, int node, byte[] jar) {
        Path file = dir.resolve("job-" + files.incrementAndGet() + "-" + vm + "-" + node + ".jar");
        try {
            Files.write(writeFile(file), jar);
            return file;
        } catch (IOException e) {
            delete(file);
            throw new DsaException("cannot write the jar of node " + node + " of vm '" + vm + "' to " + file + ": " + e, e);
        }
    }

    /** Deletes a job's file; a failure is logged. */
    void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.warn("cannot delete {}: {}", file, e.toString());
        }
    }

    /** Deletes this host's directory and everything in it. */
    @Override
    public void close() {
        try {
            deleteTree(dir);
        } catch (IOException e) {
            LOG.warn("cannot delete the host work directory {}: {}", dir, e.toString());
        }
    }

    /**
     * Removes the directories of hosts whose process no longer runs (or whose PID now belongs to
     * a process started at another time).
     *
     * @return the directories removed
     */
    static List<Path> removeLeftovers(Path base) throws IOException {
        List<Path> removed = new java.util.ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(base, HOST_PREFIX + "*")) {
            for (Path d : entries) {
                long pid;
                try {
                    pid = Long.parseLong(d.getFileName().toString().substring(HOST_PREFIX.length()));
                } catch (NumberFormatException e) {
                    continue;   // not ours
                }
                if (pid == ProcessHandle.current().pid() || isRunning(pid, d)) continue;
                long count;
                try (Stream<Path> walk = Files.walk(d)) {
                    count = walk.filter(Files::isRegularFile).count();
                }
                deleteTree(d);
                removed.add(d);
                LOG.warn("removed {}: the work directory of host process {}, which no longer runs ({} file(s))", d, pid, count);
            }
        }
        return removed;
    }

    // The PID runs, and it is the process that made the directory (same start time), when that can be told.
    private static boolean isRunning(long pid, Path dir) {
        Optional<ProcessHandle> p = ProcessHandle.of(pid);
        if (p.isEmpty() || !p.get().isAlive()) return false;
        Optional<Instant> started = p.get().info().startInstant();
        try {
            for (String line : Files.readAllLines(dir.resolve(OWNER_FILE), StandardCharsets.UTF_8)) {
                if (line.startsWith("start ") && started.isPresent() && !line.substring(6).equals("-")) {
                    return Instant.parse(line.substring(6)).equals(started.get());
                }
            }
        } catch (IOException | RuntimeException e) {
            // no readable owner file: the PID runs, so keep the directory
        }
        return true;
    }

    private static void makePrivateDirectory(Path dir) throws IOException {
        boolean posix = dir.getFileSystem().supportedFileAttributeViews().contains("posix");
        try {
            if (posix) Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PRIVATE_DIR));
            else Files.createDirectory(dir);
        } catch (FileAlreadyExistsException e) {
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                throw new IOException(dir + " exists and is not a directory (or is a symbolic link)");
            }
            UserPrincipal owner = Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS);
            UserPrincipal me = currentUser(dir);
            if (me != null && !owner.equals(me)) {
                throw new IOException(dir + " belongs to " + owner.getName() + ", not to " + me.getName()
                        + "; choose another --work-dir");
            }
        }
        if (posix) Files.setPosixFilePermissions(dir, PRIVATE_DIR);   // exactly 700, whatever the umask or the old mode
    }

    private static UserPrincipal currentUser(Path any) {
        try {
            return any.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(System.getProperty("user.name"));
        } catch (IOException | UnsupportedOperationException e) {
            return null;   // no user lookup here: the ownership check is skipped
        }
    }

    /** Creates {@code file}, readable and writable by this user only where the file system has POSIX modes. */
    static Path writeFile(Path file) throws IOException {
        if (file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            FileAttribute<Set<PosixFilePermission>> mode = PosixFilePermissions.asFileAttribute(PRIVATE_FILE);
            Files.createFile(file, mode);
        } else {
            Files.createFile(file);
        }
        return file;
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) return;
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }
}
