package io.dsa.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code dsa run} tells a person: bad program arguments before anything starts, a worker's
 * failure with its stack trace, progress lines with the time, and programs from {@code --classpath}.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RunFeedbackTest {
    private static final String CHECKED = TestPrograms.Checked.class.getName();

    @Test
    void badProgramArgumentsAreOneUsageLineBeforeAnyNodeStarts(@TempDir Path dir) {
        String secret = dir.resolve("secret").toString();
        assertEquals(0, Cli.execute("keygen", "--out", secret).exitCode());
        // --hosts names a port nobody listens on: reaching it would fail differently
        for (List<String> launch : List.of(List.of("run", "--nodes", "2"), List.of("run", "--in-process"),
                List.of("run", "--hosts", "127.0.0.1:1", "--secret-file", secret),
                List.of("node", "--node", "0", "--nodes", "1", "--secret-file", secret))) {
            List<String> args = new java.util.ArrayList<>(launch);
            args.addAll(List.of(CHECKED, "99"));
            Cli cli = Cli.execute(args.toArray(new String[0]));
            assertEquals(2, cli.exitCode(), launch + ": " + cli);
            assertEquals("", cli.out(), launch + ": " + cli);
            String first = cli.err().lines().findFirst().orElse("");
            assertEquals("dsa: checked-test: value 99 out of range [1, 10]", first, launch + ": " + cli);
            assertEquals(1, cli.err().split("out of range", -1).length - 1, "printed once: " + cli);
            assertFalse(cli.err().contains("Exception"), "no exception class names: " + cli);
        }
    }

    @Test
    void aWorkersFailureIsReportedWithItsStackTrace() {
        Cli cli = Cli.execute("run", "--in-process", "--nodes", "1", "--threads", "2", TestPrograms.Failing.class.getName());
        assertEquals(1, cli.exitCode(), cli.toString());
        List<String> lines = cli.out().lines().toList();
        int verdict = lines.indexOf(lines.stream().filter(l -> l.startsWith("result: FAILED: ")).findFirst().orElseThrow());
        assertTrue(lines.get(verdict).contains("deliberate failure on thread 1"), cli.toString());
        assertTrue(lines.get(verdict + 1).startsWith("\tat " + TestPrograms.Failing.class.getName() + ".work("), cli.toString());
    }

    @Test
    void progressLinesCarryTheNodeAndTheSecondsSinceTheStart() {
        Cli cli = Cli.execute("run", "--nodes", "2", "--threads", "1", CHECKED, "5");
        assertEquals(0, cli.exitCode(), cli.toString());
        for (int node = 0; node < 2; node++) {
            String suffix = "] node " + node + ": set up node " + node;
            String line = cli.out().lines().filter(l -> l.endsWith(suffix)).findFirst().orElse("");
            assertTrue(ProgressPrinter.LINE.matcher(line).matches(), "node " + node + " (a child's without [node 1]): " + cli);
        }
    }

    @Test
    void aProgramOnTheClassPathRunsInThisJvmAndInChildNodes(@TempDir Path dir) throws Exception {
        Path source = dir.resolve("src/my/Hello.java");
        Files.createDirectories(source.getParent());
        Files.writeString(source, """
                package my;
                public final class Hello implements io.dsa.DsaProgram {
                    public void work(io.dsa.DsaWorker w) {
                        w.barrier();
                        if (w.threadId() == 0) w.node().report("hello from " + w.node().network().getGlobalThreadCount() + " workers");
                    }
                }
                """);
        Path classes = dir.resolve("classes");
        int javac = ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", classes.toString(),
                "-cp", System.getProperty("java.class.path"), source.toString());
        assertEquals(0, javac, "javac");
        Cli inProcess = Cli.execute("run", "--in-process", "--nodes", "2", "--classpath", classes.toString(), "my.Hello");
        assertTrue(inProcess.out().contains("node 0: hello from 4 workers"), inProcess.toString());
        Cli processes = Cli.execute("run", "--nodes", "2", "--threads", "1", "--cp", classes.toString(), "my.Hello");
        assertTrue(processes.out().contains("node 0: hello from 2 workers"), processes.toString());
        assertEquals(0, processes.exitCode(), processes.toString());
        Cli without = Cli.execute("run", "--in-process", "my.Hello");
        assertEquals(2, without.exitCode(), without.toString());
        assertTrue(without.err().contains("unknown program 'my.Hello'"), without.toString());
    }

    @Test
    void aMissingClassPathEntryIsAUsageError() {
        Cli cli = Cli.execute("run", "--in-process", "--classpath", "/no/such/dir", "idle-test");
        assertEquals(2, cli.exitCode(), cli.toString());
        assertTrue(cli.err().startsWith("dsa: --classpath entry '/no/such/dir' does not exist"), cli.toString());
    }
}
