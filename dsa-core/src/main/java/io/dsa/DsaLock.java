package io.dsa;

/**
 * A VM-wide mutual exclusion lock. Shared-array writes made before {@link #unlock()} are
 * visible to the next holder after {@link #lock()}. Not reentrant.
 */
public interface DsaLock {
    /** Blocks until this worker holds the lock. @throws DsaException if the job failed */
    void lock();

    /** Releases the lock. @throws DsaException if the caller's node does not hold it */
    void unlock();
}
