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
 * </ul>
 */
public final class ArrayUse {
    /** The behaviours a scope can name for an array. */
    public enum Behaviour {
        /** Plain arrays of the node's home partitions; nothing else touches the array. */
        OWNER_COMPUTES,
        /** Every partition cached everywhere at entry; read-only inside. */
        READ_CACHE
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

    /** @return the array */
    public SharedArray array() { return array; }

    /** @return how the scope uses it */
    public Behaviour behaviour() { return behaviour; }

    @Override
    public String toString() {
        return (behaviour == Behaviour.OWNER_COMPUTES ? "ownerComputes" : "readCache") + "('" + array.name() + "')";
    }
}
