package io.dsa.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.dsa.DsaProgram;
import io.dsa.agent.DsaAgent;
import io.dsa.agent.DsaCluster;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.RunReport;
import io.dsa.agent.checkpoint.CheckpointStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Jacobi}, {@link Lu} and {@link Cg} with checkpoints, in one JVM: the checkpointed run's result, and
 * the result of a new VM restarted from a checkpoint in the middle of the run (the newest one's
 * manifest removed, so the one before is taken), are bitwise the result of a run without.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CheckpointOnLocalClusterTest {
    private static final int NODES = 3;

    @TempDir
    Path dir;

    private void compare(Function<CompletableFuture<double[]>, DsaProgram> program, long every, long newest, long restartAt,
            String... args) throws Exception {
        compare(NODES, 2, program, every, newest, restartAt, args);
    }

    private void compare(int nodes, int threads, Function<CompletableFuture<double[]>, DsaProgram> program, long every, long newest,
            long restartAt, String... args) throws Exception {
        java.util.function.Supplier<DsaConfig.Builder> config = () -> DsaConfig.builder().nodes(nodes).threadsPerNode(threads).randomSecret();
        CompletableFuture<double[]> expected = new CompletableFuture<>();
        try (DsaCluster cluster = DsaCluster.local(config.get().build())) {
            cluster.run(program.apply(expected), args);
        }
        CompletableFuture<double[]> checkpointed = new CompletableFuture<>();
        try (DsaCluster cluster = DsaCluster.local(config.get().checkpoints(every, dir).build())) {
            cluster.run(program.apply(checkpointed), args);
        }
        assertBitwise(expected.get(1, TimeUnit.SECONDS), checkpointed.get(1, TimeUnit.SECONDS), "with checkpoints");
        assertEquals(List.of(newest, restartAt), CheckpointStore.epochs(dir));
        Files.delete(CheckpointStore.epochDir(dir, newest).resolve(CheckpointStore.MANIFEST));
        CheckpointStore.Checkpoint cp = CheckpointStore.newest(dir, refused -> { });
        assertEquals(restartAt, cp.manifest().epoch());

        CompletableFuture<double[]> restarted = new CompletableFuture<>();
        List<DsaAgent> agents = new ArrayList<>();
        try {
            DsaConfig base = config.get().build();
            agents.add(DsaAgent.restart(base.toBuilder().nodeId(0).build(), cp));
            for (int k = 1; k < nodes; k++) agents.add(DsaAgent.restart(base.toBuilder().nodeId(k).monitorAddress(agents.get(0).address()).build(), cp));
            List<CompletableFuture<RunReport>> runs = new ArrayList<>();
            for (DsaAgent a : agents) {
                DsaProgram p = program.apply(a.nodeId() == 0 ? restarted : new CompletableFuture<>());
                runs.add(CompletableFuture.supplyAsync(() -> a.resume(p, cp.manifest().args())));
            }
            for (CompletableFuture<RunReport> r : runs) r.get(60, TimeUnit.SECONDS);
        } finally {
            for (DsaAgent a : agents) a.close();
        }
        assertBitwise(expected.get(1, TimeUnit.SECONDS), restarted.get(1, TimeUnit.SECONDS), "restarted at epoch " + restartAt);
    }

    private static void assertBitwise(double[] e, double[] a, String what) {
        assertEquals(e.length, a.length);
        for (int i = 0; i < e.length; i++) {
            if (Double.doubleToRawLongBits(e[i]) != Double.doubleToRawLongBits(a[i])) {
                throw new AssertionError(what + ": element " + i + " = " + a[i] + ", expected " + e[i]);
            }
        }
    }

    @Test
    void jacobiRestartedFromAMidRunCheckpointIsBitwiseIdentical() throws Exception {
        // 401 global barriers then a collective: checkpoints at 100..400, the last two kept
        compare(sink -> new Jacobi().captureResult(sink), 100, 400, 300, "96", "400", "8");
    }

    /**
     * CG class S (16 outer iterations of 76 global rounds; plain barriers at rounds 3 s + 4 of each):
     * checkpoints due every 50 fall on plain barriers, the last two at epochs 1150 and 1201; the VM
     * restarted at 1150 (the last outer iteration, after step 1) ends with zeta and rnorm bitwise
     * the uninterrupted run's. In the last iteration, since the power iteration's later outer
     * iterations would damp an error made earlier below the last bit of zeta.
     */
    @Test
    void cgRestartedFromAMidRunCheckpointIsBitwiseIdentical() throws Exception {
        compare(2, 2, sink -> new Cg().captureResult(sink), 50, 1201, 1150, "S");
    }

    @Test
    void luRestartedFromAMidRunCheckpointIsBitwiseIdentical() throws Exception {
        // 12 x 12 blocks on 3 nodes (Lu's column schedule): 12 phases, epochs 1..13: checkpoints at 4, 8, 12
        compare(sink -> new Lu().captureResult(sink), 4, 12, 8, "192", "16");
    }
}
