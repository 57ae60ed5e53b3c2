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
 * Cloning between {@code dsa host} processes on 127.0.0.2 .. 127.0.0.4 with {@code dsa clone}
 * while a job runs: the clone serves reads ({@code dsa read}), later writes by the job reach it
 * through invalidations, status lists it, and it goes when its VM ends.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class HostCloneSystemTest {
    private static final String PHASES = HostTestPrograms.Phases.class.getName();
    private static final int LENGTH = 96;
    private static final Pattern CLONED = Pattern.compile(
            "cloned cl/1 from (\\S+) to (\\S+) as cl/(\\d+): pause \\d+\\.\\d ms, (\\d+) bytes copied\\s*");
    private static final Pattern ELEMENT = Pattern.compile("phases\\.A\\[(\\d+)] = (\\S+)");

    @TempDir
    static Path dir;
    static Path secret;
    static final List<HostProcess> hosts = new ArrayList<>();

    @BeforeAll
    static void startHosts() throws Exception {
        System.out.println("HostCloneSystemTest: no randomness (the clone is taken at a chosen phase)");
        secret = HostProcess.newSecret(dir.resolve("secret"));
        HostProcess.startAll(2, 4, secret, hosts);
    }

    @AfterAll
    static void stopHosts() throws Exception {
        HostProcess.closeAll(hosts);
    }

    private static String address(int h) { return hosts.get(h).address(); }

    private static String allHosts() { return address(0) + "," + address(1) + "," + address(2); }

    @Test
    void aCloneOnAnotherHostServesReadsSeesLaterWritesAndEndsWithItsVm() throws Exception {
        Path gates = Files.createDirectories(dir.resolve("gates"));
        CompletableFuture<Cli> run = CompletableFuture.supplyAsync(() -> Cli.execute("run", "--hosts",
                address(0) + "," + address(1), "--nodes", "2", "--threads", "2", "--vm", "cl", "--secret-file", secret.toString(),
                PHASES, Integer.toString(LENGTH), "8", gates.toString()));
        try {
            awaitStatus(s -> s.out().lines().filter(l -> l.startsWith("cl ") && l.contains("RUNNING")).count() == 2);
            Cli clone = Cli.execute("clone", "--vm", "cl", "--node", "1", "--hosts", address(0) + "," + address(1),
                    "--to", address(2), "--secret-file", secret.toString());
            assertEquals(0, clone.exitCode(), clone.toString());
            Matcher m = CLONED.matcher(clone.out());
            assertTrue(m.matches(), clone.out());
            assertEquals(address(1), m.group(1));
            assertEquals(address(2), m.group(2));
            assertEquals("2", m.group(3), "the first clone of a 2-node VM is node 2");
            assertTrue(Long.parseLong(m.group(4)) > LENGTH * Double.BYTES, "the state carries the partitions' data: " + clone.out());

            // status lists the clone on the new host, holding node 1's copies of all 12 partitions, homing none
            Cli status = Cli.execute("status", "--hosts", allHosts(), "--vm", "cl", "--secret-file", secret.toString());
            assertEquals(0, status.exitCode(), status.toString());
            assertTrue(status.out().lines().anyMatch(l -> l.matches("cl\\s+2\\s+" + Pattern.quote(address(2))
                    + "\\s+\\S+\\s+CLONE\\s+\\S*Phases\\s+0\\s+12")), status.out());

            // the clone serves reads: phase 1's values
            assertElements(2, 1);

            // phase 2 rewrites every element; the homes invalidate the clone's copies and its reads fetch the new values
            Files.writeString(gates.resolve("phase2"), "go");
            awaitFile(gates.resolve("phase2-done"), run);
            assertElements(3, 2);
        } finally {
            Files.writeString(gates.resolve("phase2"), "go");
            Files.writeString(gates.resolve("end"), "go");
        }
        Cli done = run.get(150, TimeUnit.SECONDS);
        assertEquals(0, done.exitCode(), done.toString());
        long sum = 0;
        for (int i = 0; i < LENGTH; i++) sum += 3L * i + 2;
        assertTrue(done.out().contains("phases sum " + sum), done.out());
        // the clone goes with its VM: the hosts list its nodes as ended only
        awaitStatus(s -> s.out().lines().noneMatch(l -> l.startsWith("cl ") && (l.contains(" CLONE ") || l.contains(" RUNNING "))));
    }

    // Reads the whole array through the clone (node 2) and checks A[i] == a * i + b.
    private static void assertElements(int a, int b) {
        Cli read = Cli.execute("read", "--vm", "cl", "--node", "2", "--hosts", allHosts(), "--array", "phases.A",
                "--index", "0", "--count", Integer.toString(LENGTH), "--secret-file", secret.toString());
        assertEquals(0, read.exitCode(), read.toString());
        List<String> lines = read.out().lines().toList();
        assertEquals(LENGTH, lines.size(), read.out());
        for (int i = 0; i < LENGTH; i++) {
            Matcher m = ELEMENT.matcher(lines.get(i));
            assertTrue(m.matches(), lines.get(i));
            assertEquals(i, Integer.parseInt(m.group(1)));
            assertEquals((double) a * i + b, Double.parseDouble(m.group(2)), "element " + i + " read through the clone");
        }
    }

    private static void awaitFile(Path file, CompletableFuture<Cli> run) throws Exception {
        boolean written = Poll.inDirectory("the job's file " + file, file.getParent(), false, run, 120_000, () -> Files.exists(file));
        if (!written) throw new AssertionError("the job ended before " + file + ": " + run.get());
    }

    private static Cli awaitStatus(Predicate<Cli> condition) throws InterruptedException {
        return Poll.status(condition, "--hosts", allHosts(), "--vm", "cl", "--secret-file", secret.toString());
    }
}
