package io.dsa;

/**
 * A VM-wide mutual exclusion lock. Shared-array writes made before {@link #unlock()} are
 * visible to the next holder after {@link #lock()}. Not reentrant.
 */
public interface DsaLock {
    /** Blocks until this worker holds the lock. @throws DsaException if the job failed */
    void lock();

    /**
     * Waits at most {@code timeout} for the lock. A request that times out is withdrawn at the
     * lock's home, so the lock is never granted to a worker that stopped waiting.
     *
     * @param timeout how long to wait; zero or less tries once without waiting for other holders
     * @param unit the unit of {@code timeout}
     * @return true if this worker now holds the lock (release it with {@link #unlock()}), false if
     *     the time ran out
     * @throws DsaException if the job failed
     */
    boolean tryLock(long timeout, java.util.concurrent.TimeUnit unit);

    /** Releases the lock. @throws DsaException if the caller's node does not hold it */
    void unlock();
}
