package io.dsa.agent.internal;

import io.dsa.agent.wire.DiffMessage;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One node's buffered writes of one array while a release scope over it is open (docs/consistency.md,
 * "Release"): per partition written, the new values in the partition's own layout (little-endian
 * bytes, row-major) and one mark byte per element. The node's workers write disjoint elements at
 * the same time without a lock: each stores its value and then its own mark byte (a byte per
 * element, so no two workers share a word that one could overwrite with a stale copy), and
 * {@link #diffs} reads them all after every worker of the node has closed the scope. A
 * partition's buffer is made on its first write; the first of two racing makers wins. The buffer
 * outlives its scope, cleared ({@link #clear}), for the array's next release scope.
 * Thread-safe as described; the typed arrays read and write {@link Part#values} through their views.
 */
final class ReleaseBuffer {
    private static final VarHandle PARTS = MethodHandles.arrayElementVarHandle(Part[].class);
    private static final VarHandle MARKS = MethodHandles.arrayElementVarHandle(byte[].class);

    /** One partition's buffered values and marks. */
    static final class Part {
        /** The written values where marked, in the partition's layout. */
        final byte[] values;
        /** One byte per element: 1 once a worker of this node wrote it in the scope. */
        private final byte[] marks;

        Part(int elements, int elementBytes) {
            this.values = new byte[elements * elementBytes];
            this.marks = new byte[elements];
        }

        /** Marks element {@code element} written; after its value is stored (release: a reader that sees the mark sees the value). */
        void mark(int element) { MARKS.setRelease(marks, element, (byte) 1); }

        /** @return whether element {@code element} was written in the scope by this node */
        boolean marked(int element) { return (byte) MARKS.getAcquire(marks, element) != 0; }
    }

    private final ArrayState array;
    private final Part[] parts;

    ReleaseBuffer(ArrayState array) {
        this.array = array;
        this.parts = new Part[array.slots.length];
    }

    /** @return partition {@code p}'s buffer, made if this is its first write */
    Part part(int p) {
        Part part = (Part) PARTS.getAcquire(parts, p);
        if (part != null) return part;
        Part made = new Part(array.layout.partitionElements(p), array.spec.elementType().bytes());
        Part won = (Part) PARTS.compareAndExchange(parts, p, null, made);
        return won == null ? made : won;
    }

    /** @return partition {@code p}'s buffer, or null if this node has not written it in the scope */
    Part written(int p) { return (Part) PARTS.getAcquire(parts, p); }

    /**
     * Forgets every write, keeping the partitions' buffers for the next release scope over the
     * array (a phase loop opens one per iteration). Only once the diffs have been written.
     */
    void clear() {
        for (Part part : parts) if (part != null) Arrays.fill(part.marks, (byte) 0);
    }

    /** A partition's changes: the runs of written elements ({@link DiffMessage#run}) and their values one after another. */
    record Diff(int partition, long[] runs, byte[] values) {}

    /**
     * @return the changes of every partition this node wrote in the scope, one per partition with
     *         at least one element written, in partition order. Only once every worker of the node
     *         has closed the scope (nothing writes the buffer any more).
     */
    List<Diff> diffs() {
        int size = array.spec.elementType().bytes();
        List<Diff> diffs = new ArrayList<>();
        for (int p = 0; p < parts.length; p++) {
            Part part = written(p);
            if (part == null) continue;
            int n = part.marks.length;
            int runs = 0;
            int elements = 0;
            for (int e = 0; e < n; e++) {
                if (part.marks[e] == 0) continue;
                if (e == 0 || part.marks[e - 1] == 0) runs++;
                elements++;
            }
            if (runs == 0) continue;
            long[] r = new long[runs];
            byte[] values = new byte[elements * size];
            int k = 0;
            int v = 0;
            for (int e = 0; e < n; ) {
                if (part.marks[e] == 0) {
                    e++;
                    continue;
                }
                int first = e;
                while (e < n && part.marks[e] != 0) e++;
                r[k++] = DiffMessage.run(first, e - first);
                System.arraycopy(part.values, first * size, values, v, (e - first) * size);
                v += (e - first) * size;
            }
            diffs.add(new Diff(p, r, values));
        }
        return diffs;
    }
}
