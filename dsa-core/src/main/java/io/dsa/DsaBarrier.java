package io.dsa;

/** A barrier, the paper's {@code barrier()}. Thread-safe. */
public interface DsaBarrier {
    /**
     * Blocks until {@link #parties()} workers have arrived.
     *
     * @throws DsaException if the job failed while waiting
     */
    void await();

    /** @return the number of workers that must arrive to release the barrier */
    int parties();
}
