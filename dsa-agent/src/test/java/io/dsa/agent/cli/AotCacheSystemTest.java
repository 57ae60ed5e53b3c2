package io.dsa.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.host.JvmCommand;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dsa run --aot-cache} on a real Java 25 or later (docs/runtime.md, "Short jobs and the
 * JIT"): the launcher runs in a JVM of that release, so its node processes do too. The first run
 * trains the node processes' cache, the second uses it and its JVM reports no error about it (a
 * cache it refuses, as one of another class path, is logged at error level). Skipped, saying so,
 * when no such JDK is found: {@code DSA_TEST_JAVA25} names its {@code java}, else the JDKs under
 * {@code /usr/lib/jvm} are looked at.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class AotCacheSystemTest {
    private static final Pattern RELEASE = Pattern.compile("(?m)^JAVA_VERSION=\"(\\d+)");

    @Test
    void theFirstRunTrainsTheNodesCacheAndTheNextUsesIt(@TempDir Path dir) throws Exception {
        Optional<Path> java = java25();
        Assumptions.assumeTrue(java.isPresent(), "skipped: no Java " + AotCache.MIN_JAVA
                + " or later (set DSA_TEST_JAVA25 to its java, or install one under /usr/lib/jvm)");
        Path cacheDir = dir.resolve("aot");
        Path cache = cacheDir.resolve(AotCache.NODE_CACHE);

        String classPath = jarredClassPath(dir);
        String first = run(java.get(), classPath, cacheDir);
        assertTrue(first.contains("AOT cache: node 1 writes " + cache), first);
        assertTrue(first.contains("result: OK"), first);
        assertTrue(Files.size(cache) > 0, "no cache after the training run: " + first);

        String second = run(java.get(), classPath, cacheDir);
        assertTrue(second.contains("AOT cache: the node processes use " + cache), second);
        assertTrue(second.contains("result: OK"), second);
        assertFalse(second.contains("[error"), "the node's JVM logged an error about its cache: " + second);
    }

    /**
     * @return the class path of this JVM with its class directories (the build's classes and test
     *         classes) packed into jars in {@code dir}: the JVM's AOT cache takes jars only
     */
    private static String jarredClassPath(Path dir) throws IOException {
        List<String> entries = new ArrayList<>();
        int k = 0;
        for (String entry : JvmCommand.classPath().split(File.pathSeparator)) {
            Path p = Path.of(entry);
            if (!Files.isDirectory(p)) {
                entries.add(entry);
                continue;
            }
            Path jar = dir.resolve("classes-" + k++ + ".jar");
            try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar)); Stream<Path> files = Files.walk(p)) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    out.putNextEntry(new JarEntry(p.relativize(f).toString().replace(File.separatorChar, '/')));
                    Files.copy(f, out);
                    out.closeEntry();
                }
            }
            entries.add(jar.toString());
        }
        return String.join(File.pathSeparator, entries);
    }

    /** @return the output of {@code dsa run --aot-cache cacheDir} of an idle program on 2 nodes, which must exit 0 */
    private static String run(Path java, String classPath, Path cacheDir) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(java.toString(), "-cp", classPath, DsaCli.class.getName(), "run",
                "--aot-cache", cacheDir.toString(), "--nodes", "2", "--threads", "1", "--timeout", "120",
                TestPrograms.Idle.class.getName()).redirectErrorStream(true).start();
        try {
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "dsa run did not end after its output did: " + output);
            assertEquals(0, p.exitValue(), output);
            return output;
        } finally {
            p.destroyForcibly();
        }
    }

    /** @return the {@code java} of a JDK of release 25 or later: {@code DSA_TEST_JAVA25}'s, or one under {@code /usr/lib/jvm} */
    static Optional<Path> java25() throws IOException {
        String given = System.getenv("DSA_TEST_JAVA25");
        if (given != null && !given.isBlank()) return Optional.of(Path.of(given));
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) return Optional.empty();
        try (Stream<Path> homes = Files.list(jvms)) {
            for (Path home : homes.sorted().toList()) {
                Path release = home.resolve("release");
                Path bin = home.resolve("bin").resolve("java");
                if (!Files.isRegularFile(release) || !Files.isExecutable(bin)) continue;
                Matcher m = RELEASE.matcher(Files.readString(release));
                if (m.find() && Integer.parseInt(m.group(1)) >= AotCache.MIN_JAVA) return Optional.of(bin);
            }
        }
        return Optional.empty();
    }
}
