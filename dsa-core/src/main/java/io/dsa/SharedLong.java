package io.dsa;

/**
 * A shared {@code long} variable (the paper's SharedPmtVar). It lives at a home node; every
 * operation executes atomically there, so operations from all nodes are linearizable.
 */
public interface SharedLong {
    /** @return the variable's name */
    String name();

    /** @return the current value */
    long get();

    /** Sets the value. */
    void set(long value);

    /** Atomically adds {@code delta}. @return the value before */
    long getAndAdd(long delta);

    /** Atomically sets {@code update} if the value equals {@code expect} (bitwise for floating point). @return whether it did */
    boolean compareAndSet(long expect, long update);

    /**
     * Atomically replaces the value {@code v} by {@code op.apply(v, value)} at the variable's home
     * (for example {@code accumulate(x, ReduceOp.MAX)} keeps the largest value offered).
     * One request and one reply; blocks the calling thread until the home has applied it.
     *
     * @return the value before the operation
     */
    long accumulate(long value, ReduceOp op);
}
