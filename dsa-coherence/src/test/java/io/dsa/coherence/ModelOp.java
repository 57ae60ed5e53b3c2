package io.dsa.coherence;

import java.util.ArrayList;
import java.util.List;

/**
 * One step of a worker in the {@link ClusterModel}: a read ({@code R<p>}) or write ({@code W<p>}) of
 * a partition's elements, an overwrite ({@code O<p>}), or an update that travels to the home
 * ({@code D<p>.<e>}, {@code A<p>.<e>}).
 *
 * <p>An overwrite is a write of every byte, asked for with {@link CoherenceEngine#requestOverwrite},
 * as a region write that covers the partition does: the worker hands its value to the node's store
 * when it misses, and the store writes it at the grant that comes without data
 * ({@code ClusterModel.Store#overwrite}), which completes the op; a worker whose value the store
 * did not take writes it itself once it has the access.
 *
 * <p>An update is what a scope sends to a partition's home instead of taking the partition
 * (dsa-agent's {@code Diffs} and {@code Accumulator}; docs/consistency.md): {@code D} is the diff of
 * a release scope that wrote element {@code e} alone, {@code A} an accumulate (SUM) into element
 * {@code e}, from a scope's closing or a plain {@code accumulate} call. The worker sends it and
 * waits for the home's answer ({@link UpdateModel}).
 *
 * @param kind {@code 'R'}, {@code 'W'}, {@code 'O'}, {@code 'D'} or {@code 'A'}
 * @param element the element an update changes (0 or 1); 0 for the other kinds, which touch every element
 */
record ModelOp(char kind, int partition, int element) {
    ModelOp {
        if ("RWODA".indexOf(kind) < 0) throw new IllegalArgumentException("op kind " + kind + ": expected one of R, W, O, D, A");
        if (element < 0 || element >= ClusterModel.ELEMENTS) {
            throw new IllegalArgumentException("element " + element + " out of range [0, " + ClusterModel.ELEMENTS + ")");
        }
    }

    ModelOp(boolean write, int partition) {
        this(write ? 'W' : 'R', partition, 0);
    }

    static List<ModelOp> parse(String ops) {
        List<ModelOp> list = new ArrayList<>();
        for (String s : ops.trim().split("\\s+")) {
            if (s.isEmpty()) continue;
            char k = s.charAt(0);
            if ("RWODA".indexOf(k) < 0) {
                throw new IllegalArgumentException("op " + s + ": expected R<partition>, W<partition>, O<partition>,"
                        + " D<partition>.<element> or A<partition>.<element>");
            }
            boolean update = k == 'D' || k == 'A';
            int dot = s.indexOf('.');
            if (update != (dot > 0)) {
                throw new IllegalArgumentException("op " + s + ": " + (update ? "an update names its element, e.g. " + k + "0.1"
                        : "only D and A name an element"));
            }
            try {
                list.add(update ? new ModelOp(k, Integer.parseInt(s.substring(1, dot)), Integer.parseInt(s.substring(dot + 1)))
                        : new ModelOp(k, Integer.parseInt(s.substring(1)), 0));
            } catch (IllegalArgumentException e) {   // a number that is not one, or an element out of range
                throw new IllegalArgumentException("op " + s + ": " + e.getMessage(), e);
            }
        }
        return list;
    }

    /** @return whether this op writes the partition through the protocol (a write or an overwrite) */
    boolean write() { return kind == 'W' || kind == 'O'; }

    boolean overwrite() { return kind == 'O'; }

    /** @return whether this op travels to the home as an update (a diff or an accumulate) */
    boolean update() { return kind == 'D' || kind == 'A'; }

    /** The access a read, write or overwrite needs at the worker's node (an update needs none there). */
    Access needed() { return write() ? Access.READ_WRITE : Access.READ; }

    @Override
    public String toString() { return update() ? kind + "" + partition + "." + element : kind + "" + partition; }
}
