package io.dsa.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaException;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.RunReport;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** How {@code dsa run} starts children and keeps the secret off command lines; failures in-process. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RunCommandTest {

    @Test
    void childCommandRunsTheNodeCommandWithTheSecretOnItsStdin() {
        RunCommand run = new RunCommand();
        new CommandLine(run).setStopAtPositional(true).setCaseInsensitiveEnumValuesAllowed(true).parseArgs(
                "--nodes", "3", "--threads", "5", "--vm", "vm-1", "--timeout", "9", "--barrier", "kary", "--fanout", "3",
                "--wait", "spin", "--max-frame-bytes", "8192", "--transport-security", "mac", "--failure-timeout-ms", "1500",
                "idle-test", "a", "--b");
        assertEquals(8192, run.job.config().build().maxFrameBytes());
        assertEquals(1500, run.job.config().build().failureTimeoutMs());
        run.job.allNodesOnThisMachine(); // what a local multi-process run does: 3 nodes x (5 workers + 1 I/O thread)
        assertEquals(18, run.job.config().build().machineThreads());
        List<String> command = run.childCommand(2, "127.0.0.1:4567", TestPrograms.Idle.class, "/opt/my programs", 1234);
        assertTrue(command.get(0).endsWith(File.separator + "java"), command.toString());
        int cp = command.indexOf("-cp");
        assertTrue(cp > 0, command.toString());
        // the Java release's options (none before Java 22), then the build's dsa.childJvmOptions (a faster start for the tests' JVMs)
        List<String> release = io.dsa.agent.host.JvmCommand.releaseOptions();
        List<String> childOptions = io.dsa.agent.host.JvmCommand.childJvmOptions();
        assertEquals(release, command.subList(1, 1 + release.size()), command.toString());
        assertEquals(childOptions, command.subList(1 + release.size(), 1 + release.size() + childOptions.size()), command.toString());
        for (String entry : command.get(cp + 1).split(File.pathSeparator)) {
            assertTrue(Path.of(entry).isAbsolute(), entry);
        }
        assertTrue(command.get(cp + 1).endsWith(File.pathSeparator + "/opt/my programs"), command.get(cp + 1));
        List<String> tail = command.subList(cp + 2, command.size());
        assertEquals(List.of(DsaCli.class.getName(), "node", "--node", "2", "--nodes", "3", "--threads", "5",
                "--vm", "vm-1", "--barrier", "KARY", "--fanout", "3", "--proxy", "FLOAT", "--wait", "SPIN",
                "--machine-threads", "18", "--prefetch-window", "4", "--timeout", "9", "--max-frame-bytes", "8192", "--failure-timeout-ms", "1500",
                "--transport-security", "MAC", "--monitor", "127.0.0.1:4567", "--secret-stdin",
                "--job-start-ms", "1234", TestPrograms.Idle.class.getName(), "a", "--b"), tail);
        assertFalse(String.join(" ", command).contains("--secret "), command.toString());
        assertFalse(String.join(" ", command).contains("--secret-file"), command.toString());
    }

    @Test
    void barrierLanesAreOnByDefaultAndNoBarrierLanesReachesTheChildren() {
        assertOnByDefaultAndOffReachesTheChildren("--no-barrier-lanes", DsaConfig::barrierLanes);
    }

    @Test
    void sharedRingsAreOnByDefaultAndNoSharedRingsReachesTheChildren() {
        assertOnByDefaultAndOffReachesTheChildren("--no-shared-rings", DsaConfig::sharedRings);
    }

    @Test
    void returningReadsAreOnByDefaultAndNoReturningReadsReachesTheChildren() {
        assertOnByDefaultAndOffReachesTheChildren("--no-returning-reads", DsaConfig::returningReads);
    }

    @Test
    void hitCountsAreOnByDefaultAndNoHitCountsReachesTheChildren() {
        assertOnByDefaultAndOffReachesTheChildren("--no-hit-counts", DsaConfig::hitCounts);
    }

    @Test
    void bindCoresIsOffByDefaultAndReachesTheChildren() {
        RunCommand off = new RunCommand();
        new CommandLine(off).setStopAtPositional(true).parseArgs("--nodes", "2", "idle-test");
        assertFalse(off.job.config().build().bindCores(), "off by default");
        assertFalse(off.childCommand(1, "127.0.0.1:4567", TestPrograms.Idle.class, "", 0).contains("--bind-cores"));
        RunCommand on = new RunCommand();
        new CommandLine(on).setStopAtPositional(true).parseArgs("--nodes", "2", "--bind-cores", "idle-test");
        assertTrue(on.job.config().build().bindCores());
        List<String> child = on.childCommand(1, "127.0.0.1:4567", TestPrograms.Idle.class, "", 0);
        NodeCommand node = new NodeCommand();
        new CommandLine(node).setStopAtPositional(true).parseArgs(child.subList(child.indexOf("node") + 1, child.size()).toArray(new String[0]));
        assertTrue(node.job.config().build().bindCores(), "the child node binds too: " + child);
    }

    // A negatable option on by default: its --no- form turns it off in the launcher's config and in the child node's.
    private static void assertOnByDefaultAndOffReachesTheChildren(String off, java.util.function.Predicate<DsaConfig> option) {
        RunCommand on = new RunCommand();
        new CommandLine(on).setStopAtPositional(true).parseArgs("--nodes", "2", "idle-test");
        assertTrue(option.test(on.job.config().build()), "on by default");
        assertFalse(on.childCommand(1, "127.0.0.1:4567", TestPrograms.Idle.class, "", 0).contains(off));
        RunCommand offRun = new RunCommand();
        new CommandLine(offRun).setStopAtPositional(true).parseArgs("--nodes", "2", off, "idle-test");
        assertFalse(option.test(offRun.job.config().build()), off);
        List<String> child = offRun.childCommand(1, "127.0.0.1:4567", TestPrograms.Idle.class, "", 0);
        assertTrue(child.contains(off), child.toString());
        NodeCommand node = new NodeCommand();
        new CommandLine(node).setStopAtPositional(true).parseArgs(child.subList(child.indexOf("node") + 1, child.size()).toArray(new String[0]));
        assertFalse(option.test(node.job.config().build()), "the child node parses its command into a config with " + off);
    }

    @Test
    void machineThreadsGivenByTheUserAreKeptAndCheckedAgainstTheirRange() {
        RunCommand run = new RunCommand();
        new CommandLine(run).setStopAtPositional(true).parseArgs("--nodes", "4", "--machine-threads", "3", "idle-test");
        run.job.allNodesOnThisMachine();
        assertEquals(3, run.job.config().build().machineThreads());
        Cli cli = Cli.execute("run", "--machine-threads", "-1", TestPrograms.Idle.class.getName());
        assertEquals(2, cli.exitCode(), cli.toString());
        assertTrue(cli.err().contains("--machine-threads") && cli.err().contains("-1"), cli.toString());
    }

    @Test
    void jvmOptionsReachTheNodeProcessesAfterTheInheritedOnesAndBadOnesAreRefusedNamingThem() {
        RunCommand run = new RunCommand();
        new CommandLine(run).setStopAtPositional(true).parseArgs("--nodes", "2", "--jvm-options", " -Xmx1g  -XX:TieredStopAtLevel=1 ",
                "idle-test");
        run.checkJvmOptions();
        List<String> command = run.childCommand(1, "127.0.0.1:4567", TestPrograms.Idle.class, "", 0);
        int inherited = io.dsa.agent.host.JvmCommand.releaseOptions().size() + io.dsa.agent.host.JvmCommand.childJvmOptions().size();
        assertEquals(List.of("-Xmx1g", "-XX:TieredStopAtLevel=1"), command.subList(1 + inherited, 3 + inherited), command.toString());
        assertTrue(command.indexOf("-cp") > command.indexOf("-XX:TieredStopAtLevel=1"), command.toString());

        Cli bad = Cli.execute("run", "--nodes", "2", "--jvm-options", "-Xmx1g -cp /tmp", TestPrograms.Idle.class.getName());
        assertEquals(2, bad.exitCode(), bad.toString());
        assertTrue(bad.err().contains("--jvm-options: '-cp' in '-Xmx1g -cp /tmp' is not a JVM option"), bad.toString());
        Cli inProcess = Cli.execute("run", "--in-process", "--jvm-options", "-Xmx1g", TestPrograms.Idle.class.getName());
        assertEquals(2, inProcess.exitCode(), inProcess.toString());
        assertTrue(inProcess.err().contains("not with --in-process"), inProcess.toString());
    }

    @Test
    void anAotCacheIsTrainedByNodeOneThenUsedByEveryNodeAndTrainedAgainForAnotherClassPath(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        Path cacheDir = dir.resolve("aot");
        String jars = Files.writeString(dir.resolve("a.jar"), "a") + File.pathSeparator + Files.writeString(dir.resolve("b.jar"), "b");
        RunCommand run = aotRun(cacheDir);
        run.checkAotCache(AotCache.MIN_JAVA, "", jars);
        assertTrue(run.aot.training);
        Path cache = cacheDir.resolve(AotCache.NODE_CACHE);
        assertTrue(run.childCommand(1, "127.0.0.1:4567", TestPrograms.Idle.class, "", 0).contains("-XX:AOTCacheOutput=" + cache));
        assertFalse(String.join(" ", run.childCommand(2, "127.0.0.1:4567", TestPrograms.Idle.class, "", 0)).contains("AOTCache"));

        Files.write(cache, new byte[] {1});   // what node 1's JVM leaves when it ends
        RunCommand again = aotRun(cacheDir);
        again.checkAotCache(AotCache.MIN_JAVA, "", jars);
        assertFalse(again.aot.training);
        for (int node = 1; node <= 2; node++) {
            List<String> command = again.childCommand(node, "127.0.0.1:4567", TestPrograms.Idle.class, "", 0);
            assertTrue(command.contains("-XX:AOTCache=" + cache), command.toString());
            assertTrue(command.indexOf("-XX:AOTCache=" + cache) < command.indexOf("-cp"), command.toString());
        }

        // another --cp: the cache is not the one its JVMs would accept, so node 1 trains a new one
        Path programs = Files.writeString(dir.resolve("programs.jar"), "p");
        RunCommand otherPath = aotRun(cacheDir);
        otherPath.checkAotCache(AotCache.MIN_JAVA, programs.toString(), jars + File.pathSeparator + programs);
        assertTrue(otherPath.aot.training);
        assertFalse(Files.exists(cache));
        assertTrue(otherPath.childCommand(1, "127.0.0.1:4567", TestPrograms.Idle.class, programs.toString(), 0)
                .contains("-XX:AOTCacheOutput=" + cache));
    }

    @Test
    void beforeJava25TheCacheIsAClassDataArchiveTrainedByNodeOneThenUsedByEveryNode(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        Path cacheDir = dir.resolve("cds");
        String jars = Files.writeString(dir.resolve("a.jar"), "a").toString();
        RunCommand run = aotRun(cacheDir);
        run.checkAotCache(AotCache.MIN_JAVA - 1, "", jars);
        assertTrue(run.aot.training);
        Path archive = cacheDir.resolve(AotCache.NODE_ARCHIVE);
        List<String> trainer = run.childCommand(1, "127.0.0.1:4567", TestPrograms.Idle.class, "", 0);
        assertTrue(trainer.contains("-XX:ArchiveClassesAtExit=" + archive), trainer.toString());
        assertTrue(trainer.contains("-Xlog:cds*=error"), trainer.toString());
        assertFalse(String.join(" ", run.childCommand(2, "127.0.0.1:4567", TestPrograms.Idle.class, "", 0)).contains("Archive"));

        Files.write(archive, new byte[] {1});   // what node 1's JVM leaves when it ends
        RunCommand again = aotRun(cacheDir);
        again.checkAotCache(AotCache.MIN_JAVA - 1, "", jars);
        assertFalse(again.aot.training);
        for (int node = 1; node <= 2; node++) {
            List<String> command = again.childCommand(node, "127.0.0.1:4567", TestPrograms.Idle.class, "", 0);
            assertTrue(command.contains("-XX:SharedArchiveFile=" + archive), command.toString());
            assertTrue(command.indexOf("-XX:SharedArchiveFile=" + archive) < command.indexOf("-cp"), command.toString());
            assertFalse(String.join(" ", command).contains("AOTCache"), command.toString());
        }
        // a JVM of release 25 keeps its own kind of cache beside it: it trains one
        RunCommand newer = aotRun(cacheDir);
        newer.checkAotCache(AotCache.MIN_JAVA, "", jars);
        assertTrue(newer.aot.training);
        assertTrue(Files.exists(archive));
    }

    @Test
    void anAotCacheIsRefusedWithClassDirectoriesAndWithoutNodeProcessesNamingWhy(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        // the JVM's AOT cache and its class data archive take jars only: a directory of classes is refused, naming it
        Path classes = Files.createDirectories(dir.resolve("classes"));
        Files.writeString(classes.resolve("A.class"), "not really");
        for (int java : new int[] {AotCache.MIN_JAVA, 17}) {
            String dirMessage = org.junit.jupiter.api.Assertions.assertThrows(CommandLine.ParameterException.class,
                    () -> aotRun(dir.resolve("aot")).checkAotCache(java, classes.toString(),
                            Files.writeString(dir.resolve("a.jar"), "a") + File.pathSeparator + classes)).getMessage();
            assertTrue(dirMessage.contains("--aot-cache needs jars on the class path, and " + classes + " is a directory of classes (--cp)"),
                    dirMessage);
            assertTrue(dirMessage.contains(java >= AotCache.MIN_JAVA ? "the JVM's AOT cache does not take directories"
                    : "the JVM's class data archive (Java 17) does not take directories"), dirMessage);
        }
        Cli inProcess = Cli.execute("run", "--in-process", "--aot-cache", dir.toString(), TestPrograms.Idle.class.getName());
        assertEquals(2, inProcess.exitCode(), inProcess.toString());
        assertTrue(inProcess.err().contains("--aot-cache is for the node processes 'dsa run' starts on this machine, not with --in-process"),
                inProcess.toString());
    }

    private static RunCommand aotRun(Path cacheDir) {
        RunCommand run = new RunCommand();
        new CommandLine(run).setStopAtPositional(true).parseArgs("--nodes", "2", "--aot-cache", cacheDir.toString(), "idle-test");
        return run;
    }

    @Test
    void nodeZerosRunFailingJustAfterAChildsExitIsAFailureVerdictNotAnException() throws Exception {
        // the race seen in a bench run: the killed child's exit completed the first wait, node 0's run
        // failed before the launcher looked at it, and run.join() threw past the restart logic
        String lost = "job failed: lost node 1 at 127.0.0.1:4567 (it homed array 'u' partitions [2, 3] of 4): Connection reset by peer";
        CompletableFuture<RunReport> run = CompletableFuture.failedFuture(new DsaException(lost));
        RunCommand.Verdict verdict = RunCommand.failureAfterFirstEnd(run, CompletableFuture.completedFuture("node 1 (pid 5) ended with code 137"), 1000);
        assertEquals(lost, verdict.failure());
        assertTrue(Restarts.namesLostNode(verdict.failure()), "a restart may follow: " + verdict);
    }

    @Test
    void theLostNodeIsTheFirstOneAFailureNamesAsLost() {
        assertEquals(1, Restarts.lostNode("job failed: lost node 1 at 127.0.0.1:4567 (it homed ...): nothing heard from node 1"));
        assertEquals(2, Restarts.lostNode("job failed: node 1 lost node 2 at 127.0.0.1:4567: connection closed"));
        assertEquals(12, Restarts.lostNode("lost node 12 before it joined"));
        assertEquals(-1, Restarts.lostNode("job failed: the run timed out after 100 ms"));
        assertEquals(-1, Restarts.lostNode("node 2 (pid 9) ended with code 1"));
    }

    @Test
    void aChildsExitIsTheReasonWhenNodeZerosRunDoesNotFailWithABetterOne() throws Exception {
        RunCommand.Verdict verdict = RunCommand.failureAfterFirstEnd(new CompletableFuture<>(),
                CompletableFuture.completedFuture("node 2 (pid 9) ended with code 1"), 10);
        assertEquals("node 2 (pid 9) ended with code 1", verdict.failure());
        assertFalse(verdict.nodesKnow());
        assertEquals(null, RunCommand.failureAfterFirstEnd(CompletableFuture.completedFuture(null), new CompletableFuture<>(), 10));
    }

    @Test
    void aFailingJobInProcessExitsOneWithTheReason() throws Exception {
        Cli cli = Cli.execute("run", "--in-process", "--nodes", "2", "--threads", "2", "--timeout", "30",
                TestPrograms.Failing.class.getName());
        assertEquals(1, cli.exitCode(), cli.toString());
        assertTrue(cli.out().contains("result: FAILED: "), cli.toString());
        assertFalse(cli.out().contains("result: OK"), cli.toString());
    }

    @Test
    void aFailingJobOnOneNodeProcessExitsOne() throws Exception {
        Cli cli = Cli.execute("run", "--nodes", "1", "--threads", "2", "--timeout", "30",
                TestPrograms.Failing.class.getName());
        assertEquals(1, cli.exitCode(), cli.toString());
        assertTrue(cli.out().contains("result: FAILED: "), cli.toString());
    }
}
