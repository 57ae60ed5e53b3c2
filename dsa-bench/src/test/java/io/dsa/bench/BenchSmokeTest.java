package io.dsa.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dsa.agent.cli.DsaCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Smoke runs of the {@code dsa bench} experiments at tiny sizes through the real {@code dsa}
 * command line (so the {@link BenchExtension} is found by the ServiceLoader), checking that each
 * writes a plausible CSV, a PNG and its Markdown, and that {@code report} gathers them.
 */
class BenchSmokeTest {
    private static int dsa(String... args) { return dsa(new StringWriter(), args); }

    private static int dsa(StringWriter err, String... args) {
        CommandLine cli = DsaCli.commandLine();
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(args);
        if (code != 0) System.err.println(err);
        return code;
    }

    private static List<String[]> csv(Path file, String header) throws Exception {
        List<String> lines = Files.readAllLines(file);
        assertEquals(header, lines.get(0));
        return lines.subList(1, lines.size()).stream().map(l -> l.split(",", -1)).toList();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void benchHasHelpForEveryExperiment() {
        assertEquals(0, dsa("bench", "--help"));
        for (String e : List.of("startup", "miss", "stream", "write-cost", "lu", "fft", "cg", "barrier", "jmh", "targets", "report", "handoff")) assertEquals(0, dsa("bench", e, "--help"), e);
        assertEquals(CommandLine.ExitCode.USAGE, dsa("bench", "miss", "--sides", "200"));
        assertEquals(CommandLine.ExitCode.USAGE, dsa("bench", "miss", "--transport-security", "MAC,MAC"));
        assertEquals(CommandLine.ExitCode.USAGE, dsa("bench", "miss", "--wait", "SPIN,SPIN"));
        assertEquals(CommandLine.ExitCode.USAGE, dsa("bench", "stream", "--wait", "doze"));
        assertEquals(CommandLine.ExitCode.USAGE, dsa("bench", "handoff", "--round-trips", "0"));
        assertEquals(CommandLine.ExitCode.USAGE, dsa("bench", "handoff", "--sizes", "16,0"));
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void missSmokeThenReport(@TempDir Path out) throws Exception {
        assertEquals(0, dsa("bench", "miss", "--smoke", "--no-hazelcast", "--wait", "park", "--no-hit-counts", "--out", out.toString()));
        List<String[]> rows = csv(out.resolve("miss.csv"), MissCommand.CSV_HEADER);
        assertEquals(4, rows.size(), "2 sides x 2 protection modes x 1 wait strategy");
        assertEquals(List.of("ENCRYPT", "MAC", "ENCRYPT", "MAC"), rows.stream().map(r -> r[2]).toList());
        assertEquals(List.of("PARK", "PARK", "PARK", "PARK"), rows.stream().map(r -> r[3]).toList());
        for (String[] r : rows) {
            int side = Integer.parseInt(r[0]);
            assertEquals(side * side * 8, Integer.parseInt(r[1]));
            for (int i : new int[] {4, 6, 8, 9}) {
                double us = Double.parseDouble(r[i]);
                assertTrue(us > 0 && us < 1_000_000, "column " + i + " plausible: " + String.join(",", r));
            }
            assertTrue(Double.parseDouble(r[5]) >= Double.parseDouble(r[4]), "read p90 >= median");
            assertEquals("", r[10], "Hazelcast skipped");
        }
        assertTrue(Files.size(out.resolve("miss.png")) > 1000);
        String missTable = Files.readString(out.resolve("miss.md"));
        assertTrue(missTable.contains("8 KiB read miss (ENCRYPT PARK) vs thin Netty"), missTable);
        assertTrue(missTable.contains("8 KiB read miss (MAC PARK) vs thin Netty"), missTable);
        assertTrue(missTable.contains("DSA VMs without hit counts (`--no-hit-counts`)."), "the VM settings are named: " + missTable);

        Path report = out.resolve("BENCHMARKS.md");
        assertEquals(0, dsa("bench", "report", "--out", out.toString(), "--file", report.toString()));
        String text = Files.readString(report);
        assertTrue(text.contains("## Remote miss vs partition size"), text);
        assertTrue(text.contains("Not run"), "missing experiments are named: " + text);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void luAndFftSmokeWithSequentialAndMpiPeers(@TempDir Path out) throws Exception {
        String c = Path.of("src/main/c").toAbsolutePath().toString();
        boolean mpi = BarrierBench.onPath("mpicc") && BarrierBench.onPath("mpirun");
        for (String e : List.of("lu", "fft")) {
            assertEquals(0, dsa("bench", e, "--smoke", "--out", out.toString(), "--c-src", c), e);
            List<String[]> rows = csv(out.resolve(e + ".csv"), LuFftCommand.CSV_HEADER);
            List<String> kinds = rows.stream().map(r -> r[0]).toList();
            assertEquals(mpi ? List.of("seq", "dsa", "dsa-warm", "mpi") : List.of("seq", "dsa", "dsa-warm"), kinds, e);
            assertEquals(mpi ? List.of("", "ADAPTIVE", "ADAPTIVE", "") : List.of("", "ADAPTIVE", "ADAPTIVE"),
                    rows.stream().map(r -> r[8]).toList(), e + ": a VM's default wait unless --wait names others");
            for (String[] r : rows) {
                double s = Double.parseDouble(r[5]);
                assertTrue(s > 0 && s < 60, e + " seconds plausible: " + String.join(",", r));
            }
            assertTrue(Files.size(out.resolve(e + ".png")) > 1000);
            String md = Files.readString(out.resolve(e + ".md"));
            assertTrue(md.contains("vs MPI + C") && md.contains("DSA warm") && md.contains("dsa-warm"), md);
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void luRunsEachWaitStrategyGivenWithTheTuningNamed(@TempDir Path out) throws Exception {
        assertEquals(0, dsa("bench", "lu", "--smoke", "--no-mpi", "--wait", "POLL,PARK", "--no-hit-counts", "--out", out.toString()));
        List<String[]> rows = csv(out.resolve("lu.csv"), LuFftCommand.CSV_HEADER);
        assertEquals(List.of("seq/", "dsa/POLL", "dsa/PARK", "dsa-warm/POLL", "dsa-warm/PARK"),
                rows.stream().map(r -> r[0] + "/" + r[8]).toList());
        String md = Files.readString(out.resolve("lu.md"));
        assertTrue(md.contains("DSA VMs wait by [POLL, PARK]") && md.contains("without hit counts (`--no-hit-counts`)")
                && md.contains("| dsa-warm | POLL |"), md);
        StringWriter err = new StringWriter();
        assertEquals(CommandLine.ExitCode.USAGE, dsa(err, "bench", "fft", "--smoke", "--wait", "PARK,PARK"));
        assertTrue(err.toString().contains("--wait: [PARK, PARK] names a strategy twice"), err.toString());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void cgSmokeVerifiesClassSOnDsaSequentialAndMpi(@TempDir Path out) throws Exception {
        String c = Path.of("src/main/c").toAbsolutePath().toString();
        boolean mpi = BarrierBench.onPath("mpicc") && BarrierBench.onPath("mpirun");
        assertEquals(0, dsa("bench", "cg", "--smoke", "--out", out.toString(), "--c-src", c));
        List<String[]> rows = csv(out.resolve("cg.csv"), CgCommand.CSV_HEADER);
        assertEquals(mpi ? List.of("seq", "dsa", "dsa-warm", "mpi") : List.of("seq", "dsa", "dsa-warm"), rows.stream().map(r -> r[1]).toList());
        assertEquals(mpi ? List.of("", "ADAPTIVE", "ADAPTIVE", "") : List.of("", "ADAPTIVE", "ADAPTIVE"), rows.stream().map(r -> r[2]).toList());
        for (String[] r : rows) {
            assertEquals("S", r[0]);
            double s = Double.parseDouble(r[5]);
            assertTrue(s > 0 && s < 60, "seconds plausible: " + String.join(",", r));
        }
        assertEquals("1.000", rows.get(0)[6], "the sequential row is the baseline");
        assertTrue(Files.size(out.resolve("cg.png")) > 1000);
        String md = Files.readString(out.resolve("cg.md"));
        assertTrue(md.contains("class S, DSA 2x1 ADAPTIVE vs sequential Java") && md.contains("class S, DSA 2x1 ADAPTIVE warm vs sequential Java"),
                md);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void streamSmokeReadsRealMissesBesideNettyAndMpi(@TempDir Path out) throws Exception {
        String c = Path.of("src/main/c").toAbsolutePath().toString();
        boolean mpi = BarrierBench.onPath("mpicc") && BarrierBench.onPath("mpirun");
        assertEquals(0, dsa("bench", "stream", "--smoke", "--out", out.toString(), "--c-src", c));
        List<String[]> rows = csv(out.resolve("stream.csv"), StreamCommand.CSV_HEADER);
        assertEquals(List.of("8192", "8192", "65536", "65536"), rows.stream().map(r -> r[0]).toList());
        assertEquals(List.of("ENCRYPT", "MAC", "ENCRYPT", "MAC"), rows.stream().map(r -> r[2]).toList(), "both modes by default");
        for (String[] r : rows) {
            assertEquals(StreamProgram.partitions(Integer.parseInt(r[0]), 1 << 20), Integer.parseInt(r[1]));
            assertEquals("ADAPTIVE", r[3], "a smoke run waits by the default alone");
            for (int i = 4; i <= 9; i++) {
                double gbps = Double.parseDouble(r[i]);
                assertTrue(gbps > 0 && gbps < 1000, "column " + i + " plausible: " + String.join(",", r));
            }
            for (int i : new int[] {10, 11}) assertEquals(mpi, !r[i].isEmpty(), "MPI column " + i + ": " + String.join(",", r));
        }
        assertTrue(Files.size(out.resolve("stream.png")) > 1000);
        assertTrue(Files.readString(out.resolve("stream.md")).contains("best DSA"));
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void handoffSmoke(@TempDir Path out) throws Exception {
        assertEquals(0, dsa("bench", "handoff", "--smoke", "--out", out.toString()));
        List<String[]> rows = csv(out.resolve("handoff.csv"), HandoffCommand.CSV_HEADER);
        assertEquals(List.of("park", "tcp", "park", "tcp", "park", "tcp"), rows.stream().map(r -> r[0]).toList());
        assertEquals(List.of("UNBOUND", "UNBOUND", "ONE_CORE", "ONE_CORE", "TWO_CORES", "TWO_CORES"), rows.stream().map(r -> r[2]).toList());
        boolean twoCores = HandoffCommand.allowedCores().size() >= 2;
        for (String[] r : rows) {
            boolean measured = r[8].isEmpty();
            // unbound always runs; a bound placement is measured where binding works (Linux with taskset), else says why
            if (r[2].equals("UNBOUND") || (twoCores && Files.isExecutable(Path.of("/usr/bin/taskset")))) assertTrue(measured, String.join(",", r));
            if (!measured) {
                assertEquals("", r[5], "no figure without a measurement: " + String.join(",", r));
                continue;
            }
            assertEquals(r[0].equals("tcp") ? "16" : "0", r[1]);
            assertEquals("300", r[4]);
            double median = Double.parseDouble(r[5]), p10 = Double.parseDouble(r[6]), p90 = Double.parseDouble(r[7]);
            assertTrue(p10 > 0 && p10 <= median && median <= p90 && p90 < 1_000_000, "plausible: " + String.join(",", r));
        }
        assertTrue(Files.readString(out.resolve("handoff.md")).contains("| park/unpark | one core |"));
        assertTrue(Files.size(out.resolve("handoff.png")) > 1000);
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void handoffSaysWhyAThreadCannotBeBound() throws Exception {
        java.util.concurrent.CompletableFuture<String> why = new java.util.concurrent.CompletableFuture<>();
        Thread t = new Thread(() -> {   // a thread of its own: a binding that worked would stay with the test's thread
            try {
                HandoffCommand.bindCurrentThread(100_000);
                why.complete("bound");
            } catch (HandoffCommand.BindingFailed f) {
                why.complete(f.getMessage());
            }
        });
        t.start();
        String said = why.get(20, TimeUnit.SECONDS);
        assertTrue(said.startsWith("cpu 100000: "), said);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void startupSmokeWithWarmChildJvms(@TempDir Path out) throws Exception {
        assertEquals(0, dsa("bench", "startup", "--smoke", "--out", out.toString()));
        List<String[]> rows = csv(out.resolve("startup.csv"), "nodes,startup_ms,startup_p90_ms,agent_startup_ms,create512_ms,create1024_ms,load");
        assertEquals(List.of("1", "2"), rows.stream().map(r -> r[0]).toList());
        for (String[] r : rows) {
            for (int i = 1; i <= 5; i++) {
                double ms = Double.parseDouble(r[i]);
                assertTrue(ms > 0 && ms < 60_000, "column " + i + " plausible: " + String.join(",", r));
            }
            assertTrue(Double.parseDouble(r[2]) >= Double.parseDouble(r[1]), "p90 >= median");
        }
        assertTrue(Files.readString(out.resolve("startup.md")).contains("1024² array creation"));
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void writeCostSmoke(@TempDir Path out) throws Exception {
        assertEquals(0, dsa("bench", "write-cost", "--smoke", "--out", out.toString()));
        List<String[]> rows = csv(out.resolve("write-cost.csv"), "nodes,sharers,side,stride,writes,avg_ns,p90_ns,load");
        assertEquals(4, rows.size(), "2 sides x 2 strides");
        for (String[] r : rows) {
            int side = Integer.parseInt(r[2]), stride = Integer.parseInt(r[3]);
            assertEquals((side * side + stride - 1) / stride, Integer.parseInt(r[4]), "writes per round");
            double ns = Double.parseDouble(r[5]);
            assertTrue(ns > 0 && ns < 1e9 && Double.parseDouble(r[6]) >= ns, "plausible: " + String.join(",", r));
        }
        assertTrue(Files.size(out.resolve("write-cost.png")) > 1000);
    }

    /** The codec alone, and a small message's round trip while 4 MiB partitions stream on the same connection. */
    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void jmhSmokeOnTheRealCodecAndASmallMessageUnderBulk(@TempDir Path out) throws Exception {
        assertEquals(0, dsa("bench", "jmh", "--smoke", "--include",
                "CodecBenchmark.encode|SmallMessageUnderBulkBenchmark|ReleaseScopeBenchmark.releaseWrite", "--out", out.toString()));
        String md = Files.readString(out.resolve("jmh.md"));
        assertTrue(md.contains("| CodecBenchmark.encode | bytes=8192 |"), md);
        assertTrue(md.contains("| ReleaseScopeBenchmark.releaseWrite |"), md);
        for (String security : new String[] {"ENCRYPT", "MAC"}) {
            for (String bytes : new String[] {"0", "4194304"}) {
                assertTrue(md.contains("| SmallMessageUnderBulkBenchmark.smallRoundTrip | bytes=" + bytes + " security=" + security + " |"), md);
            }
        }
        assertTrue(Files.size(out.resolve("jmh.png")) > 1000);
        assertTrue(Files.readAllLines(out.resolve("jmh.csv")).size() > 3, "JMH CSV has the runs");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void barrierDelegatesToBarrierBenchInAFreshDirectory(@TempDir Path out) throws Exception {
        assertEquals(0, dsa("bench", "barrier", "--smoke", "--out", out.toString(), "--", "--no-mpi"));
        List<String[]> rows = csv(out.resolve("barrier.csv"), "op,kind,proxy,wait,nodes,threads,median_us,p90_us,mpi_us,mpi_workers_us,load");
        assertEquals(List.of("1", "1", "2", "2"), rows.stream().map(r -> r[4]).toList());
        assertEquals(List.of("barrier", "allreduce", "barrier", "allreduce"), rows.stream().map(r -> r[0]).toList());
        assertTrue(Files.size(out.resolve("barrier.png")) > 1000);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void handOffCountNamesEveryOperationWithItsBlockingWaitsPerThreadGroup() throws Exception {
        List<String> lines = HandOffCount.run("PARK", 3);
        assertEquals(List.of("read miss", "write miss, no invalidation", "write miss, 1 invalidation", "barrier TREE/FLOAT 4x2",
                "barrier TREE/FIXED 4x2", "allReduce 1 value TREE/FLOAT 4x2"),
                lines.stream().map(l -> l.substring(0, l.indexOf(" |")).trim()).toList());
        for (String line : lines) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("caller ([0-9.]+) workers ([0-9.]+) io ([0-9.]+)").matcher(line);
            assertTrue(m.find(), line);
            for (int g = 1; g <= 3; g++) assertTrue(Double.parseDouble(m.group(g)) >= 0, line);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void hazelcastPeerServesTheOtherMembersKey() throws Exception {
        Map<Integer, double[]> hz = MissCommand.hazelcast(List.of(8), 5, 10);
        double[] getSet = hz.get(8);
        assertTrue(getSet[0] > 0 && getSet[1] > 0, "get and set timed");
    }
}
