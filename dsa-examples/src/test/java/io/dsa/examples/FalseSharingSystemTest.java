package io.dsa.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Four real agent processes run {@link FalseSharingWorkload}: a seeded random data-race-free
 * workload in which workers on different nodes write different elements of the same partitions,
 * compared element by element with a sequential oracle computed from the same seed. The seed is
 * printed; replay one with {@code -Ddsa.seed=N}. {@code dsa run} runs node 0 in this JVM and nodes
 * 1..3 as child JVMs (as {@link RunCommandSystemTest} does); after each test every node process
 * still alive is killed by its PID, and the test fails if there was one.
 */
@Timeout(value = 170, unit = TimeUnit.SECONDS)
class FalseSharingSystemTest {
    static final int PHASES = 6;

    @AfterEach
    void noNodeProcessOutlivesTheTest() throws Exception {
        List<ProcessHandle> alive = DsaCommand.liveNodeProcesses();
        for (ProcessHandle h : alive) {
            h.destroyForcibly();
            h.onExit().get(10, TimeUnit.SECONDS);
        }
        assertEquals(List.of(), alive, "node processes left alive (killed now)");
    }

    @Test
    void fourAgentProcessesMatchTheSequentialOracle() {
        long seed = Long.getLong("dsa.seed", System.nanoTime());
        System.out.println("FalseSharingSystemTest seed " + seed + " (replay with -Ddsa.seed=" + seed + ")");
        Set<Long> nodePids = ConcurrentHashMap.newKeySet();
        // records the child node processes while they run (they are gone when run returns)
        ScheduledExecutorService watcher = Executors.newSingleThreadScheduledExecutor();
        // a task that throws is never run again: a process ending while its handle is read must not stop the watch
        watcher.scheduleAtFixedRate(() -> {
            try {
                DsaCommand.liveNodeProcesses().forEach(h -> nodePids.add(h.pid()));
            } catch (RuntimeException e) {
                System.out.println("FalseSharingSystemTest: one look at the node processes failed: " + e);
            }
        }, 0, 100, TimeUnit.MILLISECONDS);
        DsaCommand dsa;
        try {
            dsa = DsaCommand.execute("run", "--nodes", "4", "--threads", "2", "--timeout", "120",
                    FalseSharingWorkload.class.getName(), Long.toString(seed), Integer.toString(PHASES));
        } finally {
            watcher.shutdownNow();
        }
        assertEquals(0, dsa.exitCode(), "seed " + seed + ":\n" + dsa);
        // node 0 (this JVM) prints the seed to System.out in setup; its verdict comes through dsa run's output
        assertTrue(dsa.out().contains("node 0: false-sharing workload seed " + seed + ": " + PHASES + " phases x 4 arrays verified"),
                dsa.toString());
        assertTrue(dsa.out().endsWith("result: OK\n"), dsa.toString());
        assertEquals(3, nodePids.size(), "child node processes seen: " + nodePids + "\n" + dsa);
    }

    /** The check can fail: a deliberately wrong oracle element is reported with its index, value and expected value. */
    @Test
    void aWrongOracleIsReportedWithTheFirstMismatch() {
        DsaCommand dsa = DsaCommand.execute("run", "--in-process", "--nodes", "2", "--threads", "2", "--timeout", "60",
                FalseSharingWorkload.class.getName(), "42", "2", "corrupt");
        assertEquals(1, dsa.exitCode(), dsa.toString());
        assertTrue(dsa.out().contains("result: FAILED: "), dsa.toString());
        assertTrue(dsa.out().matches("(?s).*false-sharing workload seed 42: phase 1, array 'fs.int1d': first mismatch at index 500 "
                + "\\(row 0, col 500\\): read -?[0-9]+, expected -?[0-9]+ .*"), dsa.toString());
    }
}
