package io.dsa;

import java.util.Objects;

/**
 * How one shared array is used inside a {@link DsaScope}: the behaviour a phase of the program
 * names for it, from which the runtime picks the protocol (the Aurora idea: per object and per
 * phase). Outside every scope an array is coherent as usual (docs/consistency.md). Immutable.
 *
 * <ul>
 *   <li>{@link #ownerComputes}: each node works on plain Java arrays that are its home partitions
 *       ({@link DsaScope#local}); any other access to the array inside the scope fails.</li>
 *   <li>{@link #readCache}: at entry every partition (or those of a region) is brought to every
 *       node, all requests in flight together; reads inside are local hits, a write fails.</li>
 *   <li>{@link #release}: writes go to a buffer of the writer's node, never demanding the data in;
 *       several nodes may write disjoint elements of one partition; at exit the changes travel to
 *       the homes as diffs, applied before the scope's closing synchronisation completes.</li>
 *   <li>{@link #accumulate}: {@code accumulate} calls with the scope's op combine into a buffer of
 *       the caller's node, without a message; at exit each node's combined updates travel to the
 *       homes, which combine them into the array with the op. Reads and writes fail inside.</li>
 * </ul>
 */
public final class ArrayUse {
    /** The behaviours a scope can name for an array. */
    public enum Behaviour {
        /** Plain arrays of the node's home partitions; nothing else touches the array. */
        OWNER_COMPUTES,
        /** Every partition cached everywhere at entry; read-only inside. */
        READ_CACHE,
        /** Writes buffered at the writer's node (multi-writer) and sent to the homes as diffs at exit. */
        RELEASE,
        /** Accumulates with one op combined at the updater's node and at the homes at exit; nothing else inside. */
        ACCUMULATE
    }

    private final SharedArray array;
    private final Behaviour behaviour;
    /** A read cache's region {@code {row, col, rows, cols}}, or null for the whole array. */
    private final int[] region;
    /** An accumulate use's op, or null. */
    private final ReduceOp op;

    private ArrayUse(SharedArray array, Behaviour behaviour, int[] region, ReduceOp op) {
        this.array = Objects.requireNonNull(array, "array");
        this.behaviour = behaviour;
        this.region = region;
        this.op = op;
    }

    private ArrayUse(SharedArray array, Behaviour behaviour) {
        this(array, behaviour, null, null);
    }

    /**
     * Owner computes: inside the scope each node's workers get the node's home partitions of
     * {@code array} as plain Java arrays ({@link DsaScope#local}), updated in place at full speed
     * and written back at exit; any read, write, copy request or accumulate of {@code array}
     * inside the scope fails with an {@link IllegalStateException}.
     */
    public static ArrayUse ownerComputes(SharedArray array) {
        return new ArrayUse(array, Behaviour.OWNER_COMPUTES);
    }

    /**
     * Read cache: at entry every node gets a read copy of every partition of {@code array}, all
     * requested at once, so reads inside the scope never miss and nothing is invalidated; a write
     * (or accumulate) of {@code array} inside the scope fails with an {@link IllegalStateException}.
     */
    public static ArrayUse readCache(SharedArray array) {
        return new ArrayUse(array, Behaviour.READ_CACHE);
    }

    /**
     * Read cache of a region: like {@link #readCache(SharedArray)}, but at entry the node gets a
     * read copy of only the partitions that hold an element of the region of {@code rows x cols}
     * elements from {@code (row, col)} (all requested at once). Each worker may name its own
     * region (a stencil's rows and their halo): a node fetches the partitions of every region its
     * workers name. A read of an element outside those partitions inside the scope is a plain
     * coherent read (a miss fetches that partition's copy, one at a time); a write or accumulate
     * of {@code array} anywhere inside the scope fails with an {@link IllegalStateException}.
     * Workers name the same behaviour for the array, and may name different regions.
     *
     * @throws IllegalArgumentException if the region is empty or not inside the array (the
     *         message names the bad value and the array's shape)
     */
    public static ArrayUse readCache(SharedArray array, int row, int col, int rows, int cols) {
        ArrayLayout layout = Objects.requireNonNull(array, "array").layout();
        if (rows < 1 || cols < 1 || row < 0 || col < 0 || row > layout.rows() - rows || col > layout.cols() - cols) {
            throw new IllegalArgumentException("read cache region of " + rows + "x" + cols + " elements at (" + row + ", " + col
                    + ") is not a non-empty region inside array '" + array.name() + "' of " + layout.rows() + "x" + layout.cols()
                    + " elements (rows in [0, " + layout.rows() + "), cols in [0, " + layout.cols() + "))");
        }
        return new ArrayUse(array, Behaviour.READ_CACHE, new int[] {row, col, rows, cols}, null);
    }

    /**
     * Release consistency with buffered multi-writer updates (the Aurora paper's release
     * behaviour): inside the scope every write of {@code array} (element, region or partition
     * writes) goes to a buffer of the writer's node without demanding the data in or taking
     * ownership, so several nodes, and several workers of one node, may write disjoint elements of
     * one partition at the same time. A read of {@code array} inside the scope returns the value
     * the reader's node wrote in the scope if it wrote one, and otherwise the element as it was
     * before the scope (or as another node's diff applied meanwhile made it: reading an element
     * another node writes in the same scope is a race), through an ordinary read copy that this
     * node fetches if it has none; a read never takes ownership. When the scope closes, each node
     * sends its changes to the partitions' homes as diffs (runs of written elements with their
     * values, one message per partition, all in flight at once); each home applies them after
     * invalidating the cached copies, and the scope's closing synchronisation completes only
     * after every diff has been applied, so after it every worker reads every write. Two nodes
     * that write the same element in one scope race: the element ends with one of the values.
     * {@code acquirePartition} and {@code accumulate} of {@code array} inside the scope fail with
     * an {@link IllegalStateException}; {@code requestPartitionCopy} fetches a read copy.
     */
    public static ArrayUse release(SharedArray array) {
        return new ArrayUse(array, Behaviour.RELEASE);
    }

    /**
     * Accumulate (Global Arrays' {@code NGA_Acc} batched per phase): inside the scope every
     * {@code accumulate} of {@code array} with {@code op} (element or region, from any worker)
     * combines into a buffer of the caller's node, without a message and without demanding the
     * data in; workers of one node may accumulate into the same element at the same time. When
     * the scope closes, each node sends its combined updates to the partitions' homes (runs of
     * updated elements, one message per partition, all in flight at once), each home combines
     * them into the array with {@code op} after invalidating the cached copies, and the scope's
     * closing synchronisation completes only after every update has been combined: after it
     * every worker reads the result. Integer results, and MIN and MAX of any type, are exactly
     * those of the same accumulates made one by one; a floating-point SUM or PROD is combined in
     * a different grouping (per node first), so it may differ in the last bits, as any parallel
     * reduction does. Inside the scope a read, write, copy request or {@code acquirePartition} of
     * {@code array}, or an accumulate with another op, fails with an {@link IllegalStateException}.
     *
     * @throws IllegalArgumentException if {@code op} does not apply to the array's element type
     *         (the bitwise ops apply to INT and LONG arrays only)
     */
    public static ArrayUse accumulate(SharedArray array, ReduceOp op) {
        Objects.requireNonNull(op, "op");
        ElementType type = Objects.requireNonNull(array, "array").layout().spec().elementType();
        if (!op.appliesTo(type)) {
            throw new IllegalArgumentException("reduce op " + op + " does not apply to the " + type + " elements of array '"
                    + array.name() + "'; use SUM, MIN, MAX or PROD (AND, OR and XOR apply to INT and LONG arrays)");
        }
        return new ArrayUse(array, Behaviour.ACCUMULATE, null, op);
    }

    /** @return the array */
    public SharedArray array() { return array; }

    /** @return the op of an {@link #accumulate} use, or null for the other behaviours */
    public ReduceOp op() { return op; }

    /** @return how the scope uses it */
    public Behaviour behaviour() { return behaviour; }

    /**
     * @return the partitions this use brings in at entry, ascending: for a read cache of a
     *         region the partitions holding one of its elements; otherwise every partition
     */
    public int[] partitions() {
        ArrayLayout layout = array.layout();
        if (region == null) {
            int[] all = new int[layout.partitionCount()];
            for (int p = 0; p < all.length; p++) all[p] = p;
            return all;
        }
        int first = layout.partitionOf(region[0], region[1]);
        int last = layout.partitionOf(region[0] + region[2] - 1, region[1] + region[3] - 1);
        int gridCols = layout.partitionGridCols();
        int[] parts = new int[(last / gridCols - first / gridCols + 1) * (last % gridCols - first % gridCols + 1)];
        int k = 0;
        for (int gr = first / gridCols; gr <= last / gridCols; gr++) {
            for (int gc = first % gridCols; gc <= last % gridCols; gc++) parts[k++] = gr * gridCols + gc;
        }
        return parts;
    }

    /** @return whether this is a read cache of a region, not of the whole array */
    public boolean hasRegion() { return region != null; }

    @Override
    public String toString() {
        String use = switch (behaviour) {
            case OWNER_COMPUTES -> "ownerComputes";
            case READ_CACHE -> "readCache";
            case RELEASE -> "release";
            case ACCUMULATE -> "accumulate";
        };
        String where = region == null ? "" : ", " + region[0] + ", " + region[1] + ", " + region[2] + ", " + region[3];
        if (op != null) where = ", " + op;
        return use + "('" + array.name() + "'" + where + ")";
    }
}
