package io.dsa.agent.metrics;

import java.util.Map;

/**
 * A node's counts as a JMX MBean, named {@code io.dsa:type=Node,vm=VM,node=K} in the platform
 * MBeanServer of the JVM that runs the node ({@link NodeMBeans}). Every attribute is read from
 * the node when asked; the meanings are those of {@link NodeCounts} and {@link ArrayCounts}
 * (the {@link ArrayStats} attributes are their sums over the node's arrays; the node's own bytes
 * on the wire are {@link #getWireBytesIn()} and {@link #getWireBytesOut()}).
 */
public interface NodeMXBean extends ArrayStats {
    /** @return the VM's name */
    String getVm();

    /** @return the node's id */
    int getNode();

    /** @return {@link NodeCounts#hitsCounted()}: if false, the hits read 0 and mean nothing */
    boolean isHitsCounted();

    /** @return {@link NodeCounts#bytesIn()}: bytes on the wire */
    long getWireBytesIn();

    /** @return {@link NodeCounts#bytesOut()}: bytes on the wire */
    long getWireBytesOut();

    /** @return {@link NodeCounts#barrierWaits()} */
    long getBarrierWaits();

    /** @return {@link NodeCounts#barrierWaitNanos()} in milliseconds */
    double getBarrierWaitMillis();

    /** @return {@link NodeCounts#migrationPauses()} */
    long getMigrationPauses();

    /** @return {@link NodeCounts#migrationPauseNanos()} in milliseconds */
    double getMigrationPauseMillis();

    /** @return the counts of each array by name (a table in JMX clients) */
    Map<String, ArrayStats> getArrays();
}
