package io.dsa.coherence;

import java.util.ArrayList;
import java.util.List;

/**
 * One read or write of a partition by a worker; an overwrite ({@code O<p>}) is a write of every
 * byte, asked for with {@link CoherenceEngine#requestOverwrite}, as a region write that covers
 * the partition does: the worker hands its value to the node's store when it misses, and the
 * store writes it at the grant that comes without data ({@code ClusterModel.Store#overwrite}),
 * which completes the op; a worker whose value the store did not take writes it itself once it
 * has the access.
 */
record ModelOp(boolean write, int partition, boolean overwrite) {
    ModelOp(boolean write, int partition) {
        this(write, partition, false);
    }

    static List<ModelOp> parse(String ops) {
        List<ModelOp> list = new ArrayList<>();
        for (String s : ops.trim().split("\\s+")) {
            if (s.isEmpty()) continue;
            char k = s.charAt(0);
            if (k != 'R' && k != 'W' && k != 'O') {
                throw new IllegalArgumentException("op " + s + ": expected R<partition>, W<partition> or O<partition>");
            }
            list.add(new ModelOp(k != 'R', Integer.parseInt(s.substring(1)), k == 'O'));
        }
        return list;
    }

    Access needed() { return write ? Access.READ_WRITE : Access.READ; }

    @Override
    public String toString() { return (overwrite ? "O" : write ? "W" : "R") + partition; }
}
