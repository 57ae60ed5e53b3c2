package io.dsa.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.dsa.DsaNode;
import io.dsa.DsaProgram;
import io.dsa.DsaWorker;
import io.dsa.agent.DsaCluster;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.RunReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link CoreBinding} ({@code DsaConfig.bindCores}): how the cores are shared out, the CPU lists of
 * {@code /proc}, and a VM of two nodes whose workers and I/O threads end up bound to their shares
 * (where the machine is Linux with {@code taskset}).
 */
@Timeout(60)
class CoreBindingTest {
    @Test
    void nodesAtMostAsManyAsCoresGetContiguousShares() {
        List<Integer> four = List.of(0, 1, 2, 3);
        assertEquals(List.of(0, 1), CoreBinding.coresOf(0, 2, four));
        assertEquals(List.of(2, 3), CoreBinding.coresOf(1, 2, four));
        assertEquals(List.of(0), CoreBinding.coresOf(0, 3, four));
        assertEquals(List.of(1), CoreBinding.coresOf(1, 3, four));
        assertEquals(List.of(2, 3), CoreBinding.coresOf(2, 3, four));
        assertEquals(List.of(4, 6), CoreBinding.coresOf(1, 2, List.of(2, 3, 4, 6)), "the cores the JVM may use, not 0..c-1");
    }

    @Test
    void moreNodesThanCoresShareCoresRoundRobin() {
        List<Integer> two = List.of(0, 1);
        assertEquals(List.of(0), CoreBinding.coresOf(0, 4, two));
        assertEquals(List.of(1), CoreBinding.coresOf(1, 4, two));
        assertEquals(List.of(0), CoreBinding.coresOf(2, 4, two));
        assertEquals(List.of(1), CoreBinding.coresOf(3, 4, two));
    }

    @Test
    void badArgumentsAreNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CoreBinding.coresOf(2, 2, List.of(0, 1)));
        assertEquals("node 2 is not in [0, 2)", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> CoreBinding.coresOf(0, 1, List.of()));
    }

    @Test
    void cpuListsParseAsLinuxWritesThem() {
        assertEquals(List.of(0, 1, 2, 3, 8, 10, 11), CoreBinding.parseCpuList("0-3,8,10-11\n"));
        assertEquals(List.of(5), CoreBinding.parseCpuList(" 5"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CoreBinding.parseCpuList("0-x"));
        assertTrue(e.getMessage().contains("'0-x'"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> CoreBinding.parseCpuList("3-1"));
    }

    /** Each worker reports the cores it may run on. */
    static final class ReportCores implements DsaProgram {
        @Override
        public void setup(DsaNode node) {}

        @Override
        public void work(DsaWorker worker) {
            try {
                worker.node().report("node " + worker.nodeId() + " worker cores " + CoreBinding.allowedCores());
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }

    @Test
    void aVmsWorkersAndIoThreadsAreBoundToTheirNodesShares() throws IOException {
        assumeTrue(Files.isReadable(Path.of("/proc/thread-self/status")), "Linux /proc");
        assumeTrue(Stream.of("/usr/bin/taskset", "/bin/taskset").anyMatch(p -> Files.isExecutable(Path.of(p))), "taskset");
        List<Integer> allowed = CoreBinding.allowedCores();
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().vmName("bound").nodes(2).threadsPerNode(1).bindCores(true).build())) {
            RunReport report = cluster.run(new ReportCores());
            for (int node = 0; node < 2; node++) {
                String line = "node " + node + " worker cores " + CoreBinding.coresOf(node, 2, allowed);
                assertTrue(report.lines().stream().anyMatch(l -> l.contains(line)), "expected '" + line + "' in " + report.lines());
                assertEquals(CoreBinding.coresOf(node, 2, allowed), ioThreadCores("dsa-bound-" + node + "-io"), "node " + node + "'s I/O thread");
            }
        }
    }

    /** A node told its share of its machine (as `dsa run --hosts` tells each node) binds to that share, not to share `node id`. */
    @Test
    void aNodeBindsToTheShareItsLauncherGives() throws IOException {
        assumeTrue(Files.isReadable(Path.of("/proc/thread-self/status")), "Linux /proc");
        assumeTrue(Stream.of("/usr/bin/taskset", "/bin/taskset").anyMatch(p -> Files.isExecutable(Path.of(p))), "taskset");
        List<Integer> allowed = CoreBinding.allowedCores();
        assumeTrue(allowed.size() >= 2, "two cores, so that share 0 of 1 differs from node 1's share of 2");
        DsaConfig config = DsaConfig.builder().vmName("shared").nodes(2).threadsPerNode(1).bindCores(true).coreShare(0, 1).build();
        try (DsaCluster cluster = DsaCluster.local(config)) {
            RunReport report = cluster.run(new ReportCores());
            for (int node = 0; node < 2; node++) {
                String line = "node " + node + " worker cores " + allowed;
                assertTrue(report.lines().stream().anyMatch(l -> l.contains(line)), "expected '" + line + "' in " + report.lines());
                assertEquals(allowed, ioThreadCores("dsa-shared-" + node + "-io"), "node " + node + "'s I/O thread");
            }
        }
    }

    // The allowed cores of this JVM's thread whose name starts with prefix (its /proc comm, at most 15 characters).
    private static List<Integer> ioThreadCores(String prefix) throws IOException {
        String comm = prefix.length() > 15 ? prefix.substring(0, 15) : prefix;
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                if (Files.readString(t.resolve("comm")).strip().startsWith(comm)) return CoreBinding.allowedCores(t.resolve("status"));
            }
        }
        throw new AssertionError("no thread named " + prefix + "*");
    }
}
