package io.dsa.agent.internal;

import io.dsa.ElementType;
import io.dsa.ReduceOp;
import io.dsa.agent.wire.DiffMessage;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One node's buffered writes of one array while a release scope over it is open (docs/consistency.md,
 * "Release"), or its combined accumulates while an accumulate scope is ({@link #op} not null,
 * "Accumulate"): per partition written, the new values in the partition's own layout (little-endian
 * bytes, row-major) and one mark byte per element. The node's workers write disjoint elements at
 * the same time without a lock: each stores its value and then its own mark byte (a byte per
 * element, so no two workers share a word that one could overwrite with a stale copy), and
 * {@link #diffs} reads them all after every worker of the node has closed the scope. A
 * partition's buffer is made on its first write; the first of two racing makers wins. The buffer
 * outlives its scope, cleared ({@link #clear}), for the array's next release scope.
 * An accumulate buffer's values start at the op's identity, and workers combine into them with a
 * compare-and-set per element ({@link #combine}), so workers of one node may accumulate into the
 * same element at once; its diffs carry the combined values, which the home combines with the op.
 * Thread-safe as described; the typed arrays read and write {@link Part#values} through their views.
 */
final class ReleaseBuffer {
    private static final VarHandle PARTS = MethodHandles.arrayElementVarHandle(Part[].class);
    private static final VarHandle MARKS = MethodHandles.arrayElementVarHandle(byte[].class);
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    /** Eight marks read at once ({@link #scan}); a mark is 0 or 1. */
    private static final VarHandle MARK_WORDS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ALL_MARKED = 0x0101_0101_0101_0101L;

    /** One partition's buffered values and marks. */
    static final class Part {
        /** The written values where marked, in the partition's layout. */
        final byte[] values;
        /** One byte per element: 1 once a worker of this node wrote it in the scope. */
        private final byte[] marks;

        /** {@link #values} as a buffer of the element type (a {@code DoubleBuffer} for doubles...), for bulk writes of rows. */
        final java.nio.Buffer bulk;

        Part(int elements, ElementType type) {
            this.values = new byte[elements * type.bytes()];
            this.marks = new byte[elements];
            java.nio.ByteBuffer bytes = java.nio.ByteBuffer.wrap(values).order(ByteOrder.LITTLE_ENDIAN);
            this.bulk = switch (type) {
                case DOUBLE -> bytes.asDoubleBuffer();
                case FLOAT -> bytes.asFloatBuffer();
                case INT -> bytes.asIntBuffer();
                case LONG -> bytes.asLongBuffer();
            };
        }

        // Sets every element (marked == null) or every marked one to the op's identity.
        void fillIdentity(ElementType type, long identity, byte[] marked) {
            for (int e = 0; e < marks.length; e++) {
                if (marked != null && marked[e] == 0) continue;
                if (type.bytes() == Long.BYTES) LONGS.set(values, e * Long.BYTES, identity);
                else INTS.set(values, e * Integer.BYTES, (int) identity);
            }
        }

        /** Marks element {@code element} written; after its value is stored (release: a reader that sees the mark sees the value). */
        void mark(int element) { MARKS.setRelease(marks, element, (byte) 1); }

        /**
         * Marks written the {@code cols} elements from {@code base + r * width} of each of
         * {@code rows} rows, after their values were stored (through {@link #bulk}): one release
         * fence, then the marks, so a reader that sees a mark sees its value, as with {@link #mark}.
         */
        void markRows(int base, int width, int rows, int cols) {
            VarHandle.releaseFence();
            for (int r = 0; r < rows; r++) Arrays.fill(marks, base + r * width, base + r * width + cols, (byte) 1);
        }

        /** @return whether element {@code element} was written in the scope by this node */
        boolean marked(int element) { return (byte) MARKS.getAcquire(marks, element) != 0; }
    }

    private final ArrayState array;
    private final Part[] parts;
    /** An accumulate scope's op, or null for a release scope's buffer. */
    final ReduceOp op;
    /** The raw bits of the op's identity in the element type (a float's or int's in the low 32 bits). */
    private final long identity;

    ReleaseBuffer(ArrayState array) {
        this(array, null);
    }

    ReleaseBuffer(ArrayState array, ReduceOp op) {
        this.array = array;
        this.parts = new Part[array.slots.length];
        this.op = op;
        this.identity = op == null ? 0 : identityBits(array.spec.elementType(), op);
    }

    /** @return partition {@code p}'s buffer, made if this is its first write */
    Part part(int p) {
        Part part = (Part) PARTS.getAcquire(parts, p);
        if (part != null) return part;
        Part made = new Part(array.layout.partitionElements(p), array.spec.elementType());
        if (op != null) made.fillIdentity(array.spec.elementType(), identity, null);
        Part won = (Part) PARTS.compareAndExchange(parts, p, null, made);
        return won == null ? made : won;
    }

    /**
     * Combines {@code value} (a double's, float's, int's or long's raw bits as the array's element
     * type has them, a float's or int's in the low 32 bits) into element {@code element} of
     * partition {@code p} with {@link #op}, and marks it: a compare-and-set loop, so that workers
     * of the node may combine into one element at once. Allocates only a partition's first time.
     */
    void combine(int p, int element, long value) {
        Part part = part(p);
        ElementType type = array.spec.elementType();
        if (type.bytes() == Long.BYTES) {
            int at = element * Long.BYTES;
            long old;
            do {
                old = (long) LONGS.getVolatile(part.values, at);
            } while (!LONGS.compareAndSet(part.values, at, old, combined(type, old, value)));
        } else {
            int at = element * Integer.BYTES;
            int old;
            do {
                old = (int) INTS.getVolatile(part.values, at);
            } while (!INTS.compareAndSet(part.values, at, old, (int) combined(type, old, value)));
        }
        part.mark(element);
    }

    // op(old, value) on the raw bits of the element type; a float in double, rounded once; an int in long, truncated
    private long combined(ElementType type, long old, long value) {
        return switch (type) {
            case DOUBLE -> Double.doubleToRawLongBits(op.apply(Double.longBitsToDouble(old), Double.longBitsToDouble(value)));
            case FLOAT -> Float.floatToRawIntBits((float) op.apply((double) Float.intBitsToFloat((int) old),
                    (double) Float.intBitsToFloat((int) value))) & 0xFFFF_FFFFL;
            case INT -> (int) op.apply((long) (int) old, (long) (int) value) & 0xFFFF_FFFFL;
            case LONG -> op.apply(old, value);
        };
    }

    /**
     * @return the raw bits of {@code op}'s identity for elements of {@code type}: the value {@code e}
     *         with {@code op(e, x) == x} for every {@code x} (SUM's is -0.0 for floating point, whose
     *         +0.0 would turn a -0.0 into +0.0)
     */
    static long identityBits(ElementType type, ReduceOp op) {
        boolean wide = type.bytes() == Long.BYTES;
        return switch (type) {
            case DOUBLE -> Double.doubleToRawLongBits(switch (op) {
                case SUM -> -0.0;
                case PROD -> 1.0;
                case MIN -> Double.POSITIVE_INFINITY;
                case MAX -> Double.NEGATIVE_INFINITY;
                default -> throw new IllegalArgumentException("reduce op " + op + " does not apply to " + type + " elements");
            });
            case FLOAT -> Float.floatToRawIntBits(switch (op) {
                case SUM -> -0.0f;
                case PROD -> 1.0f;
                case MIN -> Float.POSITIVE_INFINITY;
                case MAX -> Float.NEGATIVE_INFINITY;
                default -> throw new IllegalArgumentException("reduce op " + op + " does not apply to " + type + " elements");
            }) & 0xFFFF_FFFFL;
            case INT, LONG -> {
                long v = switch (op) {
                    case SUM, OR, XOR -> 0;
                    case PROD -> 1;
                    case AND -> -1;
                    case MIN -> wide ? Long.MAX_VALUE : Integer.MAX_VALUE;
                    case MAX -> wide ? Long.MIN_VALUE : Integer.MIN_VALUE;
                };
                yield wide ? v : v & 0xFFFF_FFFFL;
            }
        };
    }

    /** @return partition {@code p}'s buffer, or null if this node has not written it in the scope */
    Part written(int p) { return (Part) PARTS.getAcquire(parts, p); }

    /**
     * Forgets every write, keeping the partitions' buffers for the next release scope over the
     * array (a phase loop opens one per iteration). Only once the diffs have been written.
     */
    void clear() {
        for (Part part : parts) {
            if (part == null) continue;
            if (op != null) part.fillIdentity(array.spec.elementType(), identity, part.marks);
            Arrays.fill(part.marks, (byte) 0);
        }
    }

    /**
     * @return the first element from {@code from} whose mark is set ({@code marked}) or clear, or
     *         {@code marks.length}: eight marks at a time while none is the one looked for (a
     *         partition's marks are mostly long runs of one kind)
     */
    static int scan(byte[] marks, int from, boolean marked) {
        long other = marked ? 0 : ALL_MARKED;
        int e = from;
        while (e + Long.BYTES <= marks.length && (long) MARK_WORDS.get(marks, e) == other) e += Long.BYTES;
        while (e < marks.length && (marks[e] != 0) != marked) e++;
        return e;
    }

    /**
     * A partition's changes: the runs of written elements ({@link DiffMessage#run}) and their
     * values, one run after another ({@link #diffs}), or the partition's whole buffer with each
     * run's values at its own elements ({@code scattered}, {@link #scatteredDiffs}).
     */
    record Diff(int partition, long[] runs, byte[] values, boolean scattered) {
        Diff(int partition, long[] runs, byte[] values) {
            this(partition, runs, values, false);
        }
    }

    /**
     * @return the changes of every partition this node wrote in the scope, one per partition with
     *         at least one element written, in partition order, their values packed. Only once
     *         every worker of the node has closed the scope (nothing writes the buffer any more).
     */
    List<Diff> diffs() {
        int size = array.spec.elementType().bytes();
        List<Diff> diffs = new ArrayList<>();
        for (int p = 0; p < parts.length; p++) {
            Part part = written(p);
            if (part == null) continue;
            long[] runs = runs(part.marks);
            if (runs.length == 0) continue;
            int elements = 0;
            for (long run : runs) elements += DiffMessage.count(run);
            byte[] values = new byte[elements * size];
            int v = 0;
            for (long run : runs) {
                System.arraycopy(part.values, DiffMessage.first(run) * size, values, v, DiffMessage.count(run) * size);
                v += DiffMessage.count(run) * size;
            }
            diffs.add(new Diff(p, runs, values));
        }
        return diffs;
    }

    /**
     * {@link #diffs} without copying the values: each diff's values are its partition's buffer
     * ({@link Part#values}), valid until {@link #clear}, which the caller must not call before
     * every diff has been sent or written. Only once every worker of the node has closed the scope.
     */
    List<Diff> scatteredDiffs() {
        List<Diff> diffs = new ArrayList<>();
        for (int p = 0; p < parts.length; p++) {
            Part part = written(p);
            if (part == null) continue;
            long[] runs = runs(part.marks);
            if (runs.length > 0) diffs.add(new Diff(p, runs, part.values, true));
        }
        return diffs;
    }

    // The runs of marked elements, in order: two scans, one to count them and one to fill them in.
    private static long[] runs(byte[] marks) {
        int n = marks.length;
        int count = 0;
        for (int e = scan(marks, 0, true); e < n; e = scan(marks, scan(marks, e, false), true)) count++;
        long[] runs = new long[count];
        int k = 0;
        for (int e = scan(marks, 0, true); e < n; ) {
            int end = scan(marks, e, false);
            runs[k++] = DiffMessage.run(e, end - e);
            e = scan(marks, end, true);
        }
        return runs;
    }
}
