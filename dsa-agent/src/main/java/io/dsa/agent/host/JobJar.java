package io.dsa.agent.host;

import io.dsa.DsaException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * The bytes of the JAR that holds a program's classes, to ship to hosts: the JAR file itself, or,
 * for a class loaded from a directory (an IDE or Maven build), that directory packed into a JAR;
 * or a whole class path ({@code dsa run --classpath}) packed into one JAR.
 */
public final class JobJar {
    private static final java.time.LocalDateTime FIXED_TIME = java.time.LocalDateTime.of(1980, 1, 1, 0, 0);
    /** Largest JAR shipped: it travels in one frame. */
    public static final int MAX_JAR_BYTES = 48 << 20;

    private JobJar() {}

    /**
     * @return the bytes of the JAR (or directory, packed) {@code type} was loaded from
     * @throws DsaException when the class has no code source (a JDK class) or it cannot be read
     */
    public static byte[] of(Class<?> type) {
        CodeSource source = type.getProtectionDomain().getCodeSource();
        URL location = source == null ? null : source.getLocation();
        if (location == null) throw new DsaException("class " + type.getName() + " has no code source to ship");
        try {
            return read(Path.of(location.toURI()));
        } catch (URISyntaxException | IllegalArgumentException e) {
            throw new DsaException("code source " + location + " of " + type.getName() + " is not a file", e);
        }
    }

    /**
     * @return the bytes of the JAR at {@code path}, or of {@code path} packed as a JAR if it is a directory
     * @throws DsaException when it cannot be read or is larger than {@value #MAX_JAR_BYTES} bytes
     */
    public static byte[] read(Path path) {
        try {
            byte[] bytes = Files.isDirectory(path) ? pack(path) : Files.readAllBytes(path);
            if (bytes.length > MAX_JAR_BYTES) {
                throw new DsaException("program jar " + path + " has " + bytes.length + " bytes, at most "
                        + MAX_JAR_BYTES + " can be shipped");
            }
            return bytes;
        } catch (IOException e) {
            throw new DsaException("cannot read program jar " + path + ": " + e.getMessage(), e);
        }
    }

    /**
     * @return the entries of a class path (class directories and JARs) packed into one JAR, as the
     *         class path would load them: of two files with one name the first entry's wins,
     *         except {@code META-INF/services/} files, which are joined; JAR signatures and
     *         manifests are left out (a merged JAR is signed by nobody)
     * @throws DsaException when an entry cannot be read or the JAR is larger than {@value #MAX_JAR_BYTES} bytes
     */
    public static byte[] packClassPath(List<Path> entries) {
        java.util.Map<String, ByteArrayOutputStream> files = new java.util.LinkedHashMap<>();
        for (Path entry : entries) {
            try {
                if (Files.isDirectory(entry)) {
                    List<Path> found;
                    try (Stream<Path> walk = Files.walk(entry)) {
                        found = walk.filter(Files::isRegularFile).sorted().toList();
                    }
                    for (Path f : found) add(files, entry.relativize(f).toString().replace('\\', '/'), Files.readAllBytes(f));
                } else {
                    try (java.util.jar.JarFile jar = new java.util.jar.JarFile(entry.toFile())) {
                        for (JarEntry e : java.util.Collections.list(jar.entries())) {
                            if (e.isDirectory()) continue;
                            try (java.io.InputStream in = jar.getInputStream(e)) {
                                add(files, e.getName(), in.readAllBytes());
                            }
                        }
                    }
                }
            } catch (IOException e) {
                throw new DsaException("cannot read class path entry " + entry + ": " + e.getMessage(), e);
            }
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JarOutputStream jar = new JarOutputStream(bytes)) {
            for (java.util.Map.Entry<String, ByteArrayOutputStream> f : files.entrySet()) {
                jar.putNextEntry(entry(f.getKey()));
                f.getValue().writeTo(jar);
                jar.closeEntry();
                if (bytes.size() > MAX_JAR_BYTES) break;
            }
        } catch (IOException e) {
            throw new DsaException("cannot pack the class path " + entries + ": " + e.getMessage(), e);
        }
        if (bytes.size() > MAX_JAR_BYTES) {
            throw new DsaException("the class path " + entries + " packs into more than " + MAX_JAR_BYTES
                    + " bytes, at most that can be shipped");
        }
        return bytes.toByteArray();
    }

    private static void add(java.util.Map<String, ByteArrayOutputStream> files, String name, byte[] content) {
        String upper = name.toUpperCase(java.util.Locale.ROOT);
        if (upper.equals("META-INF/MANIFEST.MF") || upper.startsWith("META-INF/") && (upper.endsWith(".SF")
                || upper.endsWith(".DSA") || upper.endsWith(".RSA") || upper.endsWith(".EC"))) {
            return;
        }
        ByteArrayOutputStream existing = files.get(name);
        if (existing == null) {
            ByteArrayOutputStream b = new ByteArrayOutputStream(content.length);
            b.writeBytes(content);
            files.put(name, b);
        } else if (name.startsWith("META-INF/services/")) {
            existing.write('\n');
            existing.writeBytes(content);
        }
    }

    /**
     * @return an entry named {@code name} with a fixed time (1980-01-01 00:00, the first a JAR can
     *         hold), so that the same files pack into the same bytes: a host that keeps a program
     *         jar by its digest (docs/hosts.md, "Program jars kept by the hosts") then recognises a
     *         class directory packed again by a later run
     */
    private static JarEntry entry(String name) {
        JarEntry e = new JarEntry(name);
        e.setTimeLocal(FIXED_TIME);
        return e;
    }

    private static byte[] pack(Path dir) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(dir)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        try (JarOutputStream jar = new JarOutputStream(bytes)) {
            for (Path f : files) {
                jar.putNextEntry(entry(dir.relativize(f).toString().replace('\\', '/')));
                Files.copy(f, jar);
                jar.closeEntry();
            }
        }
        return bytes.toByteArray();
    }
}
