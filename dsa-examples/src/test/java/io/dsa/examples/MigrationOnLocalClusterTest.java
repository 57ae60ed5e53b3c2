package io.dsa.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.DsaProgram;
import io.dsa.agent.DsaCluster;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.MigrationReport;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link Jacobi} and {@link Lu} as resumable programs: two live migrations during one run, bitwise the same result. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class MigrationOnLocalClusterTest {

    private static DsaConfig config() {
        return DsaConfig.builder().nodes(3).threadsPerNode(2).build();
    }

    /**
     * Runs without migration, then with the planned moves (each at the first global barrier reaching its epoch;
     * planned before the run, so no timing can miss one); returns the migration reports.
     */
    private static List<MigrationReport> compare(Function<CompletableFuture<double[]>, DsaProgram> program, int[] moves,
            long[] atEpochs, String... args) throws Exception {
        CompletableFuture<double[]> expected = new CompletableFuture<>();
        try (DsaCluster cluster = DsaCluster.local(config())) {
            cluster.run(program.apply(expected), args);
        }
        CompletableFuture<double[]> actual = new CompletableFuture<>();
        List<MigrationReport> reports;
        try (DsaCluster cluster = DsaCluster.local(config())) {
            List<DsaCluster.PlannedMove> plan = new ArrayList<>();
            for (int i = 0; i < moves.length; i++) plan.add(new DsaCluster.PlannedMove(moves[i], "127.0.0.1", atEpochs[i]));
            // bounded below the test's timeout: a run that would hang ends with the job's first failure in the message
            reports = cluster.runWithMigrations(program.apply(actual), plan, java.time.Duration.ofSeconds(60), args).migrations();
        }
        double[] e = expected.get(1, TimeUnit.SECONDS);
        double[] a = actual.get(1, TimeUnit.SECONDS);
        assertEquals(e.length, a.length);
        for (int i = 0; i < e.length; i++) {
            if (Double.doubleToRawLongBits(e[i]) != Double.doubleToRawLongBits(a[i])) {
                throw new AssertionError("element " + i + " = " + a[i] + " after migrations " + reports + ", expected " + e[i]);
            }
        }
        System.out.println(reports);
        return reports;
    }

    @Test
    void jacobiWithTwoLiveMigrationsIsBitwiseIdentical() throws Exception {
        List<MigrationReport> r = compare(sink -> new Jacobi().captureResult(sink), new int[] {1, 2}, new long[] {100, 250},
                "96", "400", "8");
        assertEquals(100, r.get(0).epoch(), r.toString());
        assertEquals(250, r.get(1).epoch(), r.toString());
        assertTrue(r.get(0).dataBytes() > 0 && r.get(1).dataBytes() > 0, r.toString());
    }

    @Test
    void luWithTwoLiveMigrationsOfTheSameNodeIsBitwiseIdentical() throws Exception {
        // 12 x 12 blocks on 3 nodes (a node grid of one row: Lu's column schedule): 12 phases, epochs 1..13
        List<MigrationReport> r = compare(sink -> new Lu().captureResult(sink), new int[] {1, 1}, new long[] {4, 9},
                "192", "16");
        assertEquals(r.get(0).to(), r.get(1).from());
        assertEquals(4, r.get(0).epoch(), r.toString());
        assertEquals(9, r.get(1).epoch(), r.toString());
    }
}
