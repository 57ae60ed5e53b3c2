package io.dsa.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.host.JvmCommand;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code dsa node --slurm}: SLURM's variables read as srun sets them, faked here. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class NodeCommandSlurmTest {
    @AfterEach
    void restoreTheEnvironment() { NodeCommand.environment = System::getenv; }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
        "cn[07-09,12],gpu1; cn07",
        "node1,node2; node1",
        "rack1-[3-4]; rack1-3",
        "single; single",
        "gpu[001-128]; gpu001"})
    void node0RunsOnTheFirstHostOfTheNodeList(String list, String first) {
        assertEquals(first, SlurmTask.firstHost(list));
    }

    @Test
    void tasksAreNodesAndTheirRankTheNodeId() {
        SlurmTask t = SlurmTask.from(Map.of("SLURM_PROCID", "3", "SLURM_NTASKS", "8", "SLURM_NODELIST", "cn[01-04]",
                "SLURMD_NODENAME", "cn02")::get);
        assertEquals(new SlurmTask(3, 8, "cn01", "cn02"), t);
    }

    /** Before: with --bind-cores under srun, task k bound to share k of every task of the step, not of those on its host. */
    @Test
    void aTasksShareOfItsHostIsItsLocalIdAmongTheTasksThere() {
        Map<String, String> base = Map.of("SLURM_PROCID", "5", "SLURM_NTASKS", "7", "SLURM_NODELIST", "cn[01-03]");
        java.util.HashMap<String, String> env = new java.util.HashMap<>(base);
        env.putAll(Map.of("SLURM_LOCALID", "1", "SLURM_NODEID", "2", "SLURM_STEP_TASKS_PER_NODE", "3(x2),1", "SLURM_TASKS_PER_NODE", "9"));
        assertThrows(IllegalArgumentException.class, () -> SlurmTask.from(env::get), "local id 1 of the third host's 1 task");
        env.put("SLURM_STEP_TASKS_PER_NODE", "2(x2),3");
        SlurmTask t = SlurmTask.from(env::get);
        assertEquals(java.util.List.of(1, 3), java.util.List.of(t.localId(), t.localTasks()));
        env.remove("SLURM_STEP_TASKS_PER_NODE");
        env.put("SLURM_TASKS_PER_NODE", "4,2,2");
        assertEquals(2, SlurmTask.from(env::get).localTasks(), "the allocation's tasks per node without the step's");
        assertEquals(new SlurmTask(5, 7, "cn01", null), SlurmTask.from(base::get), "no share where SLURM does not say");
        assertEquals(java.util.List.of(-1, -1), java.util.List.of(SlurmTask.from(base::get).localId(), SlurmTask.from(base::get).localTasks()));
        assertEquals(2, SlurmTask.tasksOnNode("T", "3,2(x4)", 4));
        assertEquals(3, SlurmTask.tasksOnNode("T", "3,2(x4)", 0));
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> SlurmTask.tasksOnNode("T", "2(3)", 0));
        assertEquals("T '2(3)' is not a list of tasks per node (at '2(3)')", bad.getMessage());
        IllegalArgumentException past = assertThrows(IllegalArgumentException.class, () -> SlurmTask.tasksOnNode("T", "2(x2)", 2));
        assertEquals("SLURM_NODEID 2 out of range [0, 2) of T '2(x2)'", past.getMessage());
    }

    @Test
    void missingOrBadVariablesAreNamed() {
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class, () -> SlurmTask.from(Map.<String, String>of()::get));
        assertEquals("SLURM_NTASKS is not set: run 'dsa node --slurm' under srun", none.getMessage());
        IllegalArgumentException rank = assertThrows(IllegalArgumentException.class,
                () -> SlurmTask.from(Map.of("SLURM_PROCID", "4", "SLURM_NTASKS", "4", "SLURM_NODELIST", "a")::get));
        assertEquals("SLURM_PROCID 4 out of range [0, 4) of SLURM_NTASKS", rank.getMessage());
        assertThrows(IllegalArgumentException.class, () -> SlurmTask.firstHost("cn[x-y]"));
        Cli cli = Cli.execute("node", "--slurm", "idle-test");
        assertEquals(2, cli.exitCode(), cli.toString());
        assertTrue(cli.err().startsWith("dsa: --slurm: SLURM_"), cli.toString());
    }

    @Test
    void twoTasksFormAVmAndRunTheJob(@TempDir Path dir) throws Exception {
        Path secret = dir.resolve("secret");
        assertEquals(0, Cli.execute("keygen", "--out", secret.toString()).exitCode());
        int port;
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress("127.0.0.1", 0));
            port = probe.getLocalPort();
        }
        Map<String, String> slurm = Map.of("SLURM_NTASKS", "2", "SLURM_NODELIST", "127.0.0.1", "SLURMD_NODENAME", "127.0.0.1");
        // rank 1 in a JVM of its own, with the variables in its real environment
        ProcessBuilder rank1 = new ProcessBuilder(JvmCommand.javaExecutable(), "-cp", JvmCommand.classPath(), DsaCli.class.getName(),
                "node", "--slurm", "--port", Integer.toString(port), "--threads", "1", "--secret-file", secret.toString(),
                TestPrograms.Checked.class.getName(), "3").redirectErrorStream(true);
        rank1.environment().putAll(slurm);
        rank1.environment().put("SLURM_PROCID", "1");
        // rank 0 here, with the variables faked
        java.util.HashMap<String, String> rank0 = new java.util.HashMap<>(slurm);
        rank0.put("SLURM_PROCID", "0");
        NodeCommand.environment = rank0::get;
        CompletableFuture<Cli> node0 = CompletableFuture.supplyAsync(() -> Cli.execute("node", "--slurm", "--port", Integer.toString(port),
                "--threads", "1", "--secret-file", secret.toString(), TestPrograms.Checked.class.getName(), "3"));
        Process p = rank1.start();
        try {
            Cli monitor = node0.get(60, TimeUnit.SECONDS);
            assertEquals(0, monitor.exitCode(), monitor.toString());
            assertTrue(monitor.out().contains("node 0 (monitor) listening on 127.0.0.1:" + port), monitor.toString());
            assertTrue(monitor.out().contains("VM startup: "), monitor.toString());
            assertTrue(monitor.out().endsWith("result: OK\n"), monitor.toString());
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "rank 1 exits after the job");
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), out);
            assertTrue(out.contains("] node 1: set up node 1"), "rank 1 is node 1: " + out);
        } finally {
            p.destroyForcibly();
            p.waitFor();
        }
    }
}
