package io.dsa.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** How {@code dsa run} starts children and keeps the secret off command lines; failures in-process. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RunCommandTest {

    @Test
    void childCommandRunsTheNodeCommandWithTheSecretOnItsStdin() {
        RunCommand run = new RunCommand();
        new CommandLine(run).setStopAtPositional(true).setCaseInsensitiveEnumValuesAllowed(true).parseArgs(
                "--nodes", "3", "--threads", "5", "--vm", "vm-1", "--timeout", "9", "--barrier", "kary", "--fanout", "3",
                "--wait", "spin", "--transport-security", "mac", "idle-test", "a", "--b");
        List<String> command = run.childCommand(2, "127.0.0.1:4567", TestPrograms.Idle.class);
        assertTrue(command.get(0).endsWith(File.separator + "java"), command.toString());
        int cp = command.indexOf("-cp");
        assertTrue(cp > 0, command.toString());
        for (String entry : command.get(cp + 1).split(File.pathSeparator)) {
            assertTrue(Path.of(entry).isAbsolute(), entry);
        }
        List<String> tail = command.subList(cp + 2, command.size());
        assertEquals(List.of(DsaCli.class.getName(), "node", "--node", "2", "--nodes", "3", "--threads", "5",
                "--vm", "vm-1", "--barrier", "KARY", "--fanout", "3", "--proxy", "FLOAT", "--wait", "SPIN",
                "--prefetch-window", "4", "--timeout", "9",
                "--transport-security", "MAC", "--monitor", "127.0.0.1:4567", "--secret-stdin",
                TestPrograms.Idle.class.getName(), "a", "--b"), tail);
        assertFalse(String.join(" ", command).contains("--secret "), command.toString());
        assertFalse(String.join(" ", command).contains("--secret-file"), command.toString());
    }

    @Test
    void aFailingJobInProcessExitsOneWithTheReason() throws Exception {
        Cli cli = Cli.execute("run", "--in-process", "--nodes", "2", "--threads", "2", "--timeout", "30",
                TestPrograms.Failing.class.getName());
        assertEquals(1, cli.exitCode(), cli.toString());
        assertTrue(cli.out().contains("result: FAILED: "), cli.toString());
        assertFalse(cli.out().contains("result: OK"), cli.toString());
    }

    @Test
    void aFailingJobOnOneNodeProcessExitsOne() throws Exception {
        Cli cli = Cli.execute("run", "--nodes", "1", "--threads", "2", "--timeout", "30",
                TestPrograms.Failing.class.getName());
        assertEquals(1, cli.exitCode(), cli.toString());
        assertTrue(cli.out().contains("result: FAILED: "), cli.toString());
    }
}
