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
 * for a class loaded from a directory (an IDE or Maven build), that directory packed into a JAR.
 */
public final class JobJar {
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

    private static byte[] pack(Path dir) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(dir)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        try (JarOutputStream jar = new JarOutputStream(bytes)) {
            for (Path f : files) {
                jar.putNextEntry(new JarEntry(dir.relativize(f).toString().replace('\\', '/')));
                Files.copy(f, jar);
                jar.closeEntry();
            }
        }
        return bytes.toByteArray();
    }
}
