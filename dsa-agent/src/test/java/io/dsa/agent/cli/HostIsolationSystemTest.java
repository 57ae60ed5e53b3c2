package io.dsa.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.agent.HostPort;
import io.dsa.agent.host.HostClient;
import io.dsa.agent.host.JobJar;
import io.dsa.agent.wire.HostJobEventMessage;
import io.dsa.agent.wire.HostJobMessage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jobs are isolated from their host: each runs in a JVM of its own, so a job that calls
 * {@code System.exit}, runs out of memory, is killed or has a hostile static initialiser fails alone while a
 * co-tenant job on the same hosts ends OK and the hosts keep serving; a class that is no program
 * never runs its initialiser; stopping a VM needs its launcher's token; the heap and processors
 * come from the request, capped by the host. Two hosts: 127.0.0.2 without caps, 127.0.0.3 with
 * {@code --max-job-heap 512m --max-job-cpus 1}. One tenant VM runs on both for the whole class
 * (its JVMs start once): every failing job must leave it running, and it must end OK at the end.
 * No randomness.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class HostIsolationSystemTest {
    private static final String FILL = HostTestPrograms.Fill.class.getName();

    @TempDir
    static Path dir;
    static Path secret;
    static final List<HostProcess> hosts = new ArrayList<>();
    /** The co-tenant VM of every failing job below, and its gate. */
    static CompletableFuture<Cli> tenant;
    static Path tenantGate;

    @BeforeAll
    static void startHostsAndTheTenant() throws Exception {
        System.out.println("HostIsolationSystemTest: no randomness (each failure is the program's own)");
        secret = HostProcess.newSecret(dir.resolve("secret"));
        hosts.add(HostProcess.start("127.0.0.2", secret));
        hosts.add(HostProcess.start("127.0.0.3", secret, List.of(), List.of("--max-job-heap", "512m", "--max-job-cpus", "1")));
        tenantGate = dir.resolve("gate-tenant");
        tenant = startTenant("tenant", tenantGate);
        awaitRunning("tenant", 2);
    }

    /** The tenant ran beside every failure; it ends OK once its gate opens, and the hosts still serve. */
    @AfterAll
    static void theTenantEndsOkAndTheHostsServe() throws Exception {
        try {
            if (tenant != null) assertTenantEndsOkAndTheHostsServe(tenant, tenantGate);
        } finally {
            HostProcess.closeAll(hosts);
        }
    }

    private static String hostList() { return hosts.get(0).address() + "," + hosts.get(1).address(); }

    /** Starts a two-node job (one node per host) that waits for {@code gate} before it checks its array. */
    private static CompletableFuture<Cli> startTenant(String vm, Path gate) {
        return CompletableFuture.supplyAsync(() -> Cli.execute("run", "--hosts", hostList(), "--threads", "1", "--vm", vm,
                "--secret-file", secret.toString(), FILL, "200", "20", gate.toString()));
    }

    private static void awaitRunning(String vm, int nodes) throws InterruptedException {
        Poll.status(s -> s.out().lines().filter(l -> l.startsWith(vm + " ") && l.contains("RUNNING")).count() == nodes,
                "--hosts", hostList(), "--vm", vm, "--secret-file", secret.toString());
    }

    // The tenant ran beside the failure; it ends OK once its gate opens, and the hosts still answer.
    private static void assertTenantEndsOkAndTheHostsServe(CompletableFuture<Cli> tenant, Path gate) throws Exception {
        Cli status = Cli.execute("status", "--hosts", hostList(), "--secret-file", secret.toString());
        assertEquals(0, status.exitCode(), status.toString());
        Files.writeString(gate, "open");
        Cli done = tenant.get(150, TimeUnit.SECONDS);
        assertEquals(0, done.exitCode(), done.toString());
        assertTrue(done.out().contains("sum 40000 expected 40000"), done.out());
        for (HostProcess h : hosts) assertTrue(h.process().isAlive(), "host " + h.address() + " died:\n" + h.output());
    }

    // Every file a VM's jobs had in the hosts' work directories is gone (their JVMs ended).
    private static void awaitNoFilesOf(String vm) throws InterruptedException {
        Poll.until("the files of vm '" + vm + "' deleted", () -> filesOf(vm), List::isEmpty, 120_000, 50);
    }

    private static List<Path> filesOf(String vm) {
        Path work = HostProcess.workDir(secret);
        try (Stream<Path> walk = Files.walk(work)) {
            return walk.filter(p -> p.getFileName().toString().matches("job-\\d+-" + Pattern.quote(vm) + "-\\d+\\.jar")).toList();
        } catch (IOException | java.io.UncheckedIOException e) {
            return List.of(work.resolve("(a file went while the walk read it: " + e.getMessage() + ")"));   // look again
        }
    }

    @Test
    void aJobThatCallsSystemExitFailsAloneAndTheHostsKeepServing() throws Exception {
        assertFailsAloneBesideATenant("exiter", HostTestPrograms.Exit.class, List.of(),
                "result: FAILED: node 1 of vm 'exiter' exited with code 3");
    }

    @Test
    void aJobThatRunsOutOfMemoryFailsAloneNamingItsHeap() throws Exception {
        assertFailsAloneBesideATenant("hog", HostTestPrograms.Hog.class, List.of("--job-heap", "64m"),
                "result: FAILED: node 1 of vm 'hog' ran out of memory (heap 64 MiB)");
    }

    @Test
    void aJobWhoseJvmIsKilledFailsAloneNamingTheSignal() throws Exception {
        assertFailsAloneBesideATenant("crash", HostTestPrograms.Crash.class, List.of(),
                "result: FAILED: node 1 of vm 'crash' was killed by signal 9 (exit code 137)");
    }

    @Test
    void aProgramWhoseStaticInitialiserThrowsFailsAlone() throws Exception {
        assertFailsAloneBesideATenant("badinit", HostTestPrograms.BadInit.class, List.of(),
                "result: FAILED: node 0 cannot start on host " + hosts.get(0).address() + ": the static initialiser of the"
                        + " program's class threw java.lang.IllegalStateException: hostile static initialiser");
    }

    /**
     * Runs {@code program} as VM {@code vm} on both hosts while the tenant VM runs there too: the
     * run fails printing {@code expected}, the VM's files go, the tenant's two nodes still run and
     * the hosts answer (the tenant's result is checked once it ends, after the class).
     */
    private static void assertFailsAloneBesideATenant(String vm, Class<?> program, List<String> options, String expected)
            throws Exception {
        List<String> args = new ArrayList<>(List.of("run", "--hosts", hostList(), "--threads", "1", "--vm", vm,
                "--secret-file", secret.toString()));
        args.addAll(options);
        args.add(program.getName());
        Cli run = Cli.execute(args.toArray(new String[0]));
        assertEquals(DsaCli.EXIT_FAILED, run.exitCode(), run.toString());
        assertTrue(run.out().contains(expected), run.out());
        awaitNoFilesOf(vm);
        assertFalse(tenant.isDone(), () -> "the tenant ended beside vm '" + vm + "': " + tenant.join());
        Cli status = Cli.execute("status", "--hosts", hostList(), "--vm", "tenant", "--secret-file", secret.toString());
        assertEquals(0, status.exitCode(), status.toString());
        assertEquals(2, status.out().lines().filter(l -> l.startsWith("tenant ") && l.contains("RUNNING")).count(), status.out());
        for (HostProcess h : hosts) assertTrue(h.process().isAlive(), "host " + h.address() + " died:\n" + h.output());
    }

    @Test
    void aClassThatIsNoProgramIsRefusedWithoutRunningItsInitialiser() throws Exception {
        HostPort host = HostPort.parse(hosts.get(0).address());
        LinkedBlockingQueue<HostJobEventMessage> events = new LinkedBlockingQueue<>();
        try (HostClient client = HostClient.open(secretBytes(), "127.0.0.1", 30_000)) {
            client.onJobEvent(events::add);
            client.submit(host, new HostJobMessage(1, "notaprogram", 0, 1, 1, null, HostTestPrograms.ExitingNonProgram.class.getName(),
                    List.of(), List.of(), JobJar.of(HostTestPrograms.class), 0, 0));
            HostJobEventMessage e = nextOutcome(events);
            // its initialiser would have ended the JVM with code 7
            assertEquals(HostJobEventMessage.FAILED, e.event(), e.toString());
            assertEquals("node 0 cannot start on host " + host + ": class " + HostTestPrograms.ExitingNonProgram.class.getName()
                    + " does not implement io.dsa.DsaProgram", e.text());
        }
        awaitNoFilesOf("notaprogram");
    }

    @Test
    void stoppingAVmNeedsTheTokenItsLauncherReceived() throws Exception {
        HostPort host = HostPort.parse(hosts.get(0).address());
        Path gate = dir.resolve("gate-stop");   // never opened: only the stop ends the job
        LinkedBlockingQueue<HostJobEventMessage> events = new LinkedBlockingQueue<>();
        try (HostClient owner = HostClient.open(secretBytes(), "127.0.0.1", 30_000);
             HostClient other = HostClient.open(secretBytes(), "127.0.0.1", 30_000)) {
            owner.onJobEvent(events::add);
            owner.submit(host, new HostJobMessage(1, "stoppable", 0, 1, 1, null, FILL, List.of("10", "5", gate.toString()),
                    List.of(), JobJar.of(HostTestPrograms.class), 0, 0));
            HostJobEventMessage accepted = events.poll(60, TimeUnit.SECONDS);
            assertEquals(HostJobEventMessage.ACCEPTED, accepted.event(), String.valueOf(accepted));
            String token = accepted.text();
            assertTrue(token.matches("[0-9a-f]{32}"), token);
            awaitRunningOn(host, "stoppable");

            DsaException none = assertThrows(DsaException.class,
                    () -> other.stopVm(host, "stoppable", null, 10_000));
            assertTrue(none.getMessage().contains("stopping vm 'stoppable' on host " + host + " needs the stop token its launcher"
                    + " received when it submitted the job; none was given"), none.getMessage());
            String wrong = token.charAt(0) == '0' ? "1" + token.substring(1) : "0" + token.substring(1);
            DsaException refused = assertThrows(DsaException.class,
                    () -> other.stopVm(host, "stoppable", wrong, 10_000));
            assertTrue(refused.getMessage().contains("wrong stop token for vm 'stoppable' on host " + host
                    + ": only the launcher that submitted it can stop it"), refused.getMessage());
            assertEquals(1, other.status(host, "stoppable").size(), "a refused stop stops nothing");

            assertEquals("stopped 1 agent(s) of vm 'stoppable'",
                    other.stopVm(host, "stoppable", token, 10_000));
            assertTrue(other.status(host, "stoppable").stream().allMatch(r -> r.state().equals("STOPPED")),
                    "only remembered as stopped: " + other.status(host, "stoppable"));
        }
        awaitNoFilesOf("stoppable");
    }

    @Test
    void theJvmGetsTheRequestedHeapAndProcessorsCappedByItsHost() {
        Cli run = Cli.execute("run", "--hosts", hostList(), "--threads", "1", "--vm", "limits", "--job-heap", "1g",
                "--job-cpus", "2", "--secret-file", secret.toString(), HostTestPrograms.Limits.class.getName());
        assertEquals(0, run.exitCode(), run.toString());
        assertTrue(run.out().contains("node 1 on host " + hosts.get(1).address()
                + ": heap capped at 512 MiB (asked 1 GiB; the host's --max-job-heap)"), run.out());
        assertTrue(run.out().contains("node 1 on host " + hosts.get(1).address()
                + ": processors capped at 1 (asked 2; the host's --max-job-cpus)"), run.out());
        Pattern line = Pattern.compile("node (\\d): heap (\\d+) MiB, cpus (\\d+), affinity (-?\\d+)");
        Matcher m = line.matcher(run.out());
        int seen = 0;
        while (m.find()) {
            int node = Integer.parseInt(m.group(1));
            long heapMiB = Long.parseLong(m.group(2));
            int cpus = Integer.parseInt(m.group(3));
            int affinity = Integer.parseInt(m.group(4));
            long maxMiB = node == 0 ? 1024 : 512;   // a JVM reports its -Xmx less a survivor space at most
            assertTrue(heapMiB <= maxMiB && heapMiB > maxMiB * 8 / 10, "node " + node + " heap " + heapMiB + " MiB:\n" + run.out());
            assertEquals(node == 0 ? 2 : 1, cpus, run.out());
            if (node == 1 && affinity >= 0 && Runtime.getRuntime().availableProcessors() > 1) {
                assertEquals(1, affinity, "node 1 is pinned to one processor with taskset:\n" + run.out());
            }
            seen++;
        }
        assertEquals(2, seen, run.out());
    }

    private static void awaitRunningOn(HostPort host, String vm) throws InterruptedException {
        Poll.status(s -> s.out().lines().anyMatch(l -> l.startsWith(vm + " ") && l.contains("RUNNING")),
                "--hosts", host.toString(), "--vm", vm, "--secret-file", secret.toString());
    }

    private static HostJobEventMessage nextOutcome(LinkedBlockingQueue<HostJobEventMessage> events) throws InterruptedException {
        while (true) {
            HostJobEventMessage e = events.poll(60, TimeUnit.SECONDS);
            if (e == null) throw new AssertionError("no outcome within 60 s");
            if (e.event() != HostJobEventMessage.ACCEPTED && e.event() != HostJobEventMessage.STARTED) return e;
        }
    }

    private static byte[] secretBytes() throws IOException {
        return Files.readString(secret, StandardCharsets.UTF_8).strip().getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theWorkDirectoryIsPrivate() throws Exception {
        Path hostDir = hosts.get(0).hostDir(secret);
        assertTrue(Files.isDirectory(hostDir), hostDir.toString());
        assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(hostDir)));
        assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(HostProcess.workDir(secret))));
        // no secret on disk: jobs' jars, kept jars (named by their SHA-256) and owner files only, each this user's alone
        // (listed again if a job's file goes while it is read)
        List<String> names = Poll.until("a listing of the work directory", () -> {
            try (Stream<Path> files = Files.walk(HostProcess.workDir(secret))) {
                return files.filter(Files::isRegularFile).map(p -> p.getFileName().toString() + " "
                        + java.nio.file.attribute.PosixFilePermissions.toString(uncheckedMode(p))).toList();
            } catch (IOException | java.io.UncheckedIOException e) {
                return null;
            }
        }, java.util.Objects::nonNull, 10_000, 20);
        assertEquals(List.of(), names.stream().filter(n -> !n.matches("(owner|job-.*\\.jar|jar-[0-9a-f]{64}\\.jar(\\.part)?) rw-------")).toList());
        assertTrue(names.stream().anyMatch(n -> n.startsWith("jar-")), "the tenant's jar is kept: " + names);
    }

    private static java.util.Set<java.nio.file.attribute.PosixFilePermission> uncheckedMode(Path p) {
        try {
            return Files.getPosixFilePermissions(p);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
