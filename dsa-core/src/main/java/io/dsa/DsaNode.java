package io.dsa;

import java.util.List;

/**
 * One node of the virtual machine, as seen by a program: creates shared objects and hands out
 * the node's barriers. Thread-safe.
 *
 * <p>Shared objects are created collectively and idempotently by name: every node makes the
 * same call; the first registers the object with the monitor, later calls return the same
 * object. A call whose shape or type differs from the registered one throws a
 * {@link DsaException} naming both. A new array holds zeros. An array is refused at creation
 * with a {@link DsaException} naming the sizes when one of its partitions is larger than the
 * runtime can send between nodes, or when the partitions homed at the calling node do not fit
 * that node's heap.
 */
public interface DsaNode {
    /** @return the shape of the virtual machine and this node's place in it */
    DsaNetwork network();

    /** @return the program arguments given to {@code dsa run} */
    List<String> args();

    /** 2-D array of doubles with square {@code partitionSize x partitionSize} partitions, block distributed. */
    SharedDoubleArray createSharedDoubleArray(String name, int rows, int cols, int partitionSize);

    /** 1-D array of doubles with partitions of {@code partitionSize} elements, block distributed. */
    SharedDoubleArray createSharedDoubleArray(String name, int length, int partitionSize);

    /** 2-D array of floats; see {@link #createSharedDoubleArray(String, int, int, int)}. */
    SharedFloatArray createSharedFloatArray(String name, int rows, int cols, int partitionSize);

    /** 1-D array of floats; see {@link #createSharedDoubleArray(String, int, int)}. */
    SharedFloatArray createSharedFloatArray(String name, int length, int partitionSize);

    /** 2-D array of ints; see {@link #createSharedDoubleArray(String, int, int, int)}. */
    SharedIntArray createSharedIntArray(String name, int rows, int cols, int partitionSize);

    /** 1-D array of ints; see {@link #createSharedDoubleArray(String, int, int)}. */
    SharedIntArray createSharedIntArray(String name, int length, int partitionSize);

    /** 2-D array of longs; see {@link #createSharedDoubleArray(String, int, int, int)}. */
    SharedLongArray createSharedLongArray(String name, int rows, int cols, int partitionSize);

    /** 1-D array of longs; see {@link #createSharedDoubleArray(String, int, int)}. */
    SharedLongArray createSharedLongArray(String name, int length, int partitionSize);

    /**
     * The general form: rectangular partitions, a distribution and an element type. The result
     * implements the typed interface of the spec's element type ({@link SharedDoubleArray} for
     * {@link ElementType#DOUBLE}, and so on).
     */
    SharedArray createSharedArray(ArraySpec spec);

    /** A shared double living at a home node; starts at {@code initial}. */
    SharedDouble createSharedDouble(String name, double initial);

    /** A shared long living at a home node; starts at {@code initial}. */
    SharedLong createSharedLong(String name, long initial);

    /** A shared int living at a home node; starts at {@code initial}. */
    SharedInteger createSharedInteger(String name, int initial);

    /** A shared float living at a home node; starts at {@code initial}. */
    SharedFloat createSharedFloat(String name, float initial);

    /** @return the barrier of all workers of the virtual machine */
    DsaBarrier globalBarrier();

    /** @return the barrier of the workers of this node */
    DsaBarrier localBarrier();

    /**
     * A VM-wide barrier for any group of {@code parties} workers.
     *
     * @throws DsaException if {@code name} exists with a different number of parties
     */
    DsaBarrier createBarrier(String name, int parties);

    /** A VM-wide mutual exclusion lock; {@code unlock} orders memory like a barrier. */
    DsaLock createLock(String name);

    /**
     * Sends one line of result text to the launcher, which prints it tagged with the node id.
     * Use it for the program's result and its verification.
     */
    void report(String line);

    /**
     * Tells the person watching how far this node has come, while the job runs (e.g.
     * {@code "round 40: best tour 1234"}); unlike {@link #report(String)}, the line is not part
     * of the job's result. {@code dsa run} prints it at once, with the node id and the seconds
     * since the job started; a program running in {@code DsaCluster.local} hands it to the
     * configuration's progress listener (by default, the log at INFO under the logger
     * {@code io.dsa.progress}).
     *
     * <p>Any thread may call it; it does not block on the network. A node passes on at most one
     * line per {@value #PROGRESS_INTERVAL_MS} ms: lines that come faster are dropped, so calling
     * it in an inner loop costs little and floods nobody.
     *
     * @param line one line of text, for people
     */
    void progress(String line);

    /** Shortest interval between two progress lines of one node that are passed on, in milliseconds. */
    long PROGRESS_INTERVAL_MS = 100;
}
