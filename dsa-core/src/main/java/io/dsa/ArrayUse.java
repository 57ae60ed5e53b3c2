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
 *   <li>{@link #readCache}: at entry every partition is brought to every node, all requests in
 *       flight together; reads inside are local hits, a write fails.</li>
 *   <li>{@link #release}: writes go to a buffer of the writer's node, never demanding the data in;
 *       several nodes may write disjoint elements of one partition; at exit the changes travel to
 *       the homes as diffs, applied before the scope's closing synchronisation completes.</li>
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
        RELEASE
    }

    private final SharedArray array;
    private final Behaviour behaviour;

    private ArrayUse(SharedArray array, Behaviour behaviour) {
        this.array = Objects.requireNonNull(array, "array");
        this.behaviour = behaviour;
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

    /** @return the array */
    public SharedArray array() { return array; }

    /** @return how the scope uses it */
    public Behaviour behaviour() { return behaviour; }

    @Override
    public String toString() {
        String use = switch (behaviour) {
            case OWNER_COMPUTES -> "ownerComputes";
            case READ_CACHE -> "readCache";
            case RELEASE -> "release";
        };
        return use + "('" + array.name() + "')";
    }
}
