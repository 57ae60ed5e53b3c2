package io.dsa.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link DsaCliExtension}s found by the ServiceLoader add commands to {@code dsa}. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DsaCliExtensionTest {
    @Test
    void registeredExtensionAddsACommandWithItsOwnExitCode() {
        Cli r = Cli.execute("echo-ext", "a", "b");
        assertEquals(3, r.exitCode(), r.toString());
        assertTrue(r.out().contains("echo a b"), r.toString());
    }

    @Test
    void extensionCommandHasHelp() {
        Cli r = Cli.execute("echo-ext", "--help");
        assertEquals(0, r.exitCode(), r.toString());
        assertTrue(r.out().contains("Prints its words."), r.toString());
    }

    @Test
    void builtInCommandsStillWork() {
        Cli r = Cli.execute("programs", "--help");
        assertEquals(0, r.exitCode(), r.toString());
    }
}
