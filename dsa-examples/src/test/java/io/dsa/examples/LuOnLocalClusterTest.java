package io.dsa.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.ArrayLayout;
import io.dsa.ArraySpec;
import io.dsa.Distribution;
import io.dsa.DsaException;
import io.dsa.ElementType;
import io.dsa.agent.DsaCluster;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.RunReport;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link Lu} on the real runtime at small sizes. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LuOnLocalClusterTest {
    private static final String VERIFIED =
            "node 0: lu %dx%d, blocks %dx%d BLOCK_CYCLIC: \\|\\|L\\*U - A\\|\\|/\\|\\|A\\|\\| = [0-9.e+-]+ \\(verified, < 1e-09\\), factorisation [0-9.]+ s";

    private static RunReport run(int nodes, int threads, Lu program, String... args) {
        try (DsaCluster cluster = DsaCluster.local(DsaConfig.builder().nodes(nodes).threadsPerNode(threads).build())) {
            return cluster.run(program, args);
        }
    }

    @Test
    void twoNodesTimesTwoThreads() {
        RunReport report = run(2, 2, new Lu(), "96", "16");
        assertEquals(1, report.lines().size(), report.lines().toString());
        assertTrue(report.lines().get(0).matches(String.format(VERIFIED, 96, 96, 16, 16)), report.lines().get(0));
    }

    @Test
    void fourNodesTimesOneThreadWithRaggedBlocks() {
        RunReport report = run(4, 1, new Lu(), "70", "8");
        assertTrue(report.lines().get(0).matches(String.format(VERIFIED, 70, 70, 8, 8)), report.lines().get(0));
    }

    /**
     * On 3 nodes (a node grid of one row) {@code lu} runs its column schedule; told to run the
     * three phases it must give the same factors bit for bit, ragged blocks included.
     */
    @Test
    void theColumnScheduleGivesTheFactorsOfTheThreePhases() throws Exception {
        for (String[] args : new String[][] {{"70", "8"}, {"96", "16"}}) {
            CompletableFuture<double[]> columns = new CompletableFuture<>();
            CompletableFuture<double[]> phases = new CompletableFuture<>();
            run(3, 2, new Lu().captureResult(columns), args[0], args[1]);
            run(3, 2, new Lu().captureResult(phases), args[0], args[1], "phases");
            double[] a = columns.get(1, TimeUnit.SECONDS);
            double[] b = phases.get(1, TimeUnit.SECONDS);
            for (int i = 0; i < a.length; i++) {
                assertEquals(Double.doubleToRawLongBits(b[i]), Double.doubleToRawLongBits(a[i]),
                        "n " + args[0] + ", blocks " + args[1] + ": element " + i + ": " + a[i] + " against " + b[i]);
            }
        }
    }

    @Test
    void columnsAreDealtToTheirHomesThreads() {
        ArrayLayout layout = ArrayLayout.of(ArraySpec.of("a", ElementType.DOUBLE, 70, 70, 8, 8, Distribution.BLOCK_CYCLIC), 2, 2);
        // 9 x 9 blocks on a 1 x 2 node grid: node 0 homes columns 0, 2, 4, 6, 8 and node 1 columns 1, 3, 5, 7
        assertArrayEquals(new int[] {0, 4, 8}, Lu.columnsOfThread(layout, 0, 0, 2));
        assertArrayEquals(new int[] {2, 6}, Lu.columnsOfThread(layout, 0, 1, 2));
        assertArrayEquals(new int[] {1, 5}, Lu.columnsOfThread(layout, 1, 0, 2));
        assertArrayEquals(new int[] {3, 7}, Lu.columnsOfThread(layout, 1, 1, 2));
    }

    @Test
    void aScheduleTheLayoutCannotRunIsRefusedNamingIt() {
        Lu lu = new Lu();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> lu.validate(List.of("64", "16", "columns"), 4, 1));
        assertTrue(e.getMessage().contains("4 nodes make a node grid of 2 rows"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> lu.validate(List.of("64", "16", "rows"), 2, 1));
        assertEquals("lu: schedule 'rows' is not one of [auto, columns, phases]", e.getMessage());
        lu.validate(List.of("64", "16", "columns"), 2, 2);
        lu.validate(List.of("64", "16", "phases"), 4, 1);
        e = assertThrows(IllegalArgumentException.class, () -> new Lu.Scoped().validate(List.of("64", "16", "phases"), 2, 1));
        assertTrue(e.getMessage().startsWith("lu-scoped: 3 arguments given, at most 2"), e.getMessage());
    }

    @Test
    void aWrongFactorFailsTheCheck() {
        DsaException e = assertThrows(DsaException.class, () -> run(2, 2, new Lu().corruptBeforeCheck(40, 7, 1e-3), "64", "16"));
        assertTrue(String.valueOf(e.getMessage()).contains("lu: (L*U)[40][7] = "), String.valueOf(e));
        assertTrue(e.getMessage().contains("expected A[40][7] = " + Lu.aAt(40, 7, 64)), e.getMessage());
    }

    @Test
    void kernelsFactorABlockExactly() {
        int n = 24;
        double[] a = new double[n * n];
        for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) a[i * n + j] = Lu.aAt(i, j, n);
        LuKernels.factor(a, n);
        assertTrue(Lu.check(a, n) < 1e-14);
    }
}
