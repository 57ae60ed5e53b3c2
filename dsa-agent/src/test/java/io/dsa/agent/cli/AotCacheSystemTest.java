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
 * {@code dsa run --aot-cache} on real JVMs (docs/runtime.md, "Short jobs and the JIT"): the launcher
 * runs in a JVM of the release under test, so its node processes do too. The first run trains the
 * node processes' cache, the second uses it.
 * <ul>
 *   <li>On this JVM's release (before Java 25: the class data archive), the second run's node JVM
 *       loads classes from the archive (its class loading log says so).
 *   <li>On Java 25 or later (the AOT cache), its JVM reports no error about it (a cache it refuses,
 *       as one of another class path, is logged at error level). Skipped, saying so, when no such
 *       JDK is found: {@code DSA_TEST_JAVA25} names its {@code java}, else the JDKs under
 *       {@code /usr/lib/jvm} are looked at.
 * </ul>
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

    @Test
    void beforeJava25TheFirstRunWritesTheNodesClassDataArchiveAndTheNextLoadsClassesFromIt(@TempDir Path dir) throws Exception {
        int release = Runtime.version().feature();
        Assumptions.assumeTrue(release < AotCache.MIN_JAVA, "skipped: this JVM is Java " + release + ", which keeps an AOT cache");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path cacheDir = dir.resolve("cds");
        Path archive = cacheDir.resolve(AotCache.NODE_ARCHIVE);
        String classPath = jarredClassPath(dir);

        String first = run(java, classPath, cacheDir);
        assertTrue(first.contains("class data archive: node 1 writes " + archive), first);
        assertTrue(first.contains("result: OK"), first);
        assertTrue(Files.size(archive) > 0, "no archive after the training run: " + first);

        // the node's JVM logs where each class came from: "source: shared objects file (top)" is the archive on top of the JDK's
        Path logs = Files.createDirectories(dir.resolve("logs"));
        String second = run(java, classPath, cacheDir, "--jvm-options", "-Xlog:class+load=info:file=" + logs.resolve("node-%p.log"));
        assertTrue(second.contains("class data archive: the node processes use " + archive), second);
        assertTrue(second.contains("result: OK"), second);
        try (Stream<Path> files = Files.list(logs)) {
            List<Path> nodeLogs = files.toList();
            assertEquals(1, nodeLogs.size(), nodeLogs.toString());
            String loaded = Files.readString(nodeLogs.get(0));
            assertTrue(loaded.lines().anyMatch(l -> l.contains("io.dsa.agent.DsaAgent source: shared objects file (top)")),
                    "node 1 did not load DsaAgent from the archive: " + loaded.lines().filter(l -> l.contains("io.dsa.")).limit(5).toList());
        }
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

    /** @return the output of {@code dsa run --aot-cache cacheDir [options]} of an idle program on 2 nodes, which must exit 0 */
    private static String run(Path java, String classPath, Path cacheDir, String... options) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(java.toString(), "-cp", classPath, DsaCli.class.getName(), "run",
                "--aot-cache", cacheDir.toString(), "--nodes", "2", "--threads", "1", "--timeout", "120"));
        command.addAll(List.of(options));
        command.add(TestPrograms.Idle.class.getName());
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
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
