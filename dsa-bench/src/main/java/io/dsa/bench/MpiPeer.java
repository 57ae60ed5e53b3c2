package io.dsa.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Option;

/**
 * The MPI + C peers of the macro benchmarks: a program of {@code dsa-bench/src/main/c} compiled
 * with {@code mpicc} and run with {@code mpirun} on this host. Where Open MPI is missing (a fresh CI
 * machine), the peer is skipped with a message naming the Debian packages. Not thread-safe; the
 * commands call it from their one thread.
 */
final class MpiPeer {
    /** What to install where {@code mpicc}/{@code mpirun} are missing. */
    static final String PACKAGES = "Debian/Ubuntu: apt-get install -y openmpi-bin libopenmpi-dev";

    private MpiPeer() {}

    /** The options of the experiments that run a program several times beside an MPI + C peer. */
    static final class Options {
        @Option(names = {"--reps", "--runs"}, defaultValue = "3",
                description = "Runs per configuration; the median is kept (default: ${DEFAULT-VALUE}).")
        int reps;

        @Option(names = "--mpi-np", split = ",", defaultValue = "2,4", description = "MPI rank counts (default: ${DEFAULT-VALUE}).")
        List<Integer> mpiNp;

        @Option(names = "--no-mpi", description = "Skip the MPI + C peer.")
        boolean noMpi;

        @Option(names = "--c-src", paramLabel = "DIR", defaultValue = "dsa-bench/src/main/c",
                description = "Directory of the MPI + C sources (default: ${DEFAULT-VALUE}).")
        Path cSrc;
    }

    /** A finished process: its exit code and its standard output and error, merged. */
    record Exec(int exit, String output) {}

    /** Runs {@code cmd} to completion (at most 600 s, then it is killed and this throws). */
    static Exec exec(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(600, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("timed out: " + cmd);
        }
        return new Exec(p.exitValue(), output);
    }

    /**
     * Compiles {@code src} into {@code out/NAME} (the source's name without {@code .c}) with {@code -O3 -march=native}: the
     * peer gets the vector instructions of this CPU, as the JIT gives the Java side (with {@code -O2}, the LU of
     * {@code lu_mpi.c} took 0.31 s on 2 ranks instead of 0.053 s; BENCHMARKS.md, "Warm runs").
     *
     * @return the executable, or null when the peer is skipped (the reason is printed)
     * @throws IOException if {@code mpicc} fails on the source
     */
    static Path compile(Path src, Path out) throws IOException, InterruptedException {
        if (!BarrierBench.onPath("mpicc") || !BarrierBench.onPath("mpirun")) {
            System.out.println("MPI + C peer skipped: mpicc/mpirun not found (" + PACKAGES + ")");
            return null;
        }
        if (!Files.isRegularFile(src)) {
            System.out.println("MPI + C peer skipped: " + src + " not found (run from the repository root or pass --c-src)");
            return null;
        }
        Files.createDirectories(out);
        String name = src.getFileName().toString().replaceFirst("\\.c$", "");
        Path exe = out.resolve(name).toAbsolutePath();
        Exec cc = exec(List.of("mpicc", "-O3", "-march=native", "-o", exe.toString(), src.toString(), "-lm"));
        if (cc.exit() != 0) throw new IOException("mpicc failed on " + src + ":\n" + cc.output());
        return exe;
    }

    /**
     * Runs {@code exe args} on {@code np} ranks over loopback TCP ({@link #mpirun}).
     *
     * @param what names the run in the error, e.g. "CG class S"
     * @return the seconds of the program's {@code time S} line
     * @throws IOException with the program's output if it failed or printed no time
     */
    static double time(Path exe, int np, List<String> args, String what) throws IOException, InterruptedException {
        List<String> cmd = mpirun(np, true);
        cmd.add(exe.toString());
        cmd.addAll(args);
        Exec e = exec(cmd);
        double s = Double.NaN;
        for (String line : e.output().split("\n")) if (line.startsWith("time ")) s = Double.parseDouble(line.substring(5).trim());
        if (e.exit() != 0 || Double.isNaN(s)) throw new IOException("MPI " + what + " np=" + np + " failed:\n" + e.output());
        return s;
    }

    /**
     * @param np ranks, all on this host
     * @param tcpLoopback true: Open MPI's TCP transport over the loopback interface only (what
     *        separate hosts would use); false: Open MPI's default choice (shared memory between
     *        ranks on one host)
     * @return the {@code mpirun} command up to the executable
     */
    static List<String> mpirun(int np, boolean tcpLoopback) {
        List<String> cmd = new ArrayList<>(List.of("mpirun", "--oversubscribe", "-np", Integer.toString(np)));
        if (tcpLoopback) cmd.addAll(List.of("--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include", "lo"));
        if ("root".equals(System.getProperty("user.name"))) cmd.add("--allow-run-as-root");
        return cmd;
    }
}
