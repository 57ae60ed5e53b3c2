package io.dsa.agent;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Receives the lines programs pass to {@link io.dsa.DsaNode#progress(String)}; set with
 * {@link DsaConfig.Builder#progress(ProgressListener)}. {@code dsa run} prints them with the time
 * since the job started.
 *
 * <p>Threads: called on the program's thread that reported, at most once per
 * {@link io.dsa.DsaNode#PROGRESS_INTERVAL_MS} ms per node; it must be quick and must not throw.
 */
@FunctionalInterface
public interface ProgressListener {
    /** Logs each line at INFO under the logger {@code io.dsa.progress}, as {@code node K: line}. */
    ProgressListener LOG = new ProgressListener() {
        private final Logger log = LoggerFactory.getLogger("io.dsa.progress");

        @Override
        public void onProgress(int nodeId, String line) { log.info("node {}: {}", nodeId, line); }
    };

    /**
     * @param nodeId the node whose program reported
     * @param line the program's line
     */
    void onProgress(int nodeId, String line);
}
