package io.dsa.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a host leaves behind: nothing once it stops (SIGTERM ends its jobs' JVMs and deletes its
 * work directory); when it is killed, its jobs' JVMs end on their own (their stdin pipe closes)
 * and the next host started on the same work directory removes its files. A launcher that times
 * out or is ended by a signal stops its VM with its stop tokens. The hosts whose job the tests end
 * (127.0.0.6 to .9) start in {@code @BeforeAll}, all at once: a host's spare JVM is then ready when
 * the job comes. No randomness.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class HostCleanupSystemTest {
    private static final String FILL = HostTestPrograms.Fill.class.getName();
    /** Hosts that log at INFO say when they stop a VM at its launcher's request. */
    private static final String INFO = "-Dorg.slf4j.simpleLogger.defaultLogLevel=info";

    @TempDir
    static Path dir;
    static Path secret;
    /** On 127.0.0.6 (stopped by SIGTERM), .7 (killed), .8 (its launcher times out), .9 (its launcher is ended), all at INFO. */
    static final List<HostProcess> hosts = new ArrayList<>();

    @BeforeAll
    static void makeSecretAndStartTheHosts() throws Exception {
        System.out.println("HostCleanupSystemTest: no randomness (each test ends a host or a launcher at a chosen step)");
        secret = HostProcess.newSecret(dir.resolve("secret"));
        HostProcess.startAll(6, 9, secret, List.of(INFO), hosts);
    }

    @AfterAll
    static void stopHosts() throws Exception {
        HostProcess.closeAll(hosts);
    }

    @Test
    void aStartingHostRemovesTheDirectoriesOfHostsThatNoLongerRun() throws Exception {
        Path work = HostProcess.workDir(secret);
        Files.createDirectories(work);
        Process gone = new ProcessBuilder(io.dsa.agent.host.JvmCommand.javaExecutable(), "-version").start();
        gone.waitFor(30, TimeUnit.SECONDS);
        Path dead = Files.createDirectories(work.resolve("host-" + gone.pid()));
        Files.writeString(dead.resolve("owner"), "pid " + gone.pid() + "\nstart 2001-01-01T00:00:00Z\n");
        Files.write(dead.resolve("job-1-leftover-0.jar"), new byte[] {'P', 'K'});
        ProcessHandle self = ProcessHandle.current();
        Path alive = Files.createDirectories(work.resolve("host-" + self.pid()));   // a running process that made it
        Files.writeString(alive.resolve("owner"), "pid " + self.pid() + "\nstart "
                + self.info().startInstant().map(Instant::toString).orElse("-") + "\n");
        try (HostProcess host = HostProcess.start("127.0.0.5", secret)) {
            assertFalse(Files.exists(dead), "the killed host's directory is removed before the host listens");
            assertTrue(Files.exists(alive.resolve("owner")), "a running process's directory stays");
            assertTrue(host.output().contains("removed " + dead + ": the work directory of host process " + gone.pid()
                    + ", which no longer runs (2 file(s))"), host.output());
        }
    }

    @Test
    void sigtermEndsTheJobsJvmsAndDeletesTheWorkDirectory() throws Exception {
        Path gate = dir.resolve("gate-term");   // never opened: the host's end ends the job
        try (HostProcess host = hosts.get(0)) {
            CompletableFuture<Cli> run = runOn(host, "term", gate);
            List<ProcessHandle> jvms = awaitJobRunning(host, "term");
            host.process().toHandle().destroy();   // SIGTERM
            assertTrue(host.process().waitFor(30, TimeUnit.SECONDS), host.output());
            assertTrue(host.output().contains("host " + host.address() + " stopped"), host.output());
            awaitEnded(jvms);
            assertFalse(Files.exists(host.hostDir(secret)), "the host deletes its work directory when it stops");
            Cli failed = run.get(150, TimeUnit.SECONDS);
            assertEquals(DsaCli.EXIT_FAILED, failed.exitCode(), failed.toString());
        }
    }

    @Test
    void aKilledHostsJobJvmsEndAndTheNextHostRemovesItsFiles() throws Exception {
        Path gate = dir.resolve("gate-kill");
        Path killedDir;
        try (HostProcess host = hosts.get(1)) {
            CompletableFuture<Cli> run = runOn(host, "killed", gate);
            List<ProcessHandle> jvms = awaitJobRunning(host, "killed");
            killedDir = host.hostDir(secret);
            host.process().destroyForcibly();   // SIGKILL: no clean-up of its own
            assertTrue(host.process().waitFor(30, TimeUnit.SECONDS));
            awaitEnded(jvms);   // their stdin pipe closed with the host
            assertTrue(Files.list(killedDir).anyMatch(p -> p.getFileName().toString().endsWith(".jar")), "the jar is left over");
            assertEquals(DsaCli.EXIT_FAILED, run.get(150, TimeUnit.SECONDS).exitCode());
        }
        try (HostProcess next = HostProcess.start("127.0.0.7", secret)) {
            assertFalse(Files.exists(killedDir), next.output());
        }
    }

    @Test
    void aRunThatTimesOutStopsItsVmWithItsToken() throws Exception {
        try (HostProcess host = hosts.get(2)) {
            // 5 s: it bounds the connection to the host and the submission too (3 s failed once under load average 9)
            Cli run = Cli.execute("run", "--hosts", host.address(), "--threads", "1", "--vm", "late", "--timeout", "5",
                    "--secret-file", secret.toString(), FILL, "10", "5", dir.resolve("gate-late").toString());
            assertEquals(DsaCli.EXIT_FAILED, run.exitCode(), run.toString());
            assertTrue(run.out().contains("result: FAILED: timed out after 5 s"), run.out());
            assertFalse(run.out().contains("could not stop"), run.out());
            host.awaitOutput("stopped 1 agent(s) of vm 'late' at its launcher's request", 120_000);
        }
    }

    @Test
    void aLauncherEndedBySigtermStopsItsVmWithItsToken() throws Exception {
        try (HostProcess host = hosts.get(3)) {
            List<String> command = new ArrayList<>(List.of(io.dsa.agent.host.JvmCommand.javaExecutable()));
            command.addAll(io.dsa.agent.host.TestJvms.options());   // a faster start, as for the hosts
            command.addAll(List.of("-cp", io.dsa.agent.host.JvmCommand.classPath(), DsaCli.class.getName(), "run", "--hosts",
                    host.address(), "--threads", "1", "--vm", "interrupted", "--secret-file", secret.toString(), FILL, "10", "5",
                    dir.resolve("gate-interrupted").toString()));
            Process launcher = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("launcher.log").toFile())
                    .start();
            try {
                Poll.status(s -> s.out().contains("RUNNING"), "--hosts", host.address(), "--vm", "interrupted",
                        "--secret-file", secret.toString());
                launcher.destroy();   // SIGTERM, as Ctrl-C's SIGINT: the shutdown hook stops the VM
                assertTrue(launcher.waitFor(30, TimeUnit.SECONDS));
                host.awaitOutput("stopped 1 agent(s) of vm 'interrupted' at its launcher's request", 120_000);
            } finally {
                launcher.destroyForcibly();
            }
        }
    }

    private static CompletableFuture<Cli> runOn(HostProcess host, String vm, Path gate) {
        return CompletableFuture.supplyAsync(() -> Cli.execute("run", "--hosts", host.address(), "--threads", "1", "--vm", vm,
                "--secret-file", secret.toString(), FILL, "10", "5", gate.toString()));
    }

    // Waits until the job runs, checks its jar is in the host's directory; returns the host's JVMs (the job's and a spare).
    private static List<ProcessHandle> awaitJobRunning(HostProcess host, String vm) throws InterruptedException {
        Poll.status(s -> s.out().contains("RUNNING"), "--hosts", host.address(), "--vm", vm, "--secret-file", secret.toString());
        List<ProcessHandle> jvms = host.process().toHandle().descendants().toList();
        assertFalse(jvms.isEmpty(), "the job runs in a JVM the host started");
        Poll.inDirectory("the job's jar in " + host.hostDir(secret), host.hostDir(secret), false, new CompletableFuture<>(), 10_000, () -> {
            try (var files = Files.list(host.hostDir(secret))) {
                return files.anyMatch(p -> p.getFileName().toString().contains("-" + vm + "-"));
            } catch (java.io.IOException e) {
                return false;
            }
        });
        return jvms;
    }

    private static void awaitEnded(List<ProcessHandle> jvms) throws Exception {
        try {
            CompletableFuture.allOf(jvms.stream().map(ProcessHandle::onExit).toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("the host's JVMs did not end within 120 s; still alive: "
                    + jvms.stream().filter(ProcessHandle::isAlive).map(ProcessHandle::pid).toList());
        }
    }
}
