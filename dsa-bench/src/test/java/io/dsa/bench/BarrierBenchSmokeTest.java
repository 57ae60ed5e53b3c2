package io.dsa.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.BarrierKind;
import io.dsa.agent.ProxyMode;
import io.dsa.agent.WaitStrategy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Runs {@code BarrierBench --smoke} (two tiny process-per-node VMs) and checks its outputs. */
class BarrierBenchSmokeTest {
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void smokeRunWritesPlausibleCsvTableAndPlot(@TempDir Path out) throws Exception {
        Path mpiSrc = Path.of("src/main/c/mpi_barrier.c").toAbsolutePath();
        boolean mpi = BarrierBench.onPath("mpicc") && BarrierBench.onPath("mpirun") && Files.isRegularFile(mpiSrc);
        BarrierBench bench = new BarrierBench();
        bench.parse(mpi ? new String[] {"--smoke", "--waits", "spin", "--out", out.toString(), "--mpi-src", mpiSrc.toString()}
                        : new String[] {"--smoke", "--waits", "spin", "--out", out.toString(), "--no-mpi"});
        bench.run();

        List<String> csv = Files.readAllLines(out.resolve("barrier.csv"));
        assertEquals("op,kind,proxy,wait,nodes,threads,median_us,p90_us,mpi_us,mpi_workers_us,load", csv.get(0));
        assertEquals(5, csv.size(), "header and two configurations, each timing the barrier and the allReduce");
        for (String line : csv.subList(1, csv.size())) {
            String[] f = line.split(",", -1);
            assertEquals(line.startsWith("barrier,") ? "barrier" : "allreduce", f[0], line);
            assertEquals("SPIN", f[3], "the child nodes checked they wait by SPIN: " + line);
            double median = Double.parseDouble(f[6]), p90 = Double.parseDouble(f[7]);
            assertTrue(median > 0 && median < 1_000_000, "median µs plausible: " + line);
            assertTrue(p90 >= median, "p90 >= median: " + line);
            if (mpi && Integer.parseInt(f[4]) > 1) assertTrue(Double.parseDouble(f[8]) > 0, "MPI peer measured: " + line);
        }
        assertEquals(2, csv.stream().filter(l -> l.startsWith("allreduce,")).count(), String.join("\n", csv));
        assertTrue(Files.readString(out.resolve("barrier.md")).contains("| op | kind | proxy |"));
        assertTrue(Files.size(out.resolve("barrier.png")) > 1000);
    }

    @Test
    @Timeout(10)
    void eachOperationsTimingsAreReadFromItsOwnLinesAndAMissingOneIsNamed() {
        List<String> lines = List.of("node 0: barrier rep 0 1500.0", "node 0: allreduce rep 0 2500.5", "node 0: barrier rep 1 1700.0",
                "some other line");
        var byOp = BarrierBench.timings(lines, List.of("barrier", "allreduce"), "TREE 2x2");
        assertArrayEquals(new double[] {1500.0, 1700.0}, byOp.get("barrier"));
        assertArrayEquals(new double[] {2500.5}, byOp.get("allreduce"));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> BarrierBench.timings(lines.subList(0, 1), List.of("barrier", "allreduce"), "TREE 2x2"));
        assertTrue(e.getMessage().contains("no allreduce timings reported for TREE 2x2"), e.getMessage());
    }

    @Test
    @Timeout(10)
    void anUnknownOperationIsRefusedNamingTheValidOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new BarrierBench().parse(new String[] {"--ops", "barrier,broadcast"}));
        assertTrue(e.getMessage().contains("--ops broadcast: use barrier, allreduce or both"), e.getMessage());
    }

    @Test
    @Timeout(10)
    void aRowWhoseNodesRanAnotherKindOrWaitIsRejected(@TempDir Path out) throws Exception {
        Path log = out.resolve("nodes.log");
        String earlier = "node 1 runs the TREE barrier with the FLOAT proxy, waiting by PARK (fanout 4)\n";
        Files.writeString(log, earlier + "node 1 runs the KARY barrier with the FLOAT proxy, waiting by PARK (fanout 4)\n"
                + "node 2 runs the TREE barrier with the FLOAT proxy, waiting by PARK (fanout 4)\n");
        // only the part of the log written by this row counts: node 1's TREE line is from an earlier row
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> BarrierBench.verifyKind(log, earlier.length(), BarrierKind.TREE, ProxyMode.FLOAT, WaitStrategy.PARK, 3));
        assertTrue(e.getMessage().contains("node 1"), e.getMessage());
        BarrierBench.verifyKind(log, earlier.length(), BarrierKind.KARY, ProxyMode.FLOAT, WaitStrategy.PARK, 2);
        assertThrows(IllegalStateException.class,
                () -> BarrierBench.verifyKind(log, earlier.length(), BarrierKind.KARY, ProxyMode.FLOAT, WaitStrategy.SPIN, 2),
                "a node that waits by another strategy");
    }
}
