package io.dsa.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.checkpoint.CheckpointManifest;
import io.dsa.agent.checkpoint.CheckpointStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dsa run --hosts ... --checkpoint-every} (docs/failures.md, "Checkpoints on hosts" and
 * "Restart on hosts"): {@code dsa host} processes on 127.0.0.2 and 127.0.0.3, each with a
 * checkpoint directory of its own (the default, in its private work directory), run the resumable
 * relaxations of {@code MigrationTest} and {@code HostTestPrograms} (node 0 reports the bits of its
 * result), whose in-process run is the reference. The hosts that tests kill or give as a spare
 * (127.0.0.4 to 127.0.0.6) start with the others, all at once, while the references run: a host's
 * spare JVM is then ready when a job comes. No randomness: the kills come at chosen checkpoints.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class HostsCheckpointSystemTest {
    private static final String RELAX = "io.dsa.agent.MigrationTest$Relax";
    /** The relaxation that holds at plain barriers until its fast file exists: a kill cannot come after its end. */
    private static final String HELD = HostTestPrograms.Relax.class.getName();
    /** Iterations of the killed runs (checkpoints every 10: the kill comes after the one at epoch 20). */
    private static final String ITERATIONS = "40";
    /** Iterations of the {@code --restart-from} runs (checkpoints every 10: the two newest at epochs 20 and 10). */
    private static final String RESTARTED_ITERATIONS = "20";

    @TempDir
    static Path dir;
    static Path secret;
    /** 127.0.0.2 and .3, which every test may use, then .4 (killed by the first test), .5 (killed by the second) and .6 (its spare). */
    static final List<HostProcess> hosts = new ArrayList<>();

    @BeforeAll
    static void startHostsAndRunTheReferences() throws Exception {
        System.out.println("HostsCheckpointSystemTest: no randomness (the kills come at chosen checkpoints)");
        secret = HostProcess.newSecret(dir.resolve("secret"));
        CompletableFuture<Void> references = CompletableFuture.runAsync(() -> {
            reference(HELD, ITERATIONS);
            reference(RELAX, RESTARTED_ITERATIONS);
        });
        HostProcess.startAll(2, 6, secret, hosts);
        references.get(120, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stopHosts() throws Exception {
        HostProcess.closeAll(hosts);
    }

    private static String result(Cli cli) {
        return cli.out().lines().filter(l -> l.startsWith("node 0: relax ")).findFirst().orElseThrow(() -> new AssertionError(cli));
    }

    /** Result lines of uninterrupted runs by iteration count: the tests share them. */
    private static final java.util.Map<String, String> REFERENCES = new java.util.concurrent.ConcurrentHashMap<>();

    private static String reference(String program, String iterations) {
        return REFERENCES.computeIfAbsent(program + " " + iterations, key -> {
            List<String> args = new ArrayList<>(List.of("run", "--in-process", "--nodes", "2", "--threads", "1", program, iterations));
            if (program.equals(HELD)) args.add(fastFile("reference").toString());
            Cli cli = Cli.execute(args.toArray(new String[0]));
            assertEquals(0, cli.exitCode(), cli.toString());
            return result(cli);
        });
    }

    /** @return the held relaxation's fast file for {@code vm}, opened (written) for the reference runs */
    private static Path fastFile(String vm) {
        Path fast = dir.resolve("fast-" + vm);
        if (vm.equals("reference")) {
            try {
                Files.writeString(fast, "fast");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return fast;
    }

    /** @return the default checkpoint directory of VM {@code vm} on {@code host} */
    private static Path checkpoints(HostProcess host, String vm) { return host.hostDir(secret).resolve("checkpoints-" + vm); }

    // The two newest complete checkpoints (`epochs`) in `checkpoints`: `files` there, `absent` on the other host only.
    private static void assertHolds(Path checkpoints, List<Long> epochs, List<String> files, List<String> absent) {
        assertEquals(epochs, CheckpointStore.epochs(checkpoints), checkpoints.toString());
        for (long e : epochs) {
            Path d = CheckpointStore.epochDir(checkpoints, e);
            CheckpointManifest m = CheckpointStore.manifest(d);
            assertEquals(5, m.files().size(), m.toString());   // 2 node files, 2 copies, the monitor's
            for (String f : files) assertTrue(Files.exists(d.resolve(f)), d.resolve(f) + " exists");
            for (String f : absent) assertFalse(Files.exists(d.resolve(f)), d.resolve(f) + " is on the other host only");
            assertTrue(Files.exists(d.resolve(CheckpointStore.MONITOR_FILE)), d + " holds the monitor's file");
            CheckpointStore.forNode(checkpoints, e, 0);
            CheckpointStore.forNode(checkpoints, e, 1);   // verifies the node's own file or the copy
        }
    }

    /**
     * A host killed by PID (SIGKILL; its node's JVM ends with it) after the first complete
     * checkpoint: its node restarts on the other host from the copy kept there, and the run ends
     * with the uninterrupted run's result.
     */
    @Test
    void aHostKilledAfterACheckpointIsSurvivedOnTheRemainingHostWithTheSameResult() throws Exception {
        HostProcess a = hosts.get(0);
        try (HostProcess doomed = hosts.get(2)) {
            Cli cli = runAndKill(doomed, "ck-kill", null);
            assertTrue(cli.out().contains("node lost: "), cli.toString());
            assertTrue(cli.out().contains("(lost: [" + doomed.address() + "])"), cli.toString());
            assertTrue(cli.out().contains(", restart 1 of at most 3: node 0 on " + a.address() + ", node 1 on " + a.address()), cli.toString());
            assertTrue(cli.out().contains("recovered: the VM formed again and resumes at epoch "), cli.toString());
        }
    }

    /**
     * With {@code --spare}: the killed host's node restarts on its buddy's host, from the copy
     * there, and moves to the spare once the VM resumed; same result. Then each host's default
     * directory holds its node's file and the copy of the other host's node (the last checkpoints
     * were taken with node 0 on the first host and node 1 on the spare).
     */
    @Test
    void aSpareTakesTheKilledHostsPlaceWithTheSameResultAndEachHostKeepsTheOthersCopy() throws Exception {
        HostProcess a = hosts.get(0);
        try (HostProcess doomed = hosts.get(3); HostProcess spare = hosts.get(4)) {
            Path onA = checkpoints(a, "ck-spare");
            Path onSpare = checkpoints(spare, "ck-spare");
            // the job holds until node 1 runs on the spare and two checkpoints were taken there since
            Cli cli = runAndKill(doomed, "ck-spare", running -> {
                // the launcher says when the move is done; the spare's host then runs node 1
                Poll.until("the launcher's line on the move to the spare", running::outSoFar,
                        out -> out.contains("spare " + spare.address() + " takes node 1: moved ck-spare/1 from ") || running.done().isDone(),
                        120_000, 5);
                Poll.status(s -> s.out().lines().anyMatch(l -> l.matches("ck-spare\\s+1\\s+" + java.util.regex.Pattern.quote(spare.address())
                        + "\\s+.*RUNNING.*")), "--hosts", spare.address(), "--vm", "ck-spare", "--secret-file", secret.toString());
                Poll.until("two complete checkpoints on the spare", () -> CheckpointStore.epochs(onSpare),
                        e -> e.size() >= 2 && e.stream().allMatch(x -> CheckpointStore.isComplete(onSpare, x)), 120_000, 5);
            }, "--spare", spare.address());
            assertTrue(cli.out().contains("spare " + spare.address() + " takes node 1: moved ck-spare/1 from "), cli.toString());
            assertTrue(cli.out().contains("checkpoints: every 10 global barriers into checkpoints-ck-spare in each host's private work"
                    + " directory (host-PID), each node's file also copied to its buddy on another host (0->1, 1->0)"), cli.out());
            assertTrue(cli.out().contains("first complete checkpoint at epoch 10: " + checkpoints(a, "ck-spare") + "/epoch-10 on host "
                    + a.address()), cli.out());
            List<Long> last = CheckpointStore.epochs(onSpare);
            assertEquals(2, last.size(), last.toString());
            assertHolds(onA, last, List.of(CheckpointStore.nodeFile(0), CheckpointStore.buddyFile(1)),
                    List.of(CheckpointStore.nodeFile(1), CheckpointStore.buddyFile(0)));
            assertHolds(onSpare, last, List.of(CheckpointStore.nodeFile(1), CheckpointStore.buddyFile(0)),
                    List.of(CheckpointStore.nodeFile(0), CheckpointStore.buddyFile(1)));
            // A copy is the node's file, byte for byte.
            Path newest = CheckpointStore.epochDir(onA, last.get(0));
            assertTrue(java.util.Arrays.equals(Files.readAllBytes(newest.resolve(CheckpointStore.nodeFile(0))),
                    Files.readAllBytes(CheckpointStore.epochDir(onSpare, last.get(0)).resolve(CheckpointStore.buddyFile(0)))));
        }
    }

    /** A wait of the test's, on the running command, before it lets the held job end. */
    interface Wait {
        void await(Cli.Running running) throws Exception;
    }

    /**
     * Runs the held relaxation (40 iterations, checkpoints every 10) on the first host and
     * {@code doomed}, kills {@code doomed} by PID (SIGKILL; its node's JVM ends with it) once the
     * second checkpoint is complete and the launcher printed that it heard of the first (it
     * restarts from one it heard of), then (after {@code beforeTheEnd}, if any) lets the job end, and
     * checks that the run ends {@code result: OK} with the uninterrupted run's result.
     */
    private static Cli runAndKill(HostProcess doomed, String vm, Wait beforeTheEnd, String... options) throws Exception {
        String expected = reference(HELD, ITERATIONS);
        HostProcess a = hosts.get(0);
        Path fast = fastFile(vm);
        List<String> command = new ArrayList<>(List.of("run", "--hosts", a.address() + "," + doomed.address(), "--threads", "1", "--vm", vm,
                "--checkpoint-every", "10", "--failure-timeout-ms", "1500", "--secret-file", secret.toString(), "--timeout", "200"));
        command.addAll(List.of(options));
        command.addAll(List.of(HELD, ITERATIONS, fast.toString()));
        Cli.Running running = Cli.start(command.toArray(new String[0]));
        CompletableFuture<Cli> run = running.done();
        Path onA = checkpoints(a, vm);
        try {
            // the launcher restarts from a checkpoint it heard of: it says so of the first
            Poll.until("the checkpoint at epoch 20 in " + onA + ", the launcher told of one", () -> CheckpointStore.isComplete(onA, 20)
                    && running.outSoFar().contains("first complete checkpoint at epoch ") || run.isDone(), done -> done, 120_000, 2);
            assertFalse(run.isDone(), () -> "the run ended before its second checkpoint: " + run.join());
            doomed.close();   // SIGKILL by PID
            if (beforeTheEnd != null) beforeTheEnd.await(running);
        } finally {
            Files.writeString(fast, "fast");
        }
        Cli cli = run.get(200, TimeUnit.SECONDS);
        System.out.println("HostsCheckpointSystemTest: host " + doomed.address() + " of " + vm + " killed; " + cli.out().lines()
                .filter(l -> l.startsWith("recovered") || l.startsWith("restarting") || l.startsWith("every node") || l.startsWith("spare ")
                        || l.startsWith("node lost")).toList());
        assertEquals(0, cli.exitCode(), cli.toString());
        assertTrue(cli.out().contains("result: OK"), cli.toString());
        assertEquals(expected, result(cli));
        return cli;
    }

    @Test
    void aSpareThatIsAlsoInHostsIsRefusedNamingIt() {
        String host = hosts.get(1).address();
        Cli cli = Cli.execute("run", "--hosts", hosts.get(0).address() + "," + host, "--spare", host, "--checkpoint-every", "10",
                "--secret-file", secret.toString(), RELAX, "10");
        assertEquals(DsaCli.EXIT_USAGE, cli.exitCode(), cli.toString());
        assertTrue(cli.err().contains("--spare " + host + " is also in --hosts: a spare must be another host"), cli.toString());
    }

    /**
     * {@code --restart-from} a directory named with {@code --checkpoint-dir} (here one path both
     * hosts share, as on one machine): node 0 refuses the newest checkpoint, whose file of it is
     * damaged, takes the one before, and node 1 restarts from the same epoch.
     */
    @Test
    void restartFromADirectoryOnTheHostsTakesNodeZerosNewestIntactCheckpointWithTheSameResult() throws Exception {
        String expected = reference(RELAX, RESTARTED_ITERATIONS);
        String hostList = hosts.get(0).address() + "," + hosts.get(1).address();
        Path shared = dir.resolve("shared-checkpoints").toAbsolutePath();
        Cli first = Cli.execute("run", "--hosts", hostList, "--threads", "1", "--vm", "ck-from", "--checkpoint-every", "10",
                "--checkpoint-dir", shared.toString(), "--secret-file", secret.toString(), "--timeout", "120", RELAX, RESTARTED_ITERATIONS);
        assertEquals(0, first.exitCode(), first.toString());
        assertEquals(List.of(20L, 10L), CheckpointStore.epochs(shared));
        Path damaged = CheckpointStore.epochDir(shared, 20).resolve(CheckpointStore.nodeFile(0));
        byte[] bytes = Files.readAllBytes(damaged);
        bytes[CheckpointStore.HEADER_BYTES + 40] ^= 0x10;
        Files.write(damaged, bytes);

        Cli cli = Cli.execute("run", "--hosts", hostList, "--threads", "1", "--vm", "ck-from", "--restart-from", shared.toString(),
                "--secret-file", secret.toString(), "--timeout", "120", RELAX, RESTARTED_ITERATIONS);
        assertEquals(0, cli.exitCode(), cli.toString());
        assertTrue(cli.out().contains("restarting from " + shared + "/epoch-10, the newest complete checkpoint on node 0's host"),
                cli.toString());
        assertEquals(expected, result(cli));
    }

    @Test
    void restartFromOnHostsWithoutTheProgramIsRefusedSayingWhy() {
        Cli cli = Cli.execute("run", "--hosts", hosts.get(0).address() + "," + hosts.get(1).address(), "--restart-from",
                dir.toAbsolutePath().toString(), "--secret-file", secret.toString());
        assertEquals(DsaCli.EXIT_USAGE, cli.exitCode(), cli.toString());
        assertTrue(cli.err().contains("Missing required parameter: 'PROGRAM'"), cli.toString());   // the hosts' manifests are on their disks
    }

    @Test
    void checkpointsOnOneHostAreRefusedForWantOfABuddyOnAnother() {
        String host = hosts.get(0).address();
        Cli cli = Cli.execute("run", "--hosts", host, "--nodes", "2", "--checkpoint-every", "10", "--secret-file", secret.toString(),
                RELAX, "10");
        assertEquals(DsaCli.EXIT_USAGE, cli.exitCode(), cli.toString());
        assertTrue(cli.err().contains("--checkpoint-every with --hosts needs nodes on two hosts or more") && cli.err().contains(
                "all 2 node(s) run on " + host), cli.toString());
    }

    @Test
    void aRelativeCheckpointDirectoryOnHostsIsRefusedNamingIt() {
        Cli cli = Cli.execute("run", "--hosts", hosts.get(0).address() + "," + hosts.get(1).address(), "--checkpoint-every", "10",
                "--checkpoint-dir", "relative/ck", "--secret-file", secret.toString(), RELAX, "10");
        assertEquals(DsaCli.EXIT_USAGE, cli.exitCode(), cli.toString());
        assertTrue(cli.err().contains("--checkpoint-dir relative/ck with --hosts: an absolute path is needed"), cli.toString());
    }

    @Test
    void checkpointsOnHostsOfAProgramThatIsNotResumableAreRefusedNamingIt() {
        Cli cli = Cli.execute("run", "--hosts", hosts.get(0).address() + "," + hosts.get(1).address(), "--checkpoint-every", "5",
                "--secret-file", secret.toString(), "io.dsa.agent.faults.FaultPrograms$Churn");
        assertEquals(DsaCli.EXIT_USAGE, cli.exitCode(), cli.toString());
        assertTrue(cli.err().contains("program io.dsa.agent.faults.FaultPrograms$Churn is not resumable()"), cli.toString());
    }
}
