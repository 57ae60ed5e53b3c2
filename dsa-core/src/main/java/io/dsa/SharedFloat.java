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

    /**
     * Atomically replaces the value {@code v} by {@code op.apply(v, value)} at the variable's home
     * (for example {@code accumulate(x, ReduceOp.MAX)} keeps the largest value offered). {@code AND}, {@code OR} and {@code XOR} are not
     * defined for floating point and throw a {@link DsaException} without changing the value.
     * One request and one reply; blocks the calling thread until the home has applied it.
     *
     * @return the value before the operation
     */
    float accumulate(float value, ReduceOp op);
}
