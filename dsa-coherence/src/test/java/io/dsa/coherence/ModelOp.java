package io.dsa.coherence;

import java.util.ArrayList;
import java.util.List;

/**
 * One step of a worker in the {@link ClusterModel}: a read ({@code R<p>}) or write ({@code W<p>}) of
 * a partition's elements, an overwrite ({@code O<p>}), an update that travels to the home
 * ({@code D<p>.<e>}, {@code A<p>.<e>}), or the entry ({@code E<p>}) and exit ({@code X<p>}) of an
 * owner-computes scope over a partition the worker's node homes.
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
 * <p>An owner-computes scope is what dsa-agent's {@code Scopes} does for its home partitions
 * (docs/consistency.md, "Scopes"): at entry the node takes its home partition (asks its engine
 * for READ_WRITE, which invalidates the other copies or recalls the exclusive one) and copies it
 * into the worker's plain array, which must then hold the last write; the worker computes there,
 * unseen by the protocol, while the engine goes on serving requests (one sent before the scope, or
 * a push, may take a copy of the data as it was); at exit the node takes the partition again and
 * copies the plain array back, a new value in every element, which is the op's write.
 * {@link ScopeFault} names the bugs this can have.
 *
 * @param kind {@code 'R'}, {@code 'W'}, {@code 'O'}, {@code 'D'}, {@code 'A'}, {@code 'E'} or {@code 'X'}
 * @param element the element an update changes (0 or 1); 0 for the other kinds, which touch every element
 */
record ModelOp(char kind, int partition, int element) {
    ModelOp {
        if ("RWODAEX".indexOf(kind) < 0) throw new IllegalArgumentException("op kind " + kind + ": expected one of R, W, O, D, A, E, X");
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
            if ("RWODAEX".indexOf(k) < 0) {
                throw new IllegalArgumentException("op " + s + ": expected R<partition>, W<partition>, O<partition>,"
                        + " D<partition>.<element>, A<partition>.<element>, E<partition> or X<partition>");
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

    /** @return whether this op enters or exits an owner-computes scope */
    boolean scope() { return kind == 'E' || kind == 'X'; }

    /** The access a read, write, overwrite, scope entry or exit needs at the worker's node (an update needs none there). */
    Access needed() { return write() || scope() ? Access.READ_WRITE : Access.READ; }

    @Override
    public String toString() { return update() ? kind + "" + partition + "." + element : kind + "" + partition; }
}
