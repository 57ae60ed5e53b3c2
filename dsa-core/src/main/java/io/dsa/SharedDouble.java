package io.dsa;

/**
 * A shared {@code double} variable (the paper's SharedPmtVar). It lives at a home node; every
 * operation executes atomically there, so operations from all nodes are linearizable.
 */
public interface SharedDouble {
    /** @return the variable's name */
    String name();

    /** @return the current value */
    double get();

    /** Sets the value. */
    void set(double value);

    /** Atomically adds {@code delta}. @return the value before */
    double getAndAdd(double delta);

    /** Atomically sets {@code update} if the value equals {@code expect} (bitwise for floating point). @return whether it did */
    boolean compareAndSet(double expect, double update);
}
