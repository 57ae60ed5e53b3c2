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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A clone promoted to the node it copies (docs/failures.md, "Clone promotion"): {@code dsa host}
 * processes on 127.0.0.2 (node 0), 127.0.0.4 (node 1, killed) and 127.0.0.3 (a clone's host, not
 * one of the VM's {@code --hosts}); the held relaxation of {@link HostTestPrograms.Relax} with
 * checkpoints every 10 global barriers. Node 1 is cloned to 127.0.0.3 (clone 2) and to 127.0.0.2
 * (clone 3) with {@code dsa clone}; once the launcher says both keep a checkpoint of node 1 in
 * memory, node 1's host is killed by PID. Node 1 and its buddy (node 0's host keeps its file's
 * copy) are not both lost, but a clone is preferred: the restart starts node 1 in clone 2's JVM
 * from its copy, clone 3 is stopped with the lost VM, and the run ends with the uninterrupted
 * run's result. No randomness: the kill comes after a chosen event.
 *
 * <p>The second test takes the promotion's fallback: node 1 of a VM on 127.0.0.2 and 127.0.0.5 is
 * cloned to 127.0.0.2; once the clone is current, its JVM is stopped (SIGSTOP, so that no checkpoint
 * can leave it out: node 0 waits for its acknowledgement), node 1's host is killed, and the clone's
 * JVM is killed (SIGKILL), each by PID. The launcher still takes the clone for current, its
 * promotion fails, and node 1 restarts from its file's copy on node 0's host instead, with the same
 * result.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ClonePromotionSystemTest {
    private static final String HELD = HostTestPrograms.Relax.class.getName();
    private static final String ITERATIONS = "40";

    @TempDir
    static Path dir;
    static Path secret;
    /**
     * Node 0's host, the first clone's host, node 1's host (killed) and the second test's node 1's host (killed),
     * started at once so their spare JVMs are ready.
     */
    static final List<HostProcess> hosts = new ArrayList<>();
    /** The in-process run's result line, run while the hosts start. */
    static String reference;

    @BeforeAll
    static void startHostsAndRunTheReference() throws Exception {
        System.out.println("ClonePromotionSystemTest: no randomness (the kill comes once the clone is current)");
        secret = HostProcess.newSecret(dir.resolve("secret"));
        CompletableFuture<Cli> run = CompletableFuture.supplyAsync(() -> {
            try {
                Path fastReference = Files.writeString(dir.resolve("fast-reference"), "fast");
                return Cli.execute("run", "--in-process", "--nodes", "2", "--threads", "1", HELD, ITERATIONS, fastReference.toString());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        HostProcess.startAll(2, 5, secret, hosts);
        Cli cli = run.get(120, TimeUnit.SECONDS);
        assertEquals(0, cli.exitCode(), cli.toString());
        reference = result(cli);
    }

    @AfterAll
    static void stopHosts() throws Exception {
        HostProcess.closeAll(hosts);
    }

    private static String result(Cli cli) {
        return cli.out().lines().filter(l -> l.startsWith("node 0: relax ")).findFirst().orElseThrow(() -> new AssertionError(cli));
    }

    /**
     * Starts the held relaxation as VM {@code vm} on {@code vmHosts} and waits until its first checkpoint is complete
     * (so both nodes run), from the launcher's output: asking the hosts' status instead, a round of connections every
     * 100 ms, took CPU from the JVMs starting. The fast file ends the run.
     */
    private static Cli.Running startHeld(String vm, String vmHosts, Path fast) throws Exception {
        Cli.Running running = Cli.start("run", "--hosts", vmHosts, "--threads", "1", "--vm", vm, "--checkpoint-every", "10",
                "--failure-timeout-ms", "1500", "--secret-file", secret.toString(), "--timeout", "200", HELD, ITERATIONS, fast.toString());
        try {
            Poll.until("the launcher's line on the first complete checkpoint", running::outSoFar,
                    out -> out.contains("first complete checkpoint at epoch ") || running.done().isDone(), 120_000, 2);
            assertFalse(running.done().isDone(), () -> "the run ended before its first checkpoint: " + running.done().join());
            return running;
        } catch (Exception | AssertionError e) {
            Files.writeString(fast, "fast");
            throw e;
        }
    }

    /** {@code dsa clone} of node 1 of {@code vm} to {@code to}; asserts that it succeeded. */
    private static Cli cloneNode1(String vm, String vmHosts, HostProcess to) {
        Cli clone = Cli.execute("clone", "--vm", vm, "--node", "1", "--hosts", vmHosts, "--to", to.address(), "--secret-file",
                secret.toString());
        assertEquals(0, clone.exitCode(), clone.toString());
        return clone;
    }

    /** Waits until the launcher said of each clone ({@code "clone C of node 1 on host H"}) that it keeps a checkpoint. */
    private static void awaitCurrent(Cli.Running running, String... clones) throws InterruptedException {
        Poll.until("the launcher's line that each clone is current", running::outSoFar, out -> running.done().isDone()
                || java.util.Arrays.stream(clones).allMatch(c -> out.contains(c + " keeps node 1's checkpoint of epoch ")), 120_000, 2);
        assertFalse(running.done().isDone(), () -> "the run ended before the clones were current: " + running.done().join());
    }

    /**
     * Node 1 ended DONE on {@code node1Host}, and no clone and no running node of {@code vm} is left on {@code hosts} moments
     * after the run ended (a host reports a node's outcome before it lists the node as ended).
     */
    private static void assertNothingLeftButNode1Done(String vm, String hosts, HostProcess node1Host) throws InterruptedException {
        Cli status = Poll.until("no clone and no running node of the VM", () -> Cli.execute("status", "--hosts", hosts, "--vm", vm,
                "--secret-file", secret.toString()),
                s -> s.out().lines().noneMatch(l -> l.startsWith(vm + " ") && (l.contains(" CLONE ") || l.contains(" RUNNING "))),
                10_000, 100);
        assertTrue(Pattern.compile(vm + "\\s+1\\s+" + Pattern.quote(node1Host.address()) + "\\s+-\\s+DONE").matcher(status.out()).find(),
                status.out());
    }

    /**
     * Waits for the launcher's end, prints its recovery lines, and checks that it ended well with the uninterrupted run's
     * result, having stopped the lost VM everywhere.
     */
    private static Cli endedWithTheReference(Cli.Running running) throws Exception {
        Cli cli = running.done().get(200, TimeUnit.SECONDS);
        System.out.println("ClonePromotionSystemTest: " + cli.out().lines().filter(l -> l.startsWith("clone ") || l.startsWith("restarting")
                || l.startsWith("the promotion") || l.startsWith("recovered") || l.startsWith("node lost")).toList());
        assertEquals(0, cli.exitCode(), cli.toString());
        assertEquals(reference, result(cli));
        // a node of the lost VM that ended on its own before the stop reached its host is no wrong token
        assertFalse(cli.out().contains("warning: could not stop"), cli.toString());
        return cli;
    }

    @Test
    void aCloneThatKeepsTheLostNodesCheckpointTakesItsPlaceWithTheSameResult() throws Exception {
        HostProcess a = hosts.get(0);
        HostProcess c = hosts.get(1);
        Path fast = dir.resolve("fast-promote");
        try (HostProcess doomed = hosts.get(2)) {
            String vmHosts = a.address() + "," + doomed.address();
            Cli.Running running = startHeld("promote", vmHosts, fast);
            try {
                // two clones of node 1: the first is promoted, the second (on node 0's host) is stopped with the VM; node 0 hands
                // out their ids, so the second command need not name the first clone's host
                for (HostProcess to : List.of(c, a)) {
                    Cli clone = cloneNode1("promote", vmHosts, to);
                    assertTrue(clone.out().startsWith("cloned promote/1 from " + doomed.address() + " to " + to.address() + " as promote/"
                            + (to == c ? 2 : 3)), clone.out());
                }
                awaitCurrent(running, "clone 2 of node 1 on host " + c.address(), "clone 3 of node 1 on host " + a.address());
                doomed.close();   // SIGKILL by PID: node 1's JVM ends with it
            } finally {
                Files.writeString(fast, "fast");
            }
            Cli cli = endedWithTheReference(running);
            assertTrue(cli.out().contains("clone 2 of node 1 on host " + c.address() + " takes node 1's place: it keeps node 1's"
                    + " checkpoint of epoch "), cli.toString());
            assertTrue(cli.out().contains(", restart 1 of at most 3: node 0 on " + a.address() + ", node 1 on " + c.address()), cli.toString());
            assertTrue(cli.out().contains("recovered: the VM formed again and resumes at epoch "), cli.toString());
            // clone 2 became node 1 and ended with the job, clone 3 was stopped with the lost VM (it would wait 60 s to be
            // promoted otherwise)
            assertNothingLeftButNode1Done("promote", a.address() + "," + c.address(), c);
        }
    }

    @Test
    void aCloneWhosePromotionFailsLeavesTheRestartToTheCheckpointFiles() throws Exception {
        HostProcess a = hosts.get(0);
        Path fast = dir.resolve("fast-fallback");
        try (HostProcess doomed = hosts.get(3)) {
            String vmHosts = a.address() + "," + doomed.address();
            Cli.Running running = startHeld("fallback", vmHosts, fast);
            try {
                cloneNode1("fallback", vmHosts, a);
                awaitCurrent(running, "clone 2 of node 1 on host " + a.address());
                Cli status = Cli.execute("status", "--hosts", a.address(), "--vm", "fallback", "--secret-file", secret.toString());
                Matcher row = Pattern.compile("(?m)^fallback\\s+2\\s+\\S+\\s+\\S+:(\\d+)\\s+CLONE\\b").matcher(status.out());
                assertTrue(row.find(), status.out());
                long clonePid = ListeningProcess.pid(Integer.parseInt(row.group(1)), a.process().toHandle());
                ListeningProcess.signal("STOP", clonePid);   // no checkpoint completes without it now: it stays listed as current
                doomed.close();                              // SIGKILL by PID: node 1's JVM ends with it
                ListeningProcess.signal("KILL", clonePid);  // its promotion will fail
            } finally {
                Files.writeString(fast, "fast");
            }
            Cli cli = endedWithTheReference(running);
            assertTrue(cli.out().contains("clone 2 of node 1 on host " + a.address() + " takes node 1's place"), cli.toString());
            assertTrue(cli.out().contains("the promotion failed ("), cli.toString());
            assertTrue(cli.out().contains("): the nodes restart from their checkpoint files instead"), cli.toString());
            assertTrue(cli.out().contains(" instead, still restart 1 of at most 3: node 0 on " + a.address() + ", node 1 on " + a.address()),
                    cli.toString());
            assertTrue(cli.out().contains("recovered: the VM formed again and resumes at epoch "), cli.toString());
            assertNothingLeftButNode1Done("fallback", a.address(), a);
        }
    }
}
