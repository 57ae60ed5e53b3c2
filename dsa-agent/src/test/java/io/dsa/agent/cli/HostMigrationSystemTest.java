package io.dsa.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Live migration between {@code dsa host} processes on 127.0.0.2 .. 127.0.0.4 (and a faulty one
 * on 127.0.0.6) with {@code dsa migrate}, while a resumable job shipped from the test classes runs.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class HostMigrationSystemTest {
    private static final String RELAX = HostTestPrograms.Relax.class.getName();
    /** At 10 ms each while throttled, then the job holds at plain barriers until the test opens its fast file. */
    private static final String ITERATIONS = "100";
    private static final Pattern RESULT = Pattern.compile("node 0: relax ([0-9a-f]+)");

    @TempDir
    static Path dir;
    static Path secret;
    static final List<HostProcess> hosts = new ArrayList<>();
    static String baseline;

    @BeforeAll
    static void startHostsAndRunTheBaseline() throws Exception {
        System.out.println("HostMigrationSystemTest: no randomness (the moves and the kill come at chosen steps)");
        secret = HostProcess.newSecret(dir.resolve("secret"));
        HostProcess.startAll(2, 4, secret, hosts);
        Path fast = Files.writeString(dir.resolve("fast-baseline"), "fast");
        // in process: the result does not depend on where the nodes run (the moved runs below are on the hosts)
        Cli run = Cli.execute("run", "--in-process", "--nodes", "3", "--threads", "2", RELAX, ITERATIONS, fast.toString());
        assertEquals(0, run.exitCode(), run.toString());
        baseline = result(run);
    }

    @AfterAll
    static void stopHosts() throws Exception {
        HostProcess.closeAll(hosts);
    }

    private static String address(int h) { return hosts.get(h).address(); }

    private static String result(Cli run) {
        Matcher m = RESULT.matcher(run.out());
        assertTrue(m.find(), run.out());
        return m.group(1);
    }

    private static CompletableFuture<Cli> startSlowRun(String vm, Path fast) {
        return CompletableFuture.supplyAsync(() -> Cli.execute("run", "--hosts", address(0) + "," + address(1), "--nodes", "3",
                "--threads", "2", "--vm", vm, "--secret-file", secret.toString(), RELAX, ITERATIONS, fast.toString()));
    }

    @Test
    void twoMigrationsDuringOneRunGiveABitwiseIdenticalResult() throws Exception {
        Path fast = dir.resolve("fast-two-moves");
        CompletableFuture<Cli> run = startSlowRun("moves", fast);
        try {
            awaitStatus(s -> s.out().lines().filter(l -> l.startsWith("moves") && l.contains("RUNNING")).count() == 3, "moves");
            // node 1: host 1 -> host 2
            Cli first = Cli.execute("migrate", "--vm", "moves", "--node", "1", "--hosts", address(0) + "," + address(1),
                    "--to", address(2), "--secret-file", secret.toString());
            assertEquals(0, first.exitCode(), first.toString());
            assertTrue(first.out().matches("(?s)moved moves/1 from " + Pattern.quote(address(1)) + " to "
                    + Pattern.quote(address(2)) + ": pause \\d+\\.\\d ms, \\d+ bytes moved\\s*"), first.out());
            // node 2: host 0 -> host 1 (which node 1 just left)
            Cli second = Cli.execute("migrate", "--vm", "moves", "--node", "2", "--hosts",
                    address(0) + "," + address(1) + "," + address(2), "--to", address(1), "--secret-file", secret.toString());
            assertEquals(0, second.exitCode(), second.toString());
            Cli status = Cli.execute("status", "--hosts", address(0) + "," + address(1) + "," + address(2), "--vm", "moves",
                    "--secret-file", secret.toString());
            assertTrue(status.out().lines().anyMatch(l -> l.matches("moves\\s+1\\s+" + Pattern.quote(address(2)) + "\\s+.*")),
                    status.out());
            assertTrue(status.out().lines().anyMatch(l -> l.matches("moves\\s+2\\s+" + Pattern.quote(address(1)) + "\\s+.*")),
                    status.out());
        } finally {
            Files.writeString(fast, "fast");
        }
        Cli done = run.get(150, TimeUnit.SECONDS);
        assertEquals(0, done.exitCode(), done.toString());
        assertEquals(baseline, result(done), "result after two migrations differs from the run without");
    }

    @Test
    void killingTheNewHostMidTransferLeavesTheSourceAuthoritative() throws Exception {
        Path fast = dir.resolve("fast-killed");
        CompletableFuture<Cli> run = startSlowRun("killed", fast);
        // the new host stops for good once the node's state is restored there, before the other nodes connect to it
        try (HostProcess doomed = HostProcess.startStopping("127.0.0.6", secret, "transfer")) {
            try {
                awaitStatus(s -> s.out().lines().filter(l -> l.startsWith("killed") && l.contains("RUNNING")).count() == 3,
                        "killed");
                CompletableFuture<Cli> migrate = CompletableFuture.supplyAsync(() -> Cli.execute("migrate", "--vm", "killed",
                        "--node", "1", "--hosts", address(0) + "," + address(1), "--to", doomed.address(),
                        "--secret-file", secret.toString()));
                try {
                    doomed.awaitOutput("stopped after transfer", 120_000);   // it holds node 1's state then
                } catch (IllegalStateException e) {
                    throw new AssertionError(migrate.isDone() ? "the migration ended first: " + migrate.get() : e.getMessage(), e);
                }
                doomed.process().destroyForcibly();   // SIGKILL
                assertTrue(doomed.process().waitFor(10, TimeUnit.SECONDS));
                Cli refused = migrate.get(120, TimeUnit.SECONDS);
                assertEquals(DsaCli.EXIT_FAILED, refused.exitCode(), refused.toString());
                assertTrue(refused.out().contains("killed/1"), refused.out());
                // node 1 is still served by its old host, once, and nowhere else
                Cli status = awaitStatus(s -> s.out().lines().filter(l -> l.startsWith("killed") && l.contains("RUNNING")).count() == 3,
                        "killed");
                assertEquals(1, status.out().lines().filter(l -> l.matches("killed\\s+1\\s+.*")).count(), status.out());
                assertTrue(status.out().lines().anyMatch(l -> l.matches("killed\\s+1\\s+" + Pattern.quote(address(1)) + "\\s+.*")),
                        status.out());
            } finally {
                Files.writeString(fast, "fast");
            }
            Cli done = run.get(150, TimeUnit.SECONDS);
            assertEquals(0, done.exitCode(), done.toString());
            assertEquals(baseline, result(done), "the job went on on the source and must give the same result");
        }
    }

    private static Cli awaitStatus(Predicate<Cli> condition, String vm) throws InterruptedException {
        return Poll.status(condition, "--hosts", address(0) + "," + address(1) + "," + address(2), "--vm", vm,
                "--secret-file", secret.toString());
    }
}
