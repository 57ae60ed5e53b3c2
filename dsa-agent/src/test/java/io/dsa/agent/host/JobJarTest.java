package io.dsa.agent.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarInputStream;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A class path packed into the one JAR that {@code dsa run --hosts --classpath} ships. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class JobJarTest {
    @Test
    void aClassPathPacksAsItLoadsFirstEntryWinsServicesJoinedSignaturesDropped(@TempDir Path dir) throws IOException {
        Path classes = dir.resolve("classes");
        Files.createDirectories(classes.resolve("my"));
        Files.createDirectories(classes.resolve("META-INF/services"));
        Files.writeString(classes.resolve("my/A.class"), "A from classes");
        Files.writeString(classes.resolve("META-INF/services/io.dsa.DsaProgram"), "my.A");
        Path jar = dir.resolve("lib.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            for (Map.Entry<String, String> e : Map.of("my/A.class", "A from jar", "my/B.class", "B", "META-INF/services/io.dsa.DsaProgram",
                    "my.B", "META-INF/SIGNER.SF", "signature", "META-INF/SIGNER.RSA", "key").entrySet()) {
                out.putNextEntry(new JarEntry(e.getKey()));
                out.write(e.getValue().getBytes(StandardCharsets.UTF_8));
            }
        }
        Map<String, String> packed = read(JobJar.packClassPath(List.of(classes, jar)));
        assertEquals("A from classes", packed.get("my/A.class"));
        assertEquals("B", packed.get("my/B.class"));
        assertEquals("my.A\nmy.B", packed.get("META-INF/services/io.dsa.DsaProgram"));
        assertNull(packed.get("META-INF/SIGNER.SF"));
        assertNull(packed.get("META-INF/SIGNER.RSA"));
        assertEquals(3, packed.size(), packed.toString());
    }

    private static Map<String, String> read(byte[] jar) throws IOException {
        Map<String, String> files = new TreeMap<>();
        try (JarInputStream in = new JarInputStream(new ByteArrayInputStream(jar))) {
            for (JarEntry e = in.getNextJarEntry(); e != null; e = in.getNextJarEntry()) {
                files.put(e.getName(), new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
        return files;
    }

    @Test
    void theSameFilesPackIntoTheSameBytesLaterToo(@TempDir Path dir) throws Exception {
        Path classes = dir.resolve("classes");
        Files.createDirectories(classes.resolve("my"));
        Files.writeString(classes.resolve("my/A.class"), "a");
        Files.writeString(classes.resolve("my/B.class"), "b");
        byte[] first = JobJar.read(classes);
        // a file's time moves on: the same bytes still pack into the same JAR, so a host that keeps the jar knows it
        Files.setLastModifiedTime(classes.resolve("my/A.class"), java.nio.file.attribute.FileTime.fromMillis(86_400_000L));
        org.junit.jupiter.api.Assertions.assertArrayEquals(first, JobJar.read(classes));
        // and no entry carries the clock's time, which would change from one run to the next
        for (byte[] jar : List.of(first, JobJar.packClassPath(List.of(classes)))) {
            try (java.util.jar.JarInputStream in = new java.util.jar.JarInputStream(new ByteArrayInputStream(jar))) {
                int entries = 0;
                for (java.util.jar.JarEntry e = in.getNextJarEntry(); e != null; e = in.getNextJarEntry(), entries++) {
                    assertEquals(java.time.LocalDateTime.of(1980, 1, 1, 0, 0), e.getTimeLocal(), e.getName());
                }
                assertEquals(2, entries);
            }
        }
    }
}
