package io.dsa;

/**
 * A shared {@code int} variable (the paper's SharedPmtVar). It lives at a home node; every
 * operation executes atomically there, so operations from all nodes are linearizable.
 */
public interface SharedInteger {
    /** @return the variable's name */
    String name();

    /** @return the current value */
    int get();

    /** Sets the value. */
    void set(int value);

    /** Atomically adds {@code delta}. @return the value before */
    int getAndAdd(int delta);

    /** Atomically sets {@code update} if the value equals {@code expect} (bitwise for floating point). @return whether it did */
    boolean compareAndSet(int expect, int update);

    /**
     * Atomically replaces the value {@code v} by {@code op.apply(v, value)} at the variable's home
     * (for example {@code accumulate(x, ReduceOp.MAX)} keeps the largest value offered).
     * One request and one reply; blocks the calling thread until the home has applied it.
     *
     * @return the value before the operation
     */
    int accumulate(int value, ReduceOp op);
}
