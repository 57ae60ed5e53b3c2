package io.dsa.agent.transport;

import io.netty.util.ResourceLeakDetector;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Netty's buffer leak detector, off in a DSA process unless its system property asks for it.
 *
 * <p>At Netty's default level ({@code SIMPLE}) one buffer allocation in 128 is tracked, and each
 * tracked one captures a stack trace: on a node's hot path (a miss, a barrier, a streamed
 * partition) that is an allocation and tens of microseconds now and then. A {@code perf} profile
 * of 8 KiB misses under SPIN spent 2.2% of the waiting workers' time filling those stack traces
 * (BENCHMARKS.md, "Below the JVM"). The detector is for finding leaks in tests, where the build
 * runs it at {@code paranoid}: whenever {@code io.netty.leakDetection.level} (or Netty's older
 * {@code io.netty.leakDetectionLevel}) is set, its level is left as set. The level is global to
 * the JVM, as Netty's is; the first {@link Transport} or {@link IoLoop} made sets it.
 */
final class LeakDetection {
    /** The system property Netty reads its level from; DSA passes it on to child JVMs. */
    static final String LEVEL_PROPERTY = "io.netty.leakDetection.level";
    /** Netty's older name of {@link #LEVEL_PROPERTY}, which it still reads. */
    static final String LEGACY_LEVEL_PROPERTY = "io.netty.leakDetectionLevel";

    private static final AtomicBoolean APPLIED = new AtomicBoolean();

    private LeakDetection() {}

    /** Sets the level by {@link #levelFor} the system properties, once per JVM; later calls do nothing. */
    static void apply() {
        if (!APPLIED.compareAndSet(false, true)) return;
        ResourceLeakDetector.Level level = levelFor(System.getProperty(LEVEL_PROPERTY), System.getProperty(LEGACY_LEVEL_PROPERTY));
        if (level != null) ResourceLeakDetector.setLevel(level);
    }

    /**
     * @param property the value of {@link #LEVEL_PROPERTY}, or null if unset
     * @param legacyProperty the value of {@link #LEGACY_LEVEL_PROPERTY}, or null if unset
     * @return the level DSA sets: {@code DISABLED} when neither property is set, else null (the
     *         level Netty read from the property stays)
     */
    static ResourceLeakDetector.Level levelFor(String property, String legacyProperty) {
        return property == null && legacyProperty == null ? ResourceLeakDetector.Level.DISABLED : null;
    }
}
