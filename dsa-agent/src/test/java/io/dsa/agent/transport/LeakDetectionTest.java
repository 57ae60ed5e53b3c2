package io.dsa.agent.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.dsa.agent.host.JvmCommand;
import io.netty.util.ResourceLeakDetector;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Netty's leak detector in a DSA process: off unless its system property asks for it ({@link LeakDetection}). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeakDetectionTest {
    @Test
    void offWhenNeitherPropertyIsSetElseAsSet() {
        assertEquals(ResourceLeakDetector.Level.DISABLED, LeakDetection.levelFor(null, null));
        assertNull(LeakDetection.levelFor("paranoid", null), "the property's level stays");
        assertNull(LeakDetection.levelFor(null, "advanced"), "Netty's older property counts too");
        assertNull(LeakDetection.levelFor("simple", "advanced"));
    }

    @Test
    void aProcessWhoseFirstLoopStartsWithoutThePropertyHasTheDetectorOff() throws Exception {
        assertEquals("DISABLED", probe(List.of()));
    }

    @Test
    void aProcessStartedWithThePropertyKeepsItsLevel() throws Exception {
        assertEquals("ADVANCED", probe(List.of("-D" + LeakDetection.LEVEL_PROPERTY + "=advanced")));
    }

    /** This test's build sets the property (paranoid): starting a loop here leaves that level. */
    @Test
    void theTestJvmsLevelStays() {
        String set = System.getProperty(LeakDetection.LEVEL_PROPERTY);
        assumeTrue(set != null, "run outside the build, without " + LeakDetection.LEVEL_PROPERTY);
        IoLoop.start("leak-test", false, () -> 0).close();
        assertEquals(set.trim().toUpperCase(java.util.Locale.ROOT), ResourceLeakDetector.getLevel().name());
    }

    // Runs Probe in a child JVM with these options (and not the test JVM's properties); returns what it printed.
    private static String probe(List<String> options) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(JvmCommand.javaExecutable());
        command.addAll(options);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(Probe.class.getName());
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        Process p = pb.start();
        try {
            assertTrue(p.waitFor(45, TimeUnit.SECONDS), "the probe JVM ended");
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            assertEquals(0, p.exitValue(), out);
            String[] lines = out.split("\\R");
            return lines[lines.length - 1];
        } finally {
            p.destroyForcibly();
        }
    }

    /** Starts and closes an I/O loop, then prints Netty's leak detection level. */
    static final class Probe {
        public static void main(String[] args) {
            try (IoLoop loop = IoLoop.start("leak-probe", true, () -> 0)) {
                loop.execute(() -> { });
            }
            System.out.println(ResourceLeakDetector.getLevel());
        }
    }
}
