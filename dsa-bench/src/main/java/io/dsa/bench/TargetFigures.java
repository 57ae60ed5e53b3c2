package io.dsa.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The figures of {@link TargetsCommand}'s targets, read from one run's CSV of the experiment that
 * measures each (the columns those experiments write): DSA and its peer from the same run, so each
 * ratio compares like with like. A figure that is missing (a peer that did not run, an empty cell)
 * gives {@link TargetsCommand.Measure#none}, with the reason.
 */
final class TargetFigures {
    private TargetFigures() {}

    /** A CSV as the experiments write it: a header, then rows of plain cells (no quoted commas). */
    record Csv(Map<String, Integer> columns, List<String[]> rows) {
        /** @throws IOException if the file is missing, empty, or lacks a column asked for later */
        static Csv read(Path file) throws IOException {
            List<String> lines = Files.readAllLines(file);
            if (lines.isEmpty()) throw new IOException(file + " is empty");
            Map<String, Integer> columns = new HashMap<>();
            String[] header = lines.get(0).split(",", -1);
            for (int i = 0; i < header.length; i++) columns.put(header[i].trim(), i);
            List<String[]> rows = new ArrayList<>();
            for (String line : lines.subList(1, lines.size())) if (!line.isBlank()) rows.add(line.split(",", -1));
            return new Csv(columns, rows);
        }

        /** @return the cell of {@code column} in {@code row} @throws IllegalArgumentException naming a missing column */
        String cell(String[] row, String column) {
            Integer i = columns.get(column);
            if (i == null) throw new IllegalArgumentException("no column '" + column + "' in " + columns.keySet());
            return i < row.length ? row[i].trim() : "";
        }

        /** @return the number in that cell, NaN if empty */
        double number(String[] row, String column) {
            String c = cell(row, column);
            return c.isEmpty() ? Double.NaN : Double.parseDouble(c);
        }

        /** @return the rows where every {@code column=value} pair of {@code where} holds */
        List<String[]> where(String... where) {
            Predicate<String[]> p = r -> true;
            for (int i = 0; i < where.length; i += 2) {
                String column = where[i];
                String value = where[i + 1];
                p = p.and(r -> cell(r, column).equalsIgnoreCase(value));
            }
            return rows.stream().filter(p).toList();
        }
    }

    private static String f(double v) { return TargetsCommand.fmt(v); }

    /** {@code op} ("barrier" or "allreduce") of 4 x 2 under ADAPTIVE over {@code MPI_Barrier} np=4, from barrier.csv. */
    static TargetsCommand.Measure barrier(Path dir, String op) throws IOException {
        Csv csv = Csv.read(dir.resolve("barrier.csv"));
        List<String[]> rows = csv.where("op", op, "wait", "ADAPTIVE", "nodes", "4", "threads", "2");
        if (rows.isEmpty()) return TargetsCommand.Measure.none("no 4x2 ADAPTIVE " + op + " row");
        double dsa = csv.number(rows.get(0), "median_us");
        double mpi = csv.number(rows.get(0), "mpi_us");
        if (Double.isNaN(mpi) || mpi <= 0) return TargetsCommand.Measure.none("no MPI_Barrier figure (mpicc or mpirun missing)");
        return new TargetsCommand.Measure(dsa / mpi, f(dsa) + " / " + f(mpi) + " us");
    }

    /** The best DSA bandwidth of any way and setting at {@code bytes} over MPI's TCP ping-pong, from stream.csv. */
    static TargetsCommand.Measure streamShare(Path dir, int bytes) throws IOException {
        Csv csv = Csv.read(dir.resolve("stream.csv"));
        List<String[]> rows = csv.where("bytes", Integer.toString(bytes));
        if (rows.isEmpty()) return TargetsCommand.Measure.none("no " + bytes + "-byte rows");
        double best = Double.NaN;
        String how = "";
        double mpi = Double.NaN;
        for (String[] r : rows) {
            for (String way : List.of("one", "window", "region", "sequential")) {
                double v = csv.number(r, "dsa_" + way + "_gbps");
                if (!Double.isNaN(v) && (Double.isNaN(best) || v > best)) {
                    best = v;
                    how = csv.cell(r, "security") + " " + csv.cell(r, "wait") + " " + way;
                }
            }
            if (Double.isNaN(mpi)) mpi = csv.number(r, "mpi_tcp_gbps");
        }
        if (Double.isNaN(mpi) || mpi <= 0) return TargetsCommand.Measure.none("no MPI ping-pong figure (mpicc or mpirun missing)");
        if (Double.isNaN(best)) return TargetsCommand.Measure.none("no DSA figure");
        return new TargetsCommand.Measure(best / mpi, f(best) + " GB/s (" + how + ") / " + f(mpi) + " GB/s");
    }

    /**
     * The 8 KiB miss one at a time under {@code wait}, MAC, over a peer's round trip of the same size ({@code peerColumn}),
     * as a ratio of times (the inverse of the bandwidths), from stream.csv.
     */
    static TargetsCommand.Measure missTime(Path dir, String wait, String peerColumn, String peer) throws IOException {
        Csv csv = Csv.read(dir.resolve("stream.csv"));
        List<String[]> rows = csv.where("bytes", "8192", "security", "MAC", "wait", wait);
        if (rows.isEmpty()) return TargetsCommand.Measure.none("no 8 KiB MAC " + wait + " row");
        double dsa = csv.number(rows.get(0), "dsa_one_gbps");
        double other = csv.number(rows.get(0), peerColumn);
        if (Double.isNaN(other) || other <= 0) return TargetsCommand.Measure.none("no " + peer + " figure");
        if (Double.isNaN(dsa) || dsa <= 0) return TargetsCommand.Measure.none("no DSA figure");
        return new TargetsCommand.Measure(other / dsa, String.format(Locale.ROOT, "%s us / %s us", f(8192 / dsa / 1e3),
                f(8192 / other / 1e3)));
    }

    /** {@code shared<Kind>} over {@code plain<Kind>} ("Read" or "Write"), ns per operation, from hits.csv. */
    static TargetsCommand.Measure hit(Path dir, String kind) throws IOException {
        Csv csv = Csv.read(dir.resolve("hits.csv"));
        List<String[]> shared = csv.where("benchmark", "shared" + kind);
        List<String[]> plain = csv.where("benchmark", "plain" + kind);
        if (shared.isEmpty() || plain.isEmpty()) return TargetsCommand.Measure.none("no shared" + kind + " or plain" + kind + " row");
        double s = csv.number(shared.get(0), "ns_per_op");
        double p = csv.number(plain.get(0), "ns_per_op");
        return new TargetsCommand.Measure(s / p, f(s) + " / " + f(p) + " ns");
    }

    /** The larger of the shared read's and write's allocation per operation, from hits.csv. */
    static TargetsCommand.Measure hitAllocation(Path dir) throws IOException {
        Csv csv = Csv.read(dir.resolve("hits.csv"));
        double most = Double.NaN;
        for (String kind : List.of("sharedRead", "sharedWrite")) {
            for (String[] r : csv.where("benchmark", kind)) {
                double b = csv.number(r, "alloc_bytes_per_op");
                if (!Double.isNaN(b)) most = Double.isNaN(most) ? b : Math.max(most, b);
            }
        }
        if (Double.isNaN(most)) return TargetsCommand.Measure.none("no allocation figure (the GC profiler did not report)");
        return new TargetsCommand.Measure(most, f(most) + " B/op");
    }

    /** The best warm DSA time over the partitions tried, over the best MPI + C time, from fft.csv or lu.csv. */
    static TargetsCommand.Measure bestWarm(Path dir, String file) throws IOException {
        Csv csv = Csv.read(dir.resolve(file));
        double dsa = Double.NaN;
        String at = "";
        for (String[] r : csv.where("kind", "dsa-warm", "nodes", "2", "threads", "1")) {
            double v = csv.number(r, "seconds");
            if (!Double.isNaN(v) && (Double.isNaN(dsa) || v < dsa)) {
                dsa = v;
                at = csv.cell(r, "partition");
            }
        }
        double mpi = csv.where("kind", "mpi").stream().mapToDouble(r -> csv.number(r, "seconds")).filter(v -> !Double.isNaN(v))
                .min().orElse(Double.NaN);
        if (Double.isNaN(dsa)) return TargetsCommand.Measure.none("no warm DSA row");
        if (Double.isNaN(mpi)) return TargetsCommand.Measure.none("no MPI + C row (mpicc missing)");
        return new TargetsCommand.Measure(dsa / mpi, f(dsa) + " s (partition " + at + ") / " + f(mpi) + " s");
    }

    /** NPB CG S warm on {@code nodes x threads} over sequential Java of the same run, from cg.csv. */
    static TargetsCommand.Measure cg(Path dir, int nodes, int threads) throws IOException {
        Csv csv = Csv.read(dir.resolve("cg.csv"));
        List<String[]> warm = csv.where("kind", "dsa-warm", "nodes", Integer.toString(nodes), "threads", Integer.toString(threads));
        List<String[]> seq = csv.where("kind", "seq");
        if (warm.isEmpty() || seq.isEmpty()) return TargetsCommand.Measure.none("no warm " + nodes + "x" + threads + " or sequential row");
        double d = csv.number(warm.get(0), "seconds");
        double s = csv.number(seq.get(0), "seconds");
        return new TargetsCommand.Measure(d / s, f(d) + " / " + f(s) + " s");
    }

    /** An owner-computes kernel on a scope's arrays over the same loop on plain arrays (JMH), from scopes-kernels.csv. */
    static TargetsCommand.Measure kernel(Path dir, String kernel) throws IOException {
        Path file = dir.resolve("scopes-kernels.csv");
        if (!Files.exists(file)) return TargetsCommand.Measure.none("no scopes-kernels.csv (the JMH run of the kernels did not run)");
        Csv csv = Csv.read(file);
        List<String[]> rows = csv.where("kernel", kernel);
        if (rows.isEmpty()) return TargetsCommand.Measure.none("no " + kernel + " row");
        double scoped = csv.number(rows.get(0), "scoped_us");
        double plain = csv.number(rows.get(0), "plain_us");
        return new TargetsCommand.Measure(scoped / plain, f(scoped) + " / " + f(plain) + " us");
    }

    /** {@code example}'s scoped run in one job over its {@code peer} ("seq" or "mpi") of the same run, from scopes.csv. */
    static TargetsCommand.Measure scoped(Path dir, String example, String peer) throws IOException {
        Csv csv = Csv.read(dir.resolve("scopes.csv"));
        List<String[]> job = csv.where("example", example, "kind", "scoped-job");
        List<String[]> other = csv.where("example", example, "kind", peer);
        if (job.isEmpty()) return TargetsCommand.Measure.none("no " + example + " scoped-job row");
        if (other.isEmpty()) return TargetsCommand.Measure.none("no " + example + " " + peer + " row" + (peer.equals("mpi") ? " (mpicc missing)" : ""));
        double d = csv.number(job.get(0), "seconds");
        double o = csv.number(other.get(0), "seconds");
        return new TargetsCommand.Measure(d / o, f(d) + " / " + f(o) + " s");
    }
}
