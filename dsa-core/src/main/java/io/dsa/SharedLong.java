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
}
