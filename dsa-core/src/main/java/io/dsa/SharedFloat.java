package io.dsa;

/**
 * A shared {@code float} variable (the paper's SharedPmtVar). It lives at a home node; every
 * operation executes atomically there, so operations from all nodes are linearizable.
 */
public interface SharedFloat {
    /** @return the variable's name */
    String name();

    /** @return the current value */
    float get();

    /** Sets the value. */
    void set(float value);

    /** Atomically adds {@code delta}. @return the value before */
    float getAndAdd(float delta);

    /** Atomically sets {@code update} if the value equals {@code expect} (bitwise for floating point). @return whether it did */
    boolean compareAndSet(float expect, float update);
}
