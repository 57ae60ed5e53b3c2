package io.dsa.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The {@code dsa} command line: help, version, validation and program lookup, through {@code execute()}. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DsaCliTest {
    @TempDir
    Path servicesDir;

    @ParameterizedTest
    @ValueSource(strings = {"", "run", "programs", "node", "host", "status", "migrate", "clone", "read", "keygen", "secret",
        "completion"})
    void helpPrintsUsageAndExitsZero(String command) {
        Cli cli = command.isEmpty() ? Cli.execute("--help") : Cli.execute(command, "--help");
        assertEquals(0, cli.exitCode(), cli.toString());
        assertTrue(cli.out().startsWith("Usage: dsa" + (command.isEmpty() ? "" : " " + command)), cli.toString());
        assertTrue(cli.out().contains("--version"), cli.toString());
        assertEquals("", cli.err(), cli.toString());
    }

    /** What {@code main} builds for a command line: the one command it names, with the same help as in the whole line. */
    @ParameterizedTest
    @ValueSource(strings = {"run", "programs", "node", "host", "status", "migrate", "clone", "read", "keygen", "secret"})
    void aCommandLineNamingOneCommandBuildsOnlyItWithTheSameHelpAndOptions(String command) {
        picocli.CommandLine one = DsaCli.commandLine("-v", command, "--help");
        picocli.CommandLine all = DsaCli.commandLine();
        assertEquals(java.util.List.of(command), java.util.List.copyOf(one.getSubcommands().keySet()));
        picocli.CommandLine.Model.CommandSpec mine = one.getSubcommands().get(command).getCommandSpec();
        picocli.CommandLine.Model.CommandSpec whole = all.getSubcommands().get(command).getCommandSpec();
        assertEquals(whole.commandLine().getUsageMessage(), mine.commandLine().getUsageMessage());
        assertEquals(whole.optionsMap().keySet(), mine.optionsMap().keySet());
        assertEquals(whole.parser().stopAtPositional(), mine.parser().stopAtPositional());
        assertEquals(whole.parser().caseInsensitiveEnumValuesAllowed(), mine.parser().caseInsensitiveEnumValuesAllowed());
    }

    /** The top-level help, a mistyped command's suggestions, the completion script and the extensions need every command. */
    @ParameterizedTest
    @ValueSource(strings = {"", "--help", "-v", "completion", "statsu", "bench"})
    void aCommandLineNamingNoBuiltInCommandOrTheCompletionBuildsThemAll(String first) {
        picocli.CommandLine cli = first.isEmpty() ? DsaCli.commandLine(new String[0]) : DsaCli.commandLine(first);
        assertEquals(DsaCli.commandLine().getSubcommands().keySet(), cli.getSubcommands().keySet());
        assertTrue(cli.getSubcommands().size() >= 11, cli.getSubcommands().keySet().toString());
    }

    @Test
    void aMistypedCommandIsSuggestedFromEveryCommand() {
        Cli cli = Cli.execute("statsu", "--hosts", "127.0.0.1:1");
        assertEquals(DsaCli.EXIT_USAGE, cli.exitCode(), cli.toString());
        assertTrue(cli.err().contains("status"), cli.toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "run", "programs", "node", "host", "status", "migrate", "clone", "read", "keygen", "secret"})
    void versionPrintsTheVersionAndExitsZero(String command) {
        Cli cli = command.isEmpty() ? Cli.execute("--version") : Cli.execute(command, "--version");
        assertEquals(0, cli.exitCode(), cli.toString());
        assertTrue(cli.out().startsWith("dsa "), cli.toString());
    }

    @Test
    void mainUsageListsCommandsButHidesNode() {
        Cli cli = Cli.execute("--help");
        assertTrue(cli.out().contains("run "), cli.toString());
        assertTrue(cli.out().contains("programs "), cli.toString());
        assertFalse(cli.out().lines().anyMatch(l -> l.matches("\\s+node\\s.*")), cli.toString());
        assertTrue(cli.out().contains("host "), cli.toString());
        assertTrue(cli.out().contains("migrate "), cli.toString());
        assertTrue(cli.out().contains("clone "), cli.toString());
        assertTrue(cli.out().contains("read "), cli.toString());
        assertTrue(cli.out().contains("keygen "), cli.toString());
        assertTrue(cli.out().contains("secret "), cli.toString());
    }

    @ParameterizedTest
    @CsvSource({
        "--job-heap, 4k, '--job-heap 4k out of range [16 MiB, 1024 GiB]'",
        "--job-heap, 2t, '--job-heap 2t out of range [16 MiB, 1024 GiB]'",
        "--job-heap, lots, is not a size; use bytes or a number with k or m or g or t",
        "--job-cpus, 0, '--job-cpus 0 out of range [1, 4096]'",
    })
    void runOnHostsRejectsBadLimitsBeforeContactingAHost(String option, String value, String message) {
        Cli cli = Cli.execute("run", "--hosts", "127.0.0.1:1", option, value, "idle-test");
        assertEquals(2, cli.exitCode(), cli.toString());
        assertTrue(cli.err().contains(message), cli.toString());
    }

    @Test
    void limitsAndSecretsOfHostsNeedHosts() {
        Cli cli = Cli.execute("run", "--job-heap", "512m", "idle-test");
        assertEquals(2, cli.exitCode(), cli.toString());
        assertTrue(cli.err().contains("--secret-file, --jar, --job-heap, --job-cpus and --launcher need --hosts"), cli.toString());
        Cli host = Cli.execute("host", "--max-job-heap", "1k");
        assertEquals(2, host.exitCode(), host.toString());
        assertTrue(host.err().contains("--max-job-heap 1k out of range [16 MiB, 1024 GiB]"), host.toString());
        Cli cpus = Cli.execute("host", "--max-job-cpus", "0");
        assertEquals(2, cpus.exitCode(), cpus.toString());
        assertTrue(cpus.err().contains("--max-job-cpus 0 out of range [1, 4096]"), cpus.toString());
    }

    @Test
    void descriptionsFlowAsParagraphsWithTheFirstSentenceListedForTheCommand() {
        String main = Cli.execute("--help").out().replaceAll("\\s+", " ");
        assertTrue(main.contains("migrate Moves node K of a running VM to another 'dsa host' while its job runs. clone "), main);
        String migrate = Cli.execute("migrate", "--help").out();
        assertTrue(migrate.lines().anyMatch(l -> l.equals("Moves node K of a running VM to another 'dsa host' while its job runs.")),
                migrate);
        assertTrue(migrate.replaceAll("\\s+", " ").contains("The node stops at the next global barrier, its partitions, directory"
                + " entries, shared variables and barrier state move, every node learns its new address"), migrate);
        assertTrue(migrate.lines().allMatch(l -> l.length() <= 80), migrate);
    }

    @ParameterizedTest
    @ValueSource(strings = {"status", "migrate", "clone", "read"})
    void commandsThatTalkToHostsNameTheMissingHosts(String command) {
        Cli cli = switch (command) {
            case "status" -> Cli.execute(command, "--vm", "v");
            case "read" -> Cli.execute(command, "--vm", "v", "--node", "1", "--array", "A");
            default -> Cli.execute(command, "--vm", "v", "--node", "1", "--to", "127.0.0.1:1");
        };
        assertEquals(2, cli.exitCode(), cli.toString());
        assertTrue(cli.err().contains("--hosts is missing or empty: give --hosts HOST:PORT[,HOST:PORT...] or set the"
                + " environment variable DSA_HOSTS"), cli.toString());
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({
        "--count, 0, '--count 0 out of range [1, 65536]'",
        "--count, 70000, '--count 70000 out of range [1, 65536]'",
        "--index, -1, '--index -1 out of range [0, 2147483647]'",
        "--node, -2, '--node -2 out of range [0, 2147483647]'"})
    void readRejectsOutOfRangeValuesBeforeContactingAHost(String option, String value, String message) {
        Cli cli = option.equals("--node")
                ? Cli.execute("read", "--vm", "v", "--node", value, "--hosts", "127.0.0.1:1", "--array", "A")
                : Cli.execute("read", "--vm", "v", "--node", "1", "--hosts", "127.0.0.1:1", "--array", "A", option, value);
        assertEquals(2, cli.exitCode(), cli.toString());
        assertTrue(cli.err().contains(message), cli.toString());
    }

    @Test
    void noCommandIsAUsageError() {
        Cli cli = Cli.execute();
        assertEquals(2, cli.exitCode(), cli.toString());
        assertTrue(cli.err().startsWith("Usage: dsa"), cli.toString());
    }

    @ParameterizedTest
    @CsvSource({
        "--nodes, 0, '--nodes 0 out of range [1, 1024]'",
        "--nodes, 1025, '--nodes 1025 out of range [1, 1024]'",
        "--threads, 0, '--threads 0 out of range [1, 1024]'",
        "--threads, -3, '--threads -3 out of range [1, 1024]'",
        "--timeout, 0, '--timeout 0 out of range [1, 86400]'",
        "--fanout, 1, '--fanout 1 out of range [2, 64]'",
        "--max-frame-bytes, 1024, '--max-frame-bytes 1024 out of range [4096, 1073741824]'",
        "--prefetch-window, 257, '--prefetch-window 257 out of range [0, 256]'",
        "--failure-timeout-ms, 99, '--failure-timeout-ms 99 out of range [100, 3600000]'",
        "--failure-timeout-ms, 3600001, '--failure-timeout-ms 3600001 out of range [100, 3600000]'",
    })
    void runRejectsOutOfRangeValues(String option, String value, String message) {
        Cli cli = Cli.execute("run", option, value, "idle-test");
        assertEquals(2, cli.exitCode(), cli.toString());
        assertTrue(cli.err().contains("dsa: " + message), cli.toString());
        assertTrue(cli.err().contains("Try 'dsa run --help'"), cli.toString());
        assertEquals("", cli.out(), cli.toString());
    }

    @Test
    void runRejectsANonNumber() {
        Cli cli = Cli.execute("run", "--nodes", "four", "idle-test");
        assertEquals(2, cli.exitCode(), cli.toString());
        assertTrue(cli.err().contains("'four'"), cli.toString());
    }

    @Test
    void runRejectsAnUnknownWaitStrategy() {
        Cli cli = Cli.execute("run", "--wait", "doze", "idle-test");
        assertEquals(2, cli.exitCode(), cli.toString());
        assertTrue(cli.err().contains("--wait"), cli.toString());
        assertTrue(cli.err().contains("PARK, SPIN, ADAPTIVE"), cli.toString());
    }

    @Test
    void runRejectsAnUnknownBarrierKind() {
        Cli cli = Cli.execute("run", "--barrier", "ring", "idle-test");
        assertEquals(2, cli.exitCode(), cli.toString());
        assertTrue(cli.err().contains("--barrier"), cli.toString());
        assertTrue(cli.err().contains("TREE, KARY, CENTRAL"), cli.toString());
    }

    @Test
    void runRejectsABadVmName() {
        Cli cli = Cli.execute("run", "--vm", "no spaces", "idle-test");
        assertEquals(2, cli.exitCode(), cli.toString());
        assertTrue(cli.err().contains("--vm 'no spaces' invalid"), cli.toString());
    }

    @Test
    void runNeedsAProgram() {
        Cli cli = Cli.execute("run", "--nodes", "2");
        assertEquals(2, cli.exitCode(), cli.toString());
        assertTrue(cli.err().contains("PROGRAM"), cli.toString());
    }

    @Test
    void unknownProgramListsTheKnownOnes() throws Exception {
        Cli cli = TestPrograms.withRegisteredPrograms(servicesDir, () -> Cli.execute("run", "no-such-program", "1"));
        assertEquals(2, cli.exitCode(), cli.toString());
        assertTrue(cli.err().contains("unknown program 'no-such-program'; known programs: failing-test, idle-test"),
                cli.toString());
    }

    @Test
    void aClassThatIsNotAProgramIsRefused() {
        Cli cli = Cli.execute("run", TestPrograms.NotAProgram.class.getName());
        assertEquals(2, cli.exitCode(), cli.toString());
        assertTrue(cli.err().contains("does not implement io.dsa.DsaProgram"), cli.toString());
    }

    @Test
    void programsListsShortNamesAndClasses() throws Exception {
        Cli cli = TestPrograms.withRegisteredPrograms(servicesDir, () -> Cli.execute("programs"));
        assertEquals(0, cli.exitCode(), cli.toString());
        assertTrue(cli.out().contains("failing-test  " + TestPrograms.Failing.class.getName()), cli.toString());
        assertTrue(cli.out().contains("idle-test     " + TestPrograms.Idle.class.getName()), cli.toString());
    }

    @Test
    void programArgumentsThatLookLikeOptionsBelongToTheProgram() throws Exception {
        // --nodes after PROGRAM is the program's, so it is not validated as ours.
        Cli cli = TestPrograms.withRegisteredPrograms(servicesDir,
                () -> Cli.execute("run", "--nodes", "0", "idle-test", "--nodes", "5"));
        assertTrue(cli.err().contains("--nodes 0 out of range"), cli.toString());
        assertFalse(cli.err().contains("--nodes 5"), cli.toString());
    }

    @Test
    void nodeValidatesItsIdAndMonitor() {
        Cli cli = Cli.execute("node", "--node", "4", "--nodes", "4", "idle-test");
        assertEquals(2, cli.exitCode(), cli.toString());
        assertTrue(cli.err().contains("--node 4 out of range [0, 3]"), cli.toString());

        cli = Cli.execute("node", "--node", "1", "--nodes", "2", "idle-test");
        assertEquals(2, cli.exitCode(), cli.toString());
        assertTrue(cli.err().contains("--monitor HOST:PORT is required for node 1"), cli.toString());

        cli = Cli.execute("node", "--node", "1", "--nodes", "2", "--monitor", "localhost:0",
                "--secret-file", "/nonexistent/secret", TestPrograms.Idle.class.getName());
        assertEquals(2, cli.exitCode(), cli.toString());
        assertTrue(cli.err().contains("port 0 in 'localhost:0' out of range [1, 65535]")
                || cli.err().contains("secret file /nonexistent/secret does not exist; make one with 'dsa keygen"), cli.toString());
    }

    @Test
    void nodeNeedsNodeId() {
        Cli cli = Cli.execute("node", "idle-test");
        assertEquals(2, cli.exitCode(), cli.toString());
        assertTrue(cli.err().contains("--node"), cli.toString());
    }
}
