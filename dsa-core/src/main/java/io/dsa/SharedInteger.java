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
}
