package io.dsa.agent.host;

import io.dsa.DsaException;
import io.dsa.agent.wire.HostJobMessage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * The program jars a host keeps after jobs shipped them, by the SHA-256 of their bytes, so that a
 * launcher running the same program again need not ship the jar (often megabytes, encrypted and
 * sent to every host for every node) once more: it asks ({@link io.dsa.agent.wire.JarQueryMessage})
 * and submits an empty jar with the job option {@value #OPTION}{@code =HEX}. The files live in the
 * host's private work directory ({@code jar-HEX.jar}, this user's only) and go with it. The digest
 * of a kept file is computed here from the bytes received, never taken from a launcher, so a name
 * always matches its content. At most {@value #MAX_JARS} are kept; keeping one more removes the one
 * used longest ago. Thread-safe.
 */
public final class JarCache {
    /** The job option naming a kept jar by its digest (hex), with an empty jar in the job. */
    public static final String OPTION = "jarDigest";
    /** Jars kept at most. */
    static final int MAX_JARS = 8;
    /** Bytes of a SHA-256 digest. */
    static final int DIGEST_BYTES = 32;
    private static final String PREFIX = "jar-";
    private static final String SUFFIX = ".jar";

    private final Path dir;

    JarCache(Path dir) { this.dir = dir; }

    /** @return the SHA-256 of {@code jar} */
    public static byte[] digest(byte[] jar) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(jar);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /**
     * Keeps {@code jar} (unless it is kept already) and marks it used.
     *
     * @return its digest
     * @throws DsaException when it cannot be written
     */
    synchronized byte[] keep(byte[] jar) {
        byte[] digest = digest(jar);
        Path file = file(digest);
        try {
            if (Files.exists(file)) {
                Files.setLastModifiedTime(file, FileTime.fromMillis(System.currentTimeMillis()));
                return digest;
            }
            Path part = dir.resolve(file.getFileName() + ".part");
            Files.deleteIfExists(part);
            Files.write(WorkDir.writeFile(part), jar);
            Files.move(part, file, StandardCopyOption.ATOMIC_MOVE);
            evict();
            return digest;
        } catch (IOException e) {
            throw new DsaException("cannot keep a program jar in " + dir + ": " + e, e);
        }
    }

    /** @return whether the jar with {@code digest} is kept; false for a digest that is not {@value #DIGEST_BYTES} bytes */
    synchronized boolean has(byte[] digest) {
        return digest != null && digest.length == DIGEST_BYTES && Files.exists(file(digest));
    }

    /**
     * @return the bytes of the jar kept with digest {@code hex}, marked used
     * @throws DsaException when {@code hex} is no digest or no such jar is kept (naming it)
     */
    synchronized byte[] read(String hex) {
        byte[] digest;
        try {
            digest = HexFormat.of().parseHex(hex);
        } catch (IllegalArgumentException e) {
            throw new DsaException("job option " + OPTION + "=" + hex + " is not a hex SHA-256 digest");
        }
        if (digest.length != DIGEST_BYTES) {
            throw new DsaException("job option " + OPTION + "=" + hex + " has " + digest.length + " bytes, a SHA-256 digest " + DIGEST_BYTES);
        }
        Path file = file(digest);
        try {
            byte[] jar = Files.readAllBytes(file);
            Files.setLastModifiedTime(file, FileTime.fromMillis(System.currentTimeMillis()));
            return jar;
        } catch (java.nio.file.NoSuchFileException e) {
            throw new DsaException("this host no longer keeps the program jar " + hex + " (at most " + MAX_JARS
                    + " are kept, the least recently used go first): run the job again to ship it");
        } catch (IOException e) {
            throw new DsaException("cannot read the kept program jar " + file + ": " + e, e);
        }
    }

    /**
     * @return {@code m} with its program jar: a shipped jar is kept for later jobs; an
     *         empty jar with the job option {@value #OPTION}{@code =HEX} gets the kept
     *         jar's bytes, and the option (the host's, not the agent's) is removed
     * @throws DsaException when the named jar is not kept (any more), or cannot be kept
     */
    HostJobMessage withKeptJar(HostJobMessage m) {
        if (m.options() == null || m.jar() == null) return m;   // refused by HostedJob.invalid
        String hex = null;
        List<String> options = new ArrayList<>();
        for (String option : m.options()) {
            if (option != null && option.startsWith(OPTION + "=")) hex = option.substring(OPTION.length() + 1);
            else options.add(option);
        }
        if (m.jar().length > 0) {
            keep(m.jar());
            if (hex == null) return m;
            throw new DsaException("the job ships its jar and names a kept one (" + OPTION + "=" + hex + "): one or the other");
        }
        if (hex == null) return m;
        return new HostJobMessage(m.jobId(), m.vmName(), m.nodeId(), m.nodes(), m.threadsPerNode(), m.monitorAddress(),
                m.programClass(), m.args(), java.util.Collections.unmodifiableList(options), read(hex), m.heapBytes(), m.cpus());
    }

    /** @return the digests of the jars kept, hex, least recently used first */
    synchronized List<String> kept() {
        List<String> out = new ArrayList<>();
        for (Path p : files()) {
            String name = p.getFileName().toString();
            out.add(name.substring(PREFIX.length(), name.length() - SUFFIX.length()));
        }
        return out;
    }

    private Path file(byte[] digest) { return dir.resolve(PREFIX + HexFormat.of().formatHex(digest) + SUFFIX); }

    // Removes the least recently used jars beyond MAX_JARS.
    private void evict() throws IOException {
        List<Path> all = files();
        for (int i = 0; i < all.size() - MAX_JARS; i++) Files.deleteIfExists(all.get(i));
    }

    private List<Path> files() {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> {
                String n = p.getFileName().toString();
                return n.startsWith(PREFIX) && n.endsWith(SUFFIX);
            }).sorted(Comparator.comparing(JarCache::modified).thenComparing(Path::toString)).toList();
        } catch (IOException e) {
            throw new DsaException("cannot list the program jars kept in " + dir + ": " + e, e);
        }
    }

    private static FileTime modified(Path p) {
        try {
            return Files.getLastModifiedTime(p);
        } catch (IOException e) {
            return FileTime.fromMillis(0);
        }
    }
}
