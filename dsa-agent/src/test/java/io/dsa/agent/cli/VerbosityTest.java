package io.dsa.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** {@code -v}: on every command, counted, and the log level it gives each kind of command. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class VerbosityTest {
    @Test
    void everyCommandTakesVerbose() {
        CommandLine cli = DsaCli.commandLine();
        for (CommandLine sub : cli.getSubcommands().values()) {
            assertTrue(sub.getCommandSpec().optionsMap().containsKey("-v"), sub.getCommandName());
            assertTrue(sub.getCommandSpec().optionsMap().containsKey("--verbose"), sub.getCommandName());
        }
    }

    @Test
    void countsEveryV() {
        assertEquals(0, Verbosity.count(DsaCli.commandLine().parseArgs("status", "--hosts", "a:1")));
        assertEquals(1, Verbosity.count(DsaCli.commandLine().parseArgs("status", "-v")));
        assertEquals(3, Verbosity.count(DsaCli.commandLine().parseArgs("run", "-vv", "--verbose", "idle-test", "-v")),
                "a -v after PROGRAM is the program's");
    }

    @Test
    void clientsAreQuietDaemonsWarnAndVSaysMore() {
        assertEquals("off", Verbosity.level(0, "status", null));
        assertEquals("off", Verbosity.level(0, "run", null));
        assertEquals("warn", Verbosity.level(0, "host", null));
        assertEquals("warn", Verbosity.level(0, "node", null));
        assertNull(Verbosity.level(0, "status", "debug"), "an explicit -D level stays");
        assertEquals("info", Verbosity.level(1, "status", "error"));
        assertEquals("debug", Verbosity.level(2, "host", null));
        assertEquals("trace", Verbosity.level(5, "run", null));
    }
}
