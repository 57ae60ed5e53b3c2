package io.dsa.agent.host;

import io.dsa.agent.BarrierKind;
import io.dsa.agent.DsaConfig;
import io.dsa.agent.ProxyMode;
import io.dsa.agent.WaitStrategy;
import java.util.ArrayList;
import java.util.List;

/**
 * The VM-wide settings of a job on hosts as {@code key=value} job options, both ways: the launcher
 * writes them into every node's launch ({@link #of}), the node's JVM reads them back into its
 * config ({@link #apply}). One place for both, so that a setting added to one side cannot be
 * missing from the other (a round trip is tested). The options of one node (its host's threads,
 * checkpoints, restarts, clones) stay with {@link ChildAgent}.
 */
public final class VmSettingOptions {
    /** The keys this class reads, in the order {@link #of} writes them. */
    static final List<String> KEYS = List.of("barrier", "fanout", "proxy", "maxFrameBytes", "failureTimeoutMs", "wait",
            "prefetchWindow", "readerPushes", "barrierLanes", "returningReads", "checkpointSync", "sharedRings", "selfInvalidation",
            "hitCounts", "bindCores");

    private VmSettingOptions() {}

    /**
     * @return {@code config}'s VM-wide settings as job options; the settings that are on by
     *         default are written only when off, so that a host of an earlier build reads a job
     *         that keeps them on
     */
    public static List<String> of(DsaConfig config) {
        List<String> options = new ArrayList<>(List.of("barrier=" + config.barrier().name(), "fanout=" + config.barrierFanout(),
                "proxy=" + config.proxy().name(), "maxFrameBytes=" + config.maxFrameBytes(),
                "failureTimeoutMs=" + config.failureTimeoutMs(), "wait=" + config.waitStrategy().name(),
                "prefetchWindow=" + config.prefetchWindow(), "readerPushes=" + config.readerPushes()));
        if (!config.barrierLanes()) options.add("barrierLanes=false");
        if (!config.returningReads()) options.add("returningReads=false");
        if (!config.checkpointSync()) options.add("checkpointSync=false");
        if (!config.sharedRings()) options.add("sharedRings=false");
        if (config.selfInvalidation()) options.add("selfInvalidation=true");   // off by default: written only when on
        if (!config.hitCounts()) options.add("hitCounts=false");
        if (config.bindCores()) options.add("bindCores=true");   // off by default: written only when on
        return options;
    }

    /**
     * Sets {@code key}'s value in {@code config} if it is one of {@link #KEYS}.
     *
     * @return whether it was
     * @throws IllegalArgumentException if the value does not parse
     */
    static boolean apply(String key, String value, DsaConfig.Builder config) {
        switch (key) {
            case "barrier" -> config.barrier(BarrierKind.valueOf(value));
            case "fanout" -> config.barrierFanout(Integer.parseInt(value));
            case "proxy" -> config.proxy(ProxyMode.valueOf(value));
            case "maxFrameBytes" -> config.maxFrameBytes(Integer.parseInt(value));
            case "failureTimeoutMs" -> config.failureTimeoutMs(Long.parseLong(value));
            case "wait" -> config.waitStrategy(WaitStrategy.valueOf(value));
            case "prefetchWindow" -> config.prefetchWindow(Integer.parseInt(value));
            case "readerPushes" -> config.readerPushes(Boolean.parseBoolean(value));
            case "barrierLanes" -> config.barrierLanes(Boolean.parseBoolean(value));
            case "returningReads" -> config.returningReads(Boolean.parseBoolean(value));
            case "checkpointSync" -> config.checkpointSync(Boolean.parseBoolean(value));
            case "sharedRings" -> config.sharedRings(Boolean.parseBoolean(value));
            case "selfInvalidation" -> config.selfInvalidation(Boolean.parseBoolean(value));
            case "hitCounts" -> config.hitCounts(Boolean.parseBoolean(value));
            case "bindCores" -> config.bindCores(Boolean.parseBoolean(value));
            default -> {
                return false;
            }
        }
        return true;
    }
}
