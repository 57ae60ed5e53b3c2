package io.dsa.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.cli.DsaCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code dsa bench targets}: each target's figure read from experiment outputs written here (rows
 * as the experiments wrote them on 2026-11-30), the verdicts over several runs, and a smoke run
 * through the real command line.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TargetsCommandTest {
    private static TargetsCommand.Target target(String prefix) {
        return TargetsCommand.TARGETS.stream().filter(t -> t.name().startsWith(prefix)).findFirst()
                .orElseThrow(() -> new AssertionError("no target " + prefix));
    }

    private static double ratio(String prefix, Path dir) throws Exception {
        return target(prefix).measure().of(dir).ratio();
    }

    @Test
    void eachTargetsFigureIsTheRatioOfItsRunsRows(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("barrier.csv"), """
                op,kind,proxy,wait,nodes,threads,median_us,p90_us,mpi_us,mpi_workers_us,load
                barrier,TREE,FLOAT+lanes,PARK,4,2,266.18,504.26,50.34,173.29,3.25
                barrier,TREE,FLOAT+lanes,ADAPTIVE,4,2,134.36,156.58,50.34,173.29,3.29
                allreduce,TREE,FLOAT+lanes,ADAPTIVE,4,2,130.72,134.37,50.34,173.29,3.29
                """);
        assertEquals(134.36 / 50.34, ratio("global barrier", dir), 1e-9);
        assertEquals(130.72 / 50.34, ratio("one-value allReduce", dir), 1e-9);
        Files.writeString(dir.resolve("stream.csv"), """
                bytes,partitions,security,wait,dsa_one_gbps,dsa_window_gbps,dsa_region_gbps,dsa_sequential_gbps,netty_gbps,socket_gbps,mpi_tcp_gbps,mpi_shm_gbps,load
                8192,256,MAC,SPIN,0.0093,0.0342,0.1368,0.0866,0.0323,0.0984,0.4211,2.0388,5.04
                8192,256,MAC,PARK,0.0360,0.0690,0.0940,0.0630,0.0323,0.0984,0.4211,2.0388,5.04
                131072,256,MAC,PARK,0.883,1.787,1.770,1.528,0.490,1.244,1.659,6.930,4.1
                131072,256,ENCRYPT,PARK,0.831,1.370,2.387,1.790,0.490,1.244,1.659,6.930,4.1
                1048576,32,MAC,PARK,2.282,2.194,3.171,3.434,0.799,1.191,,,3.9
                """);
        assertEquals(2.387 / 1.659, ratio("streaming 128 KiB", dir), 1e-9, "the best way of any setting");
        assertEquals(0.0323 / 0.0360, ratio("8 KiB read miss, PARK", dir), 1e-9, "times: the inverse of the bandwidths");
        assertEquals(0.4211 / 0.0093, ratio("8 KiB read miss, SPIN", dir), 1e-9);
        TargetsCommand.Measure noMpi = target("streaming 1 MiB").measure().of(dir);
        assertTrue(Double.isNaN(noMpi.ratio()) && noMpi.detail().contains("MPI"), noMpi.toString());
        Files.writeString(dir.resolve("hits.csv"), """
                benchmark,ns_per_op,alloc_bytes_per_op
                plainRead,2.058,0.0001
                plainWrite,2.698,0.0001
                sharedRead,4.911,0.0001
                sharedWrite,9.064,0.001
                """);
        assertEquals(4.911 / 2.058, ratio("local read hit", dir), 1e-9);
        assertEquals(9.064 / 2.698, ratio("local write hit", dir), 1e-9);
        assertEquals(0.001, ratio("hit allocation", dir), 1e-12);
        Files.writeString(dir.resolve("lu.csv"), """
                kind,n,nodes,threads,partition,seconds,speedup,load
                seq,1024,1,1,64,0.143,1.000,2.9
                dsa-warm,1024,2,1,64,0.157,0.91,2.9
                dsa-warm,1024,2,1,128,0.116,1.71,2.9
                mpi,1024,2,1,64,0.050,2.86,2.9
                mpi,1024,2,1,128,0.081,1.77,2.9
                """);
        assertEquals(0.116 / 0.050, ratio("LU 1024", dir), 1e-9, "best DSA partition against best MPI block");
        Files.writeString(dir.resolve("cg.csv"), """
                class,kind,wait,nodes,threads,seconds,vs_sequential,load
                S,seq,,1,1,0.0582,1.000,1.54
                S,dsa,ADAPTIVE,2,1,1.4540,24.969,1.93
                S,dsa-warm,ADAPTIVE,2,1,0.3410,5.856,2.24
                S,dsa-warm,ADAPTIVE,4,2,1.0190,17.5,3.59
                """);
        assertEquals(0.341 / 0.0582, ratio("NPB CG S 2x1", dir), 1e-9);
        assertEquals(1.019 / 0.0582, ratio("NPB CG S 4x2", dir), 1e-9);
        Files.writeString(dir.resolve("scopes.csv"), """
                example,kind,nodes,threads,seconds,vs_sequential,load
                cg,seq,1,1,0.0364,1.000,2.55
                cg,scoped-job,2,1,0.0190,0.522,2.97
                cg,mpi,2,1,0.0387,1.062,2.97
                psrs,seq,1,1,0.0741,1.000,2.5
                psrs,scoped-job,2,1,0.0572,0.77,2.5
                """);
        assertEquals(0.019 / 0.0364, ratio("NPB CG S scoped 2x1, one job / sequential", dir), 1e-9);
        assertEquals(0.019 / 0.0387, ratio("NPB CG S scoped 2x1, one job / MPI", dir), 1e-9);
        TargetsCommand.Measure noKernels = target("owner-computes LU").measure().of(dir);
        assertTrue(Double.isNaN(noKernels.ratio()) && noKernels.detail().contains("scopes-kernels.csv"), noKernels.toString());
        Files.writeString(dir.resolve("scopes-kernels.csv"), """
                kernel,scoped_us,scoped_error_us,plain_us,plain_error_us,ratio
                jacobiSweep,262.437,3.337,259.871,10.474,1.010
                luUpdate,88.904,1.035,85.491,2.018,1.040
                """);
        assertEquals(262.437 / 259.871, ratio("owner-computes Jacobi", dir), 1e-9);
        assertEquals(88.904 / 85.491, ratio("owner-computes LU", dir), 1e-9);
        TargetsCommand.Measure psrsMpi = target("FFT 1024 scoped").measure().of(dir);
        assertTrue(Double.isNaN(psrsMpi.ratio()) && psrsMpi.detail().contains("no fft scoped-job row"), psrsMpi.toString());
    }

    @Test
    void theVerdictIsTheMediansAndNeverMetWithoutFigures() {
        TargetsCommand.Target twoX = target("NPB CG S 2x1");
        TargetsCommand.Verdict v = TargetsCommand.verdict(twoX, List.of(new TargetsCommand.Measure(1.5, ""),
                new TargetsCommand.Measure(2.5, ""), new TargetsCommand.Measure(1.9, "")));
        assertEquals(1.9, v.median(), 1e-12);
        assertEquals("met by the median of 3 (2 of 3 within)", v.text());
        TargetsCommand.Verdict over = TargetsCommand.verdict(twoX, List.of(new TargetsCommand.Measure(2.1, ""),
                TargetsCommand.Measure.none("x"), new TargetsCommand.Measure(3, "")));
        assertEquals("**not met** (median of 2 measured of 3; 0 of 2 within)", over.text());
        TargetsCommand.Verdict none = TargetsCommand.verdict(twoX, List.of(TargetsCommand.Measure.none("no MPI + C row (mpicc missing)")));
        assertTrue(Double.isNaN(none.median()) && none.text().equals("not measured: no MPI + C row (mpicc missing)"), none.toString());
        TargetsCommand.Target faster = target("PSRS 2^20");
        assertEquals("**not met** (median of 1; 0 of 1 within)", TargetsCommand.verdict(faster, List.of(new TargetsCommand.Measure(1.0, ""))).text(),
                "faster than sequential: a tie is not faster");
        TargetsCommand.Target share = target("streaming 1 MiB");
        assertTrue(TargetsCommand.verdict(share, List.of(new TargetsCommand.Measure(0.87, ""))).text().startsWith("met"), "at least half");
        assertTrue(TargetsCommand.verdict(share, List.of(new TargetsCommand.Measure(0.22, ""))).text().startsWith("**not met**"));
    }

    /** Before: one experiment that failed ended the whole command, losing the runs before it. */
    @Test
    void anExperimentThatFailsLeavesItsTargetsUnmeasuredAndTheCommandGoesOn(@TempDir Path out) throws Exception {
        Files.createDirectories(out.resolve("run-1"));
        Files.writeString(out.resolve("run-1/lu"), "a file where the experiment's directory goes");
        CommandLine cli = DsaCli.commandLine();
        StringWriter err = new StringWriter();
        cli.setErr(new PrintWriter(err, true));
        assertEquals(0, cli.execute("bench", "targets", "--smoke", "--runs", "1", "--only", "lu", "--out", out.toString()), err.toString());
        String md = Files.readString(out.resolve("targets.md"));
        assertTrue(md.contains("| LU 1024 2x1, best partition, warm / MPI + C np=2 (12) | <= 1.2 | – | – | not measured: the experiment failed: "),
                md);
        assertTrue(Files.size(out.resolve("targets.png")) > 1000, "a chart with nothing measured in it");
    }

    @Test
    void aSmokeRunWritesEveryTargetOfItsGroups(@TempDir Path out) throws Exception {
        CommandLine cli = DsaCli.commandLine();
        StringWriter err = new StringWriter();
        cli.setErr(new PrintWriter(err, true));
        String c = Path.of("src/main/c").toAbsolutePath().toString();
        assertEquals(0, cli.execute("bench", "targets", "--smoke", "--runs", "1", "--only", "hits,lu", "--c-src", c, "--out", out.toString()),
                err.toString());
        List<String> rows = Files.readAllLines(out.resolve("targets.csv"));
        assertEquals("target,issue,bound,run,ratio,detail", rows.get(0));
        long expected = TargetsCommand.TARGETS.stream().filter(t -> t.group() == TargetsCommand.Group.hits
                || t.group() == TargetsCommand.Group.lu).count();
        assertEquals(expected, rows.size() - 1, String.join("\n", rows));
        for (String r : rows.subList(1, rows.size())) {
            boolean lu = r.startsWith("\"LU");
            boolean mpi = BarrierBench.onPath("mpicc") && BarrierBench.onPath("mpirun");
            if (!lu || mpi) assertTrue(r.matches("\"[^\"]+\",1[23],\"[^\"]+\",1,[0-9.]+,.*"), "a figure for " + r);
        }
        String md = Files.readString(out.resolve("targets.md"));
        assertTrue(md.contains("local read hit / double[] read (12)") && md.contains("smoke run"), md);
        assertTrue(Files.size(out.resolve("targets.png")) > 1000);
        assertTrue(Files.exists(out.resolve("run-1/hits/hits.csv")) && Files.exists(out.resolve("run-1/lu/lu.csv")));
        assertEquals(CommandLine.ExitCode.USAGE, cli.execute("bench", "targets", "--runs", "0", "--out", out.toString()));
        assertEquals(CommandLine.ExitCode.USAGE, cli.execute("bench", "targets", "--only", "speed", "--out", out.toString()));
    }
}
