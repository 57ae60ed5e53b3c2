package io.dsa.bench;

import io.dsa.agent.internal.CoreBinding;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dsa bench handoff}: what handing work from one thread to another costs on this machine,
 * the quantity that decides a remote operation's latency (docs/runtime.md, "What a hand-off costs
 * here"). Two threads of this JVM pass a token back and forth, by {@link LockSupport#park} and
 * {@code unpark} (the wake-up every {@code WaitPoint} of a node uses) and over a loopback TCP
 * connection (blocking sockets: the kernel wakes the reader), with the two threads left where the
 * scheduler puts them, bound to one core, and bound to two different cores ({@code taskset} on
 * each thread's own id, as {@code --bind-cores} binds a node's threads). A placement that cannot be
 * bound (not Linux, no {@code taskset}, one core) is reported as not measured, with the reason.
 */
@Command(name = "handoff", mixinStandardHelpOptions = true,
        description = {"What a hand-off between two threads costs on this machine: park/unpark and loopback TCP round trips,"
                + " with the threads unbound, on one core and on two cores.",
                "Writes handoff.csv and handoff.md; prints each figure as it is measured."})
final class HandoffCommand implements java.util.concurrent.Callable<Integer> {
    /** The CSV's columns. */
    static final String CSV_HEADER = "kind,bytes,placement,cpus,round_trips,median_us,p10_us,p90_us,note";
    private static final int REQUEST_BYTES = 16;
    private static final long MEASURE_TIMEOUT_S = 120;

    @Spec
    CommandSpec spec;

    @Mixin
    BenchCommand.Common common = new BenchCommand.Common();

    @Option(names = "--round-trips", defaultValue = "20000", description = "Timed round trips per figure (default: ${DEFAULT-VALUE}).")
    int roundTrips;

    @Option(names = "--sizes", split = ",", defaultValue = "16,8192",
            description = "Reply sizes in bytes of the TCP round trips (default: ${DEFAULT-VALUE}; each in [1, 1048576]).")
    List<Integer> sizes;

    /** Where the two threads run. */
    enum Placement {
        /** Where the scheduler puts them. */
        UNBOUND("unbound"),
        /** Both on the first allowed core. */
        ONE_CORE("one core"),
        /** On the first two allowed cores, one each. */
        TWO_CORES("two cores");

        final String label;

        Placement(String label) { this.label = label; }
    }

    /** One figure: {@code kind} park or tcp, the reply's bytes (0 for park), its placement and its round trips in microseconds. */
    record Row(String kind, int bytes, Placement placement, String cpus, int roundTrips, double medianUs, double p10Us, double p90Us,
               String note) {
        boolean measured() { return note.isEmpty(); }

        String csv() {
            return String.join(",", kind, Integer.toString(bytes), placement.name(), cpus, Integer.toString(roundTrips),
                    BenchOut.f(medianUs), BenchOut.f(p10Us), BenchOut.f(p90Us), note.replace(',', ';'));
        }
    }

    @Override
    public Integer call() throws Exception {
        if (common.smoke) { roundTrips = 300; sizes = List.of(16); }
        if (roundTrips < 1 || roundTrips > 10_000_000) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--round-trips: " + roundTrips + " not in [1, 10000000]");
        }
        for (int s : sizes) {
            if (s < 1 || s > 1 << 20) throw new CommandLine.ParameterException(spec.commandLine(), "--sizes: " + s + " not in [1, 1048576]");
        }
        List<Integer> cores = allowedCores();
        List<Row> rows = new ArrayList<>();
        long start = System.nanoTime();
        for (Placement p : Placement.values()) {
            rows.add(print(measure("park", 0, p, cores, start)));
            for (int size : sizes) rows.add(print(measure("tcp", size, p, cores, start)));
        }
        Files.createDirectories(common.out);
        BenchOut.csv(common.out, "handoff", CSV_HEADER, rows.stream().map(Row::csv).toList());
        plot(rows);
        BenchOut.markdown(common.out, "handoff", "Hand-offs between two threads", "dsa bench handoff --round-trips " + roundTrips
                + " --sizes " + sizes.toString().replaceAll("[\\[\\] ]", ""), notes(), table(rows), List.of());
        System.out.printf(Locale.ROOT, "handoff: %d figures in %.1f s; %s%n", rows.size(), (System.nanoTime() - start) / 1e9,
                common.out.resolve("handoff.md"));
        return 0;
    }

    private static Row print(Row r) {
        String what = r.kind().equals("park") ? "park/unpark" : "tcp " + r.bytes() + " B";
        if (r.measured()) {
            System.out.printf(Locale.ROOT, "handoff %-13s %-9s (cpus %s): median %.1f us a round trip (p10 %.1f, p90 %.1f)%n", what,
                    r.placement().label, r.cpus(), r.medianUs(), r.p10Us(), r.p90Us());
        } else {
            System.out.printf(Locale.ROOT, "handoff %-13s %-9s: not measured (%s)%n", what, r.placement().label, r.note());
        }
        return r;
    }

    private Row measure(String kind, int bytes, Placement placement, List<Integer> cores, long start) throws Exception {
        String cpus;
        int[] pin;
        switch (placement) {
            case UNBOUND -> { cpus = "any"; pin = null; }
            case ONE_CORE -> {
                if (cores.isEmpty()) return notMeasured(kind, bytes, placement, "the allowed cores are unknown here");
                pin = new int[] {cores.get(0), cores.get(0)};
                cpus = Integer.toString(cores.get(0));
            }
            default -> {
                if (cores.size() < 2) return notMeasured(kind, bytes, placement, "fewer than two cores allowed: " + cores);
                pin = new int[] {cores.get(0), cores.get(1)};
                cpus = cores.get(0) + "+" + cores.get(1);
            }
        }
        int warmup = Math.max(1, roundTrips / 4);
        try {
            double[] us = kind.equals("park") ? parkRoundTrips(pin, warmup) : tcpRoundTrips(pin, warmup, bytes);
            return new Row(kind, bytes, placement, cpus, roundTrips, BenchOut.median(us), BenchOut.percentile(us, 10),
                    BenchOut.percentile(us, 90), "");
        } catch (BindingFailed e) {
            return notMeasured(kind, bytes, placement, e.getMessage());
        }
    }

    private Row notMeasured(String kind, int bytes, Placement placement, String why) {
        return new Row(kind, bytes, placement, "", roundTrips, Double.NaN, Double.NaN, Double.NaN, why);
    }

    /** The pinger's round trips in microseconds: it unparks the ponger, which unparks it back. */
    private double[] parkRoundTrips(int[] pin, int warmup) throws Exception {
        ParkToken token = new ParkToken();
        CompletableFuture<Void> ponger = thread("handoff-pong", pin == null ? -1 : pin[1], token.ponger, () -> {
            Thread pinger = token.pinger.join();
            for (int i = 0; i < warmup + roundTrips; i++) {
                while (token.turn != 1) LockSupport.park(token);
                token.turn = 0;
                LockSupport.unpark(pinger);
            }
            return null;
        });
        double[] us = new double[roundTrips];
        CompletableFuture<Void> pinger = thread("handoff-ping", pin == null ? -1 : pin[0], token.pinger, () -> {
            Thread pong = token.ponger.join();
            for (int i = -warmup; i < roundTrips; i++) {
                long t0 = System.nanoTime();
                token.turn = 1;
                LockSupport.unpark(pong);
                while (token.turn != 0) LockSupport.park(token);
                if (i >= 0) us[i] = (System.nanoTime() - t0) / 1e3;
            }
            return null;
        });
        await(pinger, ponger);
        return us;
    }

    /** The two threads of a park/unpark ping-pong, and whose turn it is (1: the ponger's). */
    private static final class ParkToken {
        volatile int turn;
        final CompletableFuture<Thread> pinger = new CompletableFuture<>();
        final CompletableFuture<Thread> ponger = new CompletableFuture<>();
    }

    /** The client's round trips in microseconds: a 16-byte request, a {@code bytes} reply, over loopback TCP. */
    private double[] tcpRoundTrips(int[] pin, int warmup, int bytes) throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int total = warmup + roundTrips;
            CompletableFuture<Void> ponger = thread("handoff-serve", pin == null ? -1 : pin[1], null, () -> {
                try (Socket s = server.accept()) {
                    s.setTcpNoDelay(true);
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    OutputStream out = s.getOutputStream();
                    byte[] request = new byte[REQUEST_BYTES];
                    byte[] reply = new byte[bytes];
                    for (int i = 0; i < total; i++) {
                        in.readFully(request);
                        out.write(reply);
                    }
                }
                return null;
            });
            ponger.whenComplete((v, e) -> {   // a server that failed (its binding, say) unblocks the client: its connection is reset
                if (e != null) {
                    try {
                        server.close();
                    } catch (IOException ignored) {
                        // closing anyway
                    }
                }
            });
            double[] us = new double[roundTrips];
            CompletableFuture<Void> pinger = thread("handoff-client", pin == null ? -1 : pin[0], null, () -> {
                try (Socket c = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort())) {
                    c.setTcpNoDelay(true);
                    OutputStream out = c.getOutputStream();
                    DataInputStream in = new DataInputStream(c.getInputStream());
                    byte[] request = new byte[REQUEST_BYTES];
                    byte[] reply = new byte[bytes];
                    for (int i = -warmup; i < roundTrips; i++) {
                        long t0 = System.nanoTime();
                        out.write(request);
                        in.readFully(reply);
                        if (i >= 0) us[i] = (System.nanoTime() - t0) / 1e3;
                    }
                }
                return null;
            });
            await(pinger, ponger);
            return us;
        }
    }

    private interface Body { Void run() throws Exception; }

    /**
     * Starts a thread that binds itself to {@code cpu} (unless negative), completes {@code announce}
     * (if any) with itself, and runs {@code body}. A failure completes both exceptionally, so that
     * the other thread of the pair, waiting for the announcement, fails too instead of waiting on.
     */
    private static CompletableFuture<Void> thread(String name, int cpu, CompletableFuture<Thread> announce, Body body) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                if (cpu >= 0) bindCurrentThread(cpu);
                if (announce != null) announce.complete(Thread.currentThread());
                body.run();
                done.complete(null);
            } catch (Throwable e) {
                if (announce != null) announce.completeExceptionally(e);
                done.completeExceptionally(e);
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return done;
    }

    /** Waits for both threads; a binding that failed on either side is reported as such, whatever the other side then threw. */
    private static void await(CompletableFuture<Void> pinger, CompletableFuture<Void> ponger) throws Exception {
        try {
            CompletableFuture.allOf(pinger, ponger).get(MEASURE_TIMEOUT_S, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            for (CompletableFuture<Void> f : List.of(pinger, ponger)) {
                if (!f.isCompletedExceptionally()) continue;
                try {
                    f.join();
                } catch (java.util.concurrent.CompletionException failed) {
                    for (Throwable c = failed; c != null; c = c.getCause()) if (c instanceof BindingFailed b) throw b;
                }
            }
            throw e;
        } catch (TimeoutException e) {
            throw new IOException("a hand-off measurement did not finish in " + MEASURE_TIMEOUT_S + " s");
        }
    }

    /** A thread could not be bound to its core: the placement is not measured. */
    static final class BindingFailed extends Exception {
        BindingFailed(String message) { super(message); }
    }

    /** Binds the calling thread to {@code cpu} as {@code --bind-cores} binds a node's threads. @throws BindingFailed naming why not */
    static void bindCurrentThread(int cpu) throws BindingFailed {
        try {
            CoreBinding.bindCurrentThreadTo(List.of(cpu));
        } catch (IOException | UnsupportedOperationException e) {
            throw new BindingFailed("cpu " + cpu + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BindingFailed("interrupted while binding");
        }
    }

    /** @return the cores this JVM's threads may run on, empty where unknown (not Linux) */
    static List<Integer> allowedCores() {
        try {
            return CoreBinding.allowedCores();
        } catch (IOException | IllegalArgumentException e) {
            return List.of();
        }
    }

    /** {@code handoff.png}: each hand-off's median round trip per placement (0 unbound, 1 one core, 2 two cores). */
    private void plot(List<Row> rows) throws IOException {
        java.util.Map<String, double[][]> series = new java.util.LinkedHashMap<>();
        for (Row r : rows) {
            String name = r.kind().equals("park") ? "park/unpark" : "TCP " + r.bytes() + " B";
            double[][] xy = series.computeIfAbsent(name, k -> new double[][] {{0, 1, 2}, {Double.NaN, Double.NaN, Double.NaN}});
            xy[1][r.placement().ordinal()] = r.medianUs();
        }
        BenchOut.plot(common.out, "handoff", "Hand-off round trips between two threads", "placement: 0 unbound, 1 one core, 2 two cores",
                "median round trip (us)", false, series);
    }

    private static String notes() {
        return "- A round trip is two hand-offs: the figure over 2 is what one wake-up of a waiting thread costs, placed so.\n"
                + "- park: `LockSupport.unpark` of a parked thread, as a node's wait points wake its workers and its I/O thread;"
                + " tcp: a blocking loopback socket, 16-byte request and the reply's bytes, as the kernel wakes a reader.";
    }

    private static String table(List<Row> rows) {
        StringBuilder t = new StringBuilder("| hand-off | placement | CPUs | round trip median (us) | p10 | p90 |\n"
                + "| --- | --- | --- | ---: | ---: | ---: |\n");
        for (Row r : rows) {
            String what = r.kind().equals("park") ? "park/unpark" : "loopback TCP, " + r.bytes() + " B reply";
            if (r.measured()) {
                t.append(String.format(Locale.ROOT, "| %s | %s | %s | %.1f | %.1f | %.1f |%n", what, r.placement().label, r.cpus(),
                        r.medianUs(), r.p10Us(), r.p90Us()));
            } else {
                t.append("| ").append(what).append(" | ").append(r.placement().label).append(" | | not measured: ").append(r.note())
                        .append(" | | |\n");
            }
        }
        return t.toString();
    }
}
