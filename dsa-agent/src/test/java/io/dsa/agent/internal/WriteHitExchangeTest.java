package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.dsa.agent.cli.DsaCli;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The element write hit's two ways to fence (docs/runtime.md, "The write hit's fence"): an atomic exchange where the
 * JDK's byte-array views allow it (JDK 17), else a store and a full fence (JDK 25 refuses atomic modes on byte arrays).
 * The second way runs only on a JDK that refuses, so this test runs a job of writers on a shared array (every type is
 * generated from one template) in a child JVM of the newest JDK under {@code /usr/lib/jvm}, skipped where there is none
 * newer than 21.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WriteHitExchangeTest {
    @Test
    void onJdk17TheWriteHitsExchange() {
        assumeTrue(Runtime.version().feature() == 17, "the build's JDK is 17");
        assertTrue(SharedDoubleArrayImpl.exchanges() && SharedFloatArrayImpl.exchanges() && SharedIntArrayImpl.exchanges()
                && SharedLongArrayImpl.exchanges());
    }

    @Test
    void aJdkThatRefusesTheExchangeFencesInsteadAndLosesNoWrite() throws Exception {
        Path java = newestJava();
        assumeTrue(java != null, "no JDK newer than 21 under /usr/lib/jvm");
        List<String> command = new ArrayList<>(List.of(java.toString(), "-cp", System.getProperty("java.class.path"),
                Probe.class.getName(), "run", "--in-process", "--nodes", "2", "--threads", "2",
                "io.dsa.agent.cli.HostTestPrograms$Fill", "4000", "64"));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        Process p = pb.start();
        try {
            assertTrue(p.waitFor(100, TimeUnit.SECONDS), "the child JVM ended");
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), out);
            assertTrue(out.contains("exchanges: false false false false"), "the fallback ran: " + out);
            // every worker wrote its stride of A (partitions shared by the nodes' writers), thread 0 checked every element
            assertTrue(out.contains("sum 16000000 expected 16000000"), out);
            assertTrue(out.contains("result: OK"), out);
        } finally {
            p.destroyForcibly();
        }
    }

    // The java launcher of the newest JDK above 21 under /usr/lib/jvm, or null.
    private static Path newestJava() throws IOException {
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) return null;
        Path best = null;
        int bestFeature = 21;
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(jvms)) {
            for (Path d : dirs) {
                Path release = d.resolve("release");
                Path java = d.resolve("bin/java");
                if (!Files.isRegularFile(release) || !Files.isExecutable(java)) continue;
                for (String line : Files.readAllLines(release, StandardCharsets.UTF_8)) {
                    if (!line.startsWith("JAVA_VERSION=")) continue;
                    String v = line.substring("JAVA_VERSION=".length()).replace("\"", "");
                    int feature = Integer.parseInt(v.split("[.+-]")[0]);
                    if (feature > bestFeature) {
                        bestFeature = feature;
                        best = java;
                    }
                }
            }
        }
        return best;
    }

    /** Prints whether each array type exchanges, then runs the CLI with the arguments and exits with its code. */
    static final class Probe {
        public static void main(String[] args) {
            System.out.println("exchanges: " + SharedDoubleArrayImpl.exchanges() + " " + SharedFloatArrayImpl.exchanges() + " "
                    + SharedIntArrayImpl.exchanges() + " " + SharedLongArrayImpl.exchanges());
            System.exit(DsaCli.commandLine(args).execute(args));
        }
    }
}
