package io.dsa.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dsa host} processes on distinct loopback addresses (127.0.0.2 ..), driven by
 * {@code dsa run --hosts} and {@code dsa status} in this JVM. The hosts do not have the test
 * program on their class path: it reaches them only as the shipped jar.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class HostsSystemTest {
    private static final String FILL = HostTestPrograms.Fill.class.getName();

    @TempDir
    static Path dir;
    static Path secret;
    static Path wrongSecret;
    static final List<HostProcess> hosts = new ArrayList<>();

    @BeforeAll
    static void startHosts() throws Exception {
        secret = HostProcess.newSecret(dir.resolve("secret"));
        wrongSecret = HostProcess.newSecret(dir.resolve("wrong"));
        HostProcess.startAll(2, 4, secret, hosts);
    }

    @AfterAll
    static void stopHosts() throws Exception {
        for (HostProcess h : hosts) h.close();
    }

    private static String hostList() {
        return String.join(",", hosts.stream().map(HostProcess::address).toList());
    }

    @Test
    void statusTakesTheHostsFromTheEnvironment() throws Exception {
        ProcessBuilder pb = new ProcessBuilder(io.dsa.agent.host.JvmCommand.javaExecutable(), "-cp", HostProcess.mainClassPath(),
                DsaCli.class.getName(), "status", "--secret-file", secret.toString()).redirectErrorStream(true);
        pb.environment().put("DSA_HOSTS", hostList());
        Process p = pb.start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS), out);
            assertEquals(0, p.exitValue(), out);
            assertTrue(out.matches("(?s)VM\\s+NODE\\s+HOST.*"), out);   // ended nodes of earlier tests may widen the columns
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void runsAProgramOnThreeHostsFromTheShippedJar() {
        Cli run = Cli.execute("run", "--hosts", hostList(), "--threads", "2", "--vm", "three",
                "--secret-file", secret.toString(), FILL, "600", "50");
        assertEquals(0, run.exitCode(), run.toString());
        assertTrue(run.out().contains("node 0: sum 360000 expected 360000"), run.out());
        assertTrue(run.out().contains("loaded by dsa-job-three-0"), run.out());
        assertTrue(run.out().contains("(3 nodes x 2 threads)"), run.out());
        assertTrue(run.out().contains("result: OK"), run.out());
    }

    /**
     * The hosts keep the program jar a job shipped (docs/hosts.md, "Program jars kept by the hosts"): after a run,
     * each host says it keeps the jar the launcher packs from the test classes (byte for byte the same in every run),
     * the next run names it instead of shipping it, and its program still comes from that jar.
     */
    @Test
    void aLaterRunNamesTheJarTheHostsKeepInsteadOfShippingIt() {
        Cli first = Cli.execute("run", "--hosts", hostList(), "--threads", "1", "--vm", "kept-1", "--secret-file", secret.toString(),
                FILL, "300", "20");
        assertEquals(0, first.exitCode(), first.toString());
        byte[] digest = io.dsa.agent.host.JarCache.digest(io.dsa.agent.host.JobJar.of(HostTestPrograms.Fill.class));
        try (io.dsa.agent.host.HostClient client = io.dsa.agent.host.HostClient.open(
                Secrets.fromFile(secret, false, warning -> { }), "127.0.0.1", 10_000)) {
            for (HostProcess h : hosts) {
                assertTrue(client.keepsJar(io.dsa.agent.HostPort.parse(h.address()), digest), h.address());
                assertFalse(client.keepsJar(io.dsa.agent.HostPort.parse(h.address()), new byte[32]), h.address());
            }
        }
        Cli second = Cli.execute("run", "--hosts", hostList(), "--threads", "1", "--vm", "kept-2", "--secret-file", secret.toString(),
                FILL, "300", "20");
        assertEquals(0, second.exitCode(), second.toString());
        assertTrue(second.out().contains("): shipped to no host; kept by "), second.out());
        assertTrue(second.out().contains("node 0: sum 90000 expected 90000"), second.out());
        assertTrue(second.out().contains("loaded by dsa-job-kept-2-0"), second.out());
        assertTrue(second.out().contains("result: OK"), second.out());
    }

    @Test
    void twoVmsShareTheHostsAndStatusShowsBoth() throws Exception {
        Path gate = dir.resolve("gate-two-vms");
        CompletableFuture<Cli> first = CompletableFuture.supplyAsync(() -> Cli.execute("run", "--hosts", hostList(),
                "--threads", "1", "--vm", "left", "--secret-file", secret.toString(), FILL, "300", "20", gate.toString()));
        CompletableFuture<Cli> second = CompletableFuture.supplyAsync(() -> Cli.execute("run", "--hosts", hostList(),
                "--nodes", "4", "--threads", "1", "--vm", "right", "--secret-file", secret.toString(), FILL, "300", "20",
                gate.toString()));
        try {
            Cli status = awaitStatus(s -> s.out().lines().filter(l -> l.contains("RUNNING")).count() == 7
                    || first.isDone() || second.isDone(), "--hosts", hostList(), "--secret-file", secret.toString());
            assertFalse(first.isDone() || second.isDone(), () -> "a run ended while both should run: "
                    + (first.isDone() ? first.join() : second.join()));
            List<String> lines = status.out().lines().toList();
            assertTrue(lines.get(0).matches("VM\\s+NODE\\s+HOST\\s+AGENT\\s+STATE\\s+PROGRAM\\s+HOMED\\s+CACHED"), status.out());
            // node 3 of "right" wraps around to the first host
            assertTrue(lines.stream().anyMatch(l -> l.matches("right\\s+3\\s+" + hosts.get(0).address().replace(".", "\\.")
                    + "\\s+127\\.0\\.0\\.2:\\d+\\s+RUNNING\\s+HostTestPrograms\\$Fill\\s+\\d+\\s+\\d+")), status.out());
            Cli onlyLeft = Cli.execute("status", "--vm", "left", "--host", hosts.get(1).address(),
                    "--secret-file", secret.toString());
            assertEquals(0, onlyLeft.exitCode(), onlyLeft.toString());
            assertEquals(2, onlyLeft.out().lines().count(), onlyLeft.out());
            assertTrue(onlyLeft.out().contains("left  1"), onlyLeft.out());
        } finally {
            Files.writeString(gate, "open");
        }
        Cli left = first.get(150, TimeUnit.SECONDS);
        Cli right = second.get(150, TimeUnit.SECONDS);
        assertEquals(0, left.exitCode(), left.toString());
        assertEquals(0, right.exitCode(), right.toString());
        assertTrue(left.out().contains("sum 90000 expected 90000"), left.out());
        assertTrue(right.out().contains("sum 90000 expected 90000"), right.out());
        // finished jobs leave the hosts
        awaitStatus(s -> !s.out().contains("RUNNING"), "--hosts", hostList(), "--secret-file", secret.toString());
    }

    /**
     * Hosts are dialled all at once ({@code HostClient.dialAll}): a host nobody listens at is named
     * as before, in {@code dsa status} beside the others' answer and at each {@code connect}, which
     * dials it again rather than keep the failed dial; the others answer over their dialled
     * connections.
     */
    @Test
    void aHostNobodyListensAtIsNamedWhileTheOthersAreDialledAtOnce() throws Exception {
        int nobody;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            nobody = probe.getLocalPort();
        }
        String dead = "127.0.0.1:" + nobody;
        Cli status = Cli.execute("status", "--hosts", hosts.get(0).address() + "," + dead + "," + hosts.get(1).address(),
                "--secret-file", secret.toString());
        assertEquals(DsaCli.EXIT_FAILED, status.exitCode(), status.toString());
        assertTrue(status.out().startsWith("VM ") && status.out().lines().findFirst().orElseThrow().contains("NODE  HOST"), status.out());
        assertTrue(status.out().contains("error: host " + dead + ": "), status.out());
        assertEquals(1, status.out().lines().filter(l -> l.startsWith("error:")).count(), status.out());
        try (io.dsa.agent.host.HostClient client = io.dsa.agent.host.HostClient.open(
                Secrets.fromFile(secret, false, warning -> { }), "127.0.0.1", 10_000)) {
            io.dsa.agent.HostPort live = io.dsa.agent.HostPort.parse(hosts.get(0).address());
            io.dsa.agent.HostPort down = io.dsa.agent.HostPort.parse(dead);
            client.dialAll(List.of(live, down));
            assertFalse(client.keepsJar(live, new byte[32]), "a request over the dialled connection");
            io.dsa.DsaException refused = org.junit.jupiter.api.Assertions.assertThrows(io.dsa.DsaException.class, () -> client.connect(down));
            assertTrue(refused.getMessage().startsWith("host " + dead + ": ") && refused.getMessage().contains("refused"),
                    refused.getMessage());
            // now something listens there and hangs up at once: a new dial meets that, not the old refusal
            try (java.net.ServerSocket hangUp = new java.net.ServerSocket(nobody, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
                Thread acceptor = new Thread(() -> {
                    try {
                        while (true) hangUp.accept().close();
                    } catch (java.io.IOException closed) {
                        // the test is over
                    }
                });
                acceptor.start();
                io.dsa.DsaException again = org.junit.jupiter.api.Assertions.assertThrows(io.dsa.DsaException.class, () -> client.connect(down));
                assertTrue(again.getMessage().startsWith("host " + dead + ": ") && !again.getMessage().contains("refused"),
                        again.getMessage());
            }
        }
    }

    @Test
    void aWrongSecretIsRefusedAndTheHostsKeepServing() {
        Cli run = Cli.execute("run", "--hosts", hostList(), "--vm", "intruder", "--secret-file", wrongSecret.toString(),
                FILL, "10", "5");
        assertEquals(DsaCli.EXIT_FAILED, run.exitCode(), run.toString());
        assertTrue(run.out().contains("refused"), run.out());
        Cli status = Cli.execute("status", "--hosts", hostList(), "--secret-file", wrongSecret.toString());
        assertEquals(DsaCli.EXIT_FAILED, status.exitCode(), status.toString());
        assertTrue(status.out().contains("refused"), status.out());
        Cli migrate = Cli.execute("migrate", "--vm", "any", "--node", "1", "--from", hosts.get(0).address(),
                "--to", hosts.get(1).address(), "--secret-file", wrongSecret.toString());
        assertEquals(DsaCli.EXIT_FAILED, migrate.exitCode(), migrate.toString());
        assertTrue(migrate.out().contains("refused"), migrate.out());
        Cli clone = Cli.execute("clone", "--vm", "any", "--node", "1", "--from", hosts.get(0).address(),
                "--to", hosts.get(1).address(), "--secret-file", wrongSecret.toString());
        assertEquals(DsaCli.EXIT_FAILED, clone.exitCode(), clone.toString());
        assertTrue(clone.out().contains("refused"), clone.out());
        Cli read = Cli.execute("read", "--vm", "any", "--node", "1", "--hosts", hosts.get(0).address(), "--array", "A",
                "--secret-file", wrongSecret.toString());
        assertEquals(DsaCli.EXIT_FAILED, read.exitCode(), read.toString());
        assertTrue(read.out().contains("refused"), read.out());
        Cli ok = Cli.execute("status", "--hosts", hostList(), "--secret-file", secret.toString());
        assertEquals(0, ok.exitCode(), ok.toString());
        assertFalse(ok.out().contains("intruder"), ok.out());
    }

    @Test
    void migratingANonResumableJobIsRefusedAndTheJobCompletesWhereItWas() throws Exception {
        Path gate = dir.resolve("gate-refused-migration");
        CompletableFuture<Cli> run = CompletableFuture.supplyAsync(() -> Cli.execute("run", "--hosts",
                hosts.get(0).address() + "," + hosts.get(1).address(), "--threads", "1", "--vm", "stay",
                "--secret-file", secret.toString(), FILL, "200", "20", gate.toString()));
        try {
            awaitStatus(s -> s.out().lines().filter(l -> l.startsWith("stay") && l.contains("RUNNING")).count() == 2,
                    "--hosts", hostList(), "--vm", "stay", "--secret-file", secret.toString());
            Cli migrate = Cli.execute("migrate", "--vm", "stay", "--node", "1", "--hosts", hostList(),
                    "--to", hosts.get(2).address(), "--secret-file", secret.toString());
            assertEquals(DsaCli.EXIT_FAILED, migrate.exitCode(), migrate.toString());
            assertTrue(migrate.out().contains("not resumable()"), migrate.out());
            assertTrue(migrate.out().contains("(it stays there)"), migrate.out());
            Cli status = Cli.execute("status", "--hosts", hostList(), "--vm", "stay", "--secret-file", secret.toString());
            assertTrue(status.out().lines().anyMatch(l -> l.matches("stay\\s+1\\s+" + hosts.get(1).address().replace(".", "\\.")
                    + "\\s+.*RUNNING.*")), status.out());
            Cli unknown = Cli.execute("migrate", "--vm", "stay", "--node", "7", "--hosts", hostList(),
                    "--to", hosts.get(2).address(), "--secret-file", secret.toString());
            assertEquals(DsaCli.EXIT_FAILED, unknown.exitCode(), unknown.toString());
            assertEquals("migration failed: vm 'stay' has no node 7 on [" + hostList().replace(",", ", ") + "]; its nodes: [0, 1]",
                    unknown.out().strip());
        } finally {
            Files.writeString(gate, "open");
        }
        Cli done = run.get(150, TimeUnit.SECONDS);
        assertEquals(0, done.exitCode(), done.toString());
        // the hosts remember the finished vm: a late command says so, and one for a vm that never ran says that
        Cli late = Cli.execute("read", "--wait-for-vm", "stay", "--node", "1", "--hosts", hostList(), "--array", "fill.A",
                "--secret-file", secret.toString());
        assertEquals(DsaCli.EXIT_FAILED, late.exitCode(), late.toString());
        assertTrue(late.out().startsWith("read failed: vm 'stay' has finished: node 0 DONE on " + hosts.get(0).address()
                + ", node 1 DONE on " + hosts.get(1).address()), late.toString());
        Cli finished = Cli.execute("status", "--hosts", hostList(), "--vm", "stay", "--secret-file", secret.toString());
        assertEquals(0, finished.exitCode(), finished.toString());
        assertTrue(finished.out().contains("vm 'stay' has finished"), finished.toString());
        assertTrue(finished.out().lines().anyMatch(l -> l.matches("stay\\s+1\\s+\\S+\\s+-\\s+DONE\\s+.*")), finished.toString());
        Cli never = Cli.execute("clone", "--vm", "never", "--node", "0", "--hosts", hostList(), "--to", hosts.get(2).address(),
                "--secret-file", secret.toString());
        assertEquals(DsaCli.EXIT_FAILED, never.exitCode(), never.toString());
        assertEquals("cloning failed: vm 'never' is unknown to [" + hostList().replace(",", ", ")
                + "] (is it running? hosts remember a finished vm for 10 minutes)", never.out().strip());
        Cli neverStatus = Cli.execute("status", "--hosts", hostList(), "--vm", "never", "--secret-file", secret.toString());
        assertEquals(DsaCli.EXIT_FAILED, neverStatus.exitCode(), neverStatus.toString());
        assertEquals("error: vm 'never' is unknown to [" + hostList().replace(",", ", ")
                + "] (is it running? hosts remember a finished vm for 10 minutes)", neverStatus.out().strip());
        assertTrue(done.out().contains("sum 40000 expected 40000"), done.out());
    }

    @Test
    void aNodeThatCannotStartFailsTheRunWithItsReason() {
        Cli run = Cli.execute("run", "--hosts", hostList(), "--vm", "bad", "--secret-file", secret.toString(),
                FILL, "not-a-number", "5");
        assertEquals(DsaCli.EXIT_FAILED, run.exitCode(), run.toString());
        assertTrue(run.out().contains("result: FAILED"), run.out());
        assertTrue(run.out().contains("not-a-number"), run.out());
    }

    @Test
    void sigtermStopsAHostCleanly() throws Exception {
        try (HostProcess host = HostProcess.start("127.0.0.5", secret)) {
            host.process().toHandle().destroy();   // SIGTERM
            assertTrue(host.process().waitFor(20, TimeUnit.SECONDS), host.output());
            assertTrue(host.output().contains("host " + host.address() + " stopped"), host.output());
        }
    }

    private static Cli awaitStatus(Predicate<Cli> condition, String... args) throws InterruptedException {
        return Poll.status(condition, args);
    }
}
