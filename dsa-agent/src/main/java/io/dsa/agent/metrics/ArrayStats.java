package io.dsa.agent.metrics;

/**
 * One array's counts at a node as a JMX client reads them ({@link NodeMXBean#getArrays()}), as
 * {@link ArrayCounts} holds them; a node's {@link NodeMXBean} has them too, summed over its arrays.
 */
public interface ArrayStats {
    /** @return {@link ArrayCounts#readHits()} */
    long getReadHits();

    /** @return {@link ArrayCounts#writeHits()} */
    long getWriteHits();

    /** @return {@link ArrayCounts#readMisses()} */
    long getReadMisses();

    /** @return {@link ArrayCounts#writeMisses()} */
    long getWriteMisses();

    /** @return {@link ArrayCounts#invalidationsSent()} */
    long getInvalidationsSent();

    /** @return {@link ArrayCounts#invalidationsReceived()} */
    long getInvalidationsReceived();

    /** @return {@link ArrayCounts#bytesIn()} */
    long getBytesIn();

    /** @return {@link ArrayCounts#bytesOut()} */
    long getBytesOut();
}
